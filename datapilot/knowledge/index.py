"""A library's retrieval index: BM25 saved on disk per library version (bm25s), how many chunks
have vectors of each dimension (the vectors themselves are searched where the store keeps them,
see `vectors`), reciprocal-rank fusion.

An index is built once per library version (any document added or removed bumps it), saved
under the data dir and kept in memory, so a query never rebuilds it.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import threading
from collections import OrderedDict
from collections.abc import Set
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from datapilot.data.text import is_chinese
from datapilot.knowledge.asked_zh import narrowed_zh
from datapilot.knowledge.coverage import (
    DATED,
    acronyms,
    aside,
    asks_date,
    checked,
    dated,
    frame_words,
    narrowed_away,
    number_tokens,
    preamble,
    runs,
    spelt_out,
    token_set,
    verb_tokens,
)
from datapilot.knowledge.expansion import alternatives
from datapilot.knowledge.scoring import Scorer, whole_words
from datapilot.knowledge.slots import (
    day_given,
    month_tokens,
    periods_held,
    quarter_apart,
    reason_given,
    source_given,
    tier_given,
)
from datapilot.knowledge.wording import as_read, library_words
from datapilot.retrieval import tokenize

RRF_K = 60  # the usual constant of reciprocal-rank fusion
CANDIDATES = 30
MIN_SHARED_TERMS = 0.3  # share of the question's terms the best BM25 passage must hold
# ... and of their weight (inverse document frequency): words found in many passages ("report",
# "share") weigh little beside the rare word a question is about ("buyback"). The words of the
# passage's document name (indexed with every one of its passages) are not weighed: they say
# which document, not whether it says what is asked ("What interest does the policy charge on
# late margin calls?" passed on "counterparty" and "policy"). A word the library uses elsewhere
# but the passage lacks weighs fully (the question asks about something else); a word the
# library never uses weighs half a word of one passage: questions have words of their own
# ("much", "grow") that no answer needs, yet an unknown word may be the very thing asked
# ("Sharpe"). Words asking for a chart or table are not weighed, nor those framing the question
# ("how much", 多久, "the smallest": `coverage.frame_words`). On the held-out bench's first two
# batches the unanswered questions' best passages hold at most 0.44 of the weight, the answered
# ones' at least 0.49: a thin margin, see `bench/results.md`. Beside the share, a passage that
# lacks a word narrowing a noun it holds does not answer (`coverage.narrowed_away`).
MIN_SHARED_WEIGHT = 0.46
UNKNOWN_WEIGHT = 0.5
_ASKING_FOR = "plot chart graph draw show table trend compare visualise 图 画 绘 表格 走势 对比"
MIN_COSINE = 0.5  # vectors alone answer only when this close
# The passage that answers may rank a little below the first (it uses other words): so many are
# read for whether anything answers.
ANSWER_CANDIDATES = 3
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# A proper name: capitalised words, joined by "of" or "and" ("Bank of Westland"), also where
# Chinese is written right beside it (Westland央行).
_PROPER = re.compile(
    r"(?<![A-Za-z])[A-Z][a-z]+(?:(?:\s+(?:of|and|for)(?:\s+the)?)?\s+[A-Z][a-z]+)*(?![A-Za-z])"
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CACHE_SIZE = 16
# A Chinese organisation's name: two characters and what kind of body it is (星辰科技, 招商银行).
_ORG_ZH = re.compile(r"[\u4e00-\u9fff]{2}(?P<kind>科技|集团|银行|证券|控股|股份|基金公司)")
T = TypeVar("T")


@dataclass
class Entry:
    """One chunk as the index knows it."""

    id: int
    text: str  # what was indexed (document name, heading and text)
    title: str = ""  # the document's name as words


@dataclass(frozen=True)
class Reading:
    """How much of a question a passage holds (`LibraryIndex.reading`)."""

    terms: float  # share of the question's terms held
    weight: float  # share of their weight held
    years: bool  # every year, month and count of years or months the question names is there
    narrowed: tuple[str, ...]  # words narrowing a held noun that the passage lacks
    held: frozenset[str] = frozenset()  # the question's terms the passage holds


@dataclass
class Ranked:
    id: int
    score: float
    bm25: int | None = None  # 1-based rank in each list, for explanations and the bench
    dense: int | None = None


class LibraryIndex:
    def __init__(
        self,
        ids: list[int],
        texts: list[str],
        retriever: object | None,
        dims: dict[int, int] | None = None,
        titles: list[str] | None = None,
    ) -> None:
        self.ids = ids
        self.texts = texts
        # An index saved before titles were kept weighs every word (as it did then).
        self.titles = titles or [""] * len(ids)
        self._retriever = retriever
        self.dims = dims or {}  # vector dimension -> how many chunks have one
        self.positions = {chunk_id: position for position, chunk_id in enumerate(ids)}
        self._words: frozenset[str] | None = None
        self._whole: str | None = None
        self._orgs: dict[str, frozenset[str]] = {}
        self._pinyin: dict[str, frozenset[str]] = {}
        self._documents: dict[str, str] = {}

    def as_read(self, query: str) -> str:
        """`query` as this library reads it: misspelt words as the word meant
        (`wording.as_read`), against the passages' own words first."""
        if self._words is None:
            self._words = library_words(self.texts)
        return as_read(query, self._words)

    @classmethod
    def build(
        cls, entries: list[Entry], folder: Path | None = None, dims: dict[int, int] | None = None
    ) -> LibraryIndex:
        import bm25s

        ids = [e.id for e in entries]
        texts = [e.text for e in entries]
        retriever = None
        if entries:
            retriever = bm25s.BM25()
            retriever.index([tokenize(t) for t in texts], show_progress=False)
        index = cls(ids, texts, retriever, dims, [e.title for e in entries])
        if folder is not None:
            index.save(folder)
        return index

    def save(self, folder: Path) -> None:
        """Write aside, then rename: a reader never loads half an index."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        temporary = folder.with_name(folder.name + f".tmp-{threading.get_ident()}")
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir()
        if self._retriever is not None:
            self._retriever.save(str(temporary / "bm25"), show_progress=False)  # type: ignore[attr-defined]
        saved = {"ids": self.ids, "texts": self.texts, "dims": self.dims, "titles": self.titles}
        (temporary / "chunks.json").write_text(json.dumps(saved))
        try:
            temporary.rename(folder)
        except OSError:  # another worker saved the same version first
            shutil.rmtree(temporary, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> LibraryIndex | None:
        import bm25s

        try:
            saved = json.loads((folder / "chunks.json").read_text())
            retriever = None
            if (folder / "bm25").exists():
                retriever = bm25s.BM25.load(str(folder / "bm25"), show_progress=False)
            dims = {int(dim): int(count) for dim, count in saved.get("dims", {}).items()}
        except (OSError, ValueError, AttributeError):
            return None
        titles = saved.get("titles")
        return cls(list(saved["ids"]), list(saved["texts"]), retriever, dims, titles)

    def bm25(self, query: str, k: int = CANDIDATES) -> list[tuple[int, float]]:
        """(position, score) of the best BM25 matches, sharing at least one term: the query's
        words, each counted once, or their glossary, dictionary and digit alternatives (the
        other language, digits), as their own words weigh (`scoring.Scorer`)."""
        tokens = tokenize(query)
        if self._retriever is None or not tokens:
            return []
        total = Scorer(self._retriever).question(tokens, alternatives(query))
        order = np.argsort(-total, kind="stable")[:k]
        return [(int(n), float(total[n])) for n in order if total[n] > 0]

    def answers(
        self, query: str, bm25: list[tuple[int, float]], dense: list[tuple[int, float]]
    ) -> bool:
        """Whether anything here answers `query`: one of the first `ANSWER_CANDIDATES` BM25
        passages holds a good share of its terms and every year it names, or the nearest vector
        is close. A term counts as held when the passage holds it or the glossary's other words
        for it (another language, digits for number words); a year pins down what is asked (a
        passage on 2023 does not answer a question on 2022)."""
        # A word before a noun narrowing what a better passage speaks of, which it lacks, is
        # asked of the passages below it too: one holding neither "UK" nor "gilts" does not
        # answer "UK gilts" where the best passage spoke of government bonds but not the UK's.
        if self.names_another(query):
            return False  # "星辰科技…": a company the library never mentions
        modifiers = {" ".join(unit) for run in runs(query) for unit in run.units[:-1]}
        lacking: set[str] = set()
        named = self.named(query)
        for position, _ in bm25[:ANSWER_CANDIDATES]:
            if named and self.titles[position] not in named:
                continue  # the question names another document ("the Bank of Westland")
            found = self.reading(query, position)
            if _answers(found) and not lacking - found.held:
                return True
            lacking |= {t for word in found.narrowed if word in modifiers for t in word.split()}
            if not found.years and not found.narrowed and _answers(replace(found, years=True)):
                # The passage answering but for another period ("R&D in the third quarter
                # alone" beside 前三季度研发费用): one below it lacking its words (研发) speaks
                # of something else in that period
                lacking |= set(found.held)
        return bool(dense) and dense[0][1] >= MIN_COSINE

    def named(self, query: str) -> dict[str, set[str]]:
        """The names of the documents the question names by a proper name (capitalised words,
        its first word alone aside: "the Bank of Westland" for westland_policy_statement.txt),
        each with the tokens of the name the question gives it ("bank", "westland"). Chinese
        names are not read so: their words are often plain ones (业绩 of 业绩说明会); a Chinese
        organisation in a document's name is also found by its pinyin ("Lanhai" for 蓝海科技)."""
        found: dict[str, set[str]] = {}
        for match in _PROPER.finditer(query):
            # An English question's first word is capitalised anyway; a Chinese one's is not.
            if match.start() == 0 and " " not in match.group(0) and not _HAN.search(query):
                continue
            said = set(tokenize(match.group(0)))
            for title in set(self.titles):
                named = set(tokenize(title)) | self._spelt(title)
                if title and said & named:
                    found.setdefault(title, set()).update(said)
        return found

    def _spelt(self, title: str) -> frozenset[str]:
        """The Chinese organisation a document's name holds, spelt in pinyin as an English
        question writes it (蓝海科技 → "lanhai"): the question names that document."""
        if title not in self._pinyin:
            from datapilot.brains.offline.homophones import sound

            names = (m.group(0)[:2] for m in _ORG_ZH.finditer(title))
            self._pinyin[title] = frozenset("".join(sound(name)) for name in names)
        return self._pinyin[title]

    def names_another(self, query: str) -> bool:
        """Whether a Chinese question names an organisation (its name and a word such as 科技,
        银行, 集团) that no passage of the library writes: it asks about another company."""
        found = [(m.group(0), m.group("kind")) for m in _ORG_ZH.finditer(query)]
        if not found:
            return False
        if self._whole is None:
            self._whole = "\n".join(self.texts)
        # Only against a library that names such a body itself (蓝海科技 beside 星辰科技): a
        # Chinese name for a body its English notes name otherwise is no other company.
        return any(
            name not in self._whole and bool(self._bodies(kind) - {name}) for name, kind in found
        )

    def _bodies(self, kind: str) -> frozenset[str]:
        """The names of that kind of body the library writes (蓝海科技 for 科技), found once per
        index rather than by a scan of every passage per question."""
        if kind not in self._orgs:
            whole = self._whole or ""
            found = re.finditer(rf"[\u4e00-\u9fff]{{2}}{kind}", whole)
            self._orgs[kind] = frozenset(m.group(0) for m in found)
        return self._orgs[kind]

    def holds(self, query: str, position: int) -> bool:
        """Whether the passage at `position` answers `query` (`reading`): a passage that says
        what is asked, not one near it in the ranking."""
        return _answers(self.reading(query, position))

    def reading(self, query: str, position: int) -> Reading:
        """How much of `query` the passage at `position` holds: the share of its terms and of
        their weight (IDF, its document's name aside), whether it holds every year it names,
        and the words narrowing a noun it holds that it lacks (`coverage.narrowed_away`). A
        term counts as held when the passage holds it, its pieces (a long Chinese word), its
        glossary or dictionary words, its digits (a number word), its letters spelt out (an
        acronym) or, for "date", any date the passage writes. A value the question checks
        against the passage (`coverage.checked`: a credit grade, the number of a question
        asking whether) and a verb the library never uses are not weighed unless held."""
        asked = words_of(query) - set(tokenize(_ASKING_FOR)) - frame_words(query)
        text = self.texts[position]
        if not asked:
            return Reading(0.0, 0.0, True, ())
        shared = _shared(query, asked, text)
        years = all(year in text for year in set(_YEAR.findall(query)))
        years = years and periods_held(query, text)
        title_line = self.titles[position]
        body = text[len(title_line) :] if title_line and text.startswith(title_line) else text
        years = years and quarter_apart(query, body)
        if years:
            shared |= month_tokens(query) & asked
        vocabulary = self._vocabulary()
        title = set(tokenize(self.titles[position]))
        document: set[str] = set()
        if self.titles[position]:
            document = _shared(query, asked, self._document(self.titles[position]))
        narrowed = narrowed_away(
            query,
            lambda unit: unit[-1] in shared,
            self.idf,
            text,
            lambda unit: unit[-1] in document,
        )
        whole = self._document(self.titles[position]) if self.titles[position] else ""
        narrowed += narrowed_zh(query, lambda unit: unit[-1] in shared, self.idf, text, whole)
        if not reason_given(query, text):
            narrowed += ("why",)
        if not day_given(query, text):
            narrowed += ("date",)
        if not tier_given(query, text):
            narrowed += ("tier",)
        if not source_given(query, text):
            narrowed += ("from",)
        # The name the question gives the document ("the Bank of Westland") names it too.
        title |= self.named(query).get(self.titles[position], set())
        # Only the document's name matching: the question names the document and asks nothing
        # more of it, so the name is what it asks about.
        weighed = asked - title or asked
        weighed = weighed - aside(query) or weighed
        # A value the question checks (a grade; a number it asks whether) the passage lacks, and
        # a verb the library never uses, nor the glossary's words for it (the question's
        # phrasing: "say", "think", "bring in"; not "exports" beside notes saying 出口).
        said_otherwise = {
            t
            for a in alternatives(query)
            if not a.words and a.instead & vocabulary.keys()
            for t in a.asked
        }
        unused = verb_tokens(query) - vocabulary.keys() - said_otherwise
        unsaid = checked(query) | unused | preamble(query)
        weighed = weighed - (unsaid - shared) or weighed
        shared &= weighed
        weight = {
            term: self.idf(term)
            * (UNKNOWN_WEIGHT if term not in shared and term not in vocabulary else 1.0)
            for term in weighed
        }
        held = sum(weight[term] for term in shared) / (sum(weight.values()) or 1.0)
        return Reading(len(shared) / len(weighed), held, years, narrowed, frozenset(shared))

    def _document(self, title: str) -> str:
        """The text of every passage of the document named `title`."""
        if title not in self._documents:
            self._documents[title] = "\n".join(
                text for text, named in zip(self.texts, self.titles, strict=True) if named == title
            )
        return self._documents[title]

    def _vocabulary(self) -> dict[str, int]:
        if self._retriever is None:
            return {}
        return self._retriever.vocab_dict  # type: ignore[attr-defined]

    def idf(self, term: str) -> float:
        """BM25's inverse document frequency of `term` here (a term never used: as if in one
        passage)."""
        count = len(self.ids)
        found = 1
        if self._retriever is not None:
            vocabulary = self._retriever.vocab_dict  # type: ignore[attr-defined]
            pointers = self._retriever.scores["indptr"]  # type: ignore[attr-defined]
            if term in vocabulary:
                position = vocabulary[term]
                found = max(1, int(pointers[position + 1] - pointers[position]))
        return math.log(1 + (count - found + 0.5) / (found + 0.5))


def _answers(found: Reading) -> bool:
    return (
        found.years
        and not found.narrowed
        and found.terms >= MIN_SHARED_TERMS
        and found.weight >= MIN_SHARED_WEIGHT
    )


def words_of(query: str) -> set[str]:
    """The query's retrieval terms, each Chinese word once: jieba's search mode also cuts a
    long word into its pieces (第三季度 → 第三, 三季度, 季度 …), which would weigh it several
    times over a word cut once."""
    return set(whole_words(tokenize(query)))


def _measure_of(word: str, base: str) -> bool:
    """Whether a Chinese word is `base` and a one-character measure (通胀率: 通胀 + 率)."""
    return len(base) >= 2 and word[:-1] == base and word[-1] in "率量额值"


def _shared(query: str, asked: set[str], text: str) -> set[str]:
    """The terms of `asked` that `text` holds: itself, its pieces (a long Chinese word), its
    glossary or dictionary words, its digits (a number word), its letters spelt out (an
    acronym) or, for "date", any date written."""
    held = token_set(text)
    shared = {w for w in asked if w in held or _pieces_held(w, query, held)}
    for alternative in alternatives(query):
        if alternative.held_in(held):
            shared |= alternative.asked & asked
            # A rate or an amount of it (通胀率, 进口量): the passage's figure for the word.
            shared |= {w for w in asked for a in alternative.asked if _measure_of(w, a)}
    for acronym in acronyms(query):
        if spelt_out(acronym, text):
            shared |= set(tokenize(acronym)) & asked
    numbers = number_tokens()
    shared |= {w for w in asked if w in numbers and numbers[w] in held}
    if asks_date(query) and dated(text):
        shared |= set(tokenize(DATED)) & asked
    return shared


def _pieces_held(word: str, query: str, held: Set[str]) -> bool:
    """Whether a passage holds a long Chinese word of the query piece by piece (汽车销量 as 汽车
    and 销量): every shorter term of the query inside it."""
    pieces = {t for t in tokenize(query) if t != word and t in word}
    return is_chinese(word) and bool(pieces) and pieces <= held


def fuse(bm25: list[tuple[int, float]], dense: list[tuple[int, float]]) -> list[Ranked]:
    """Reciprocal-rank fusion of the two rankings (positions), best first."""
    fused: dict[int, Ranked] = {}
    for rank, (position, _) in enumerate(bm25, 1):
        entry = fused.setdefault(position, Ranked(id=position, score=0.0))
        entry.score += 1.0 / (RRF_K + rank)
        entry.bm25 = rank
    for rank, (position, _) in enumerate(dense, 1):
        entry = fused.setdefault(position, Ranked(id=position, score=0.0))
        entry.score += 1.0 / (RRF_K + rank)
        entry.dense = rank
    return sorted(fused.values(), key=lambda r: -r.score)


class IndexCache(Generic[T]):
    """Indexes kept in memory per key (a library and its version, or its vector dimension),
    the least recently used dropped first."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._items: OrderedDict[tuple[str, int], T] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def get(self, key: tuple[str, int]) -> T | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, int], index: T) -> None:
        with self._lock:
            self._items[key] = index
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


CACHE: IndexCache[LibraryIndex] = IndexCache()  # a cache of immutable indexes, not request state
