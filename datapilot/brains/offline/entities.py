"""Which entities a question names: catalog mentions, client tables, and names nobody knows.

The catalog finds mentions (aliases in English and Chinese, tickers, misspellings; the longest
wins). Here they are checked against what the rest of the question means: a "mention" inside a
date ("Q1"), or one that is really a metric word ("MA" the moving average, not Mastercard), is
dropped with a trace line saying why. Two readings come on top of the catalog's: a group word
("the factor ETFs") names all its members, and a short ticker typed in lower case ("pg", "jnj")
counts when no word of the vocabulary explains it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from datapilot.brains.offline.phrases import Hit, Span, mask, overlaps
from datapilot.brains.offline.vocab import Vocab
from datapilot.data.catalog import Catalog, Entity, Match
from datapilot.data.text import is_common_word

MIN_SCORE = 80.0
# Labels of phrases that, said alone, mean a measure or a form rather than an entity.
_MEANING_LABELS = ("metric:", "chart:", "plot", "table", "freq:", "cue:compare", "cue:rank")


class Mention(BaseModel):
    """An entity named in the question, where and how well it matched."""

    entity: Entity
    text: str
    span: Span
    score: float
    how: str = "name"

    def described(self) -> str:
        """The trace line: what was said, the entity, and how it was read when not plainly."""
        e = self.entity
        line = f'"{self.text}" → {e.id} ({e.name}, {e.kind})'
        if self.how == "ticker" and not self.text.isupper():
            return line + LOWER_CASE_TICKER
        return line + _HOW.get(self.how, "")


LOWER_CASE_TICKER = ", a lower-case ticker"
# How a name was read, when it was not written as the catalog has it (Chinese in messages.py).
_HOW = {"spelling": ", read as a misspelling", "prefix": ", read as the start of its name"}
_HOW |= {"sound": ", read by its sound (a character of the same sound typed for it)"}


def find_mentions(
    text: str, candidates: Sequence[Match], blocked: Sequence[Span], vocab: Vocab
) -> tuple[list[Mention], list[str]]:
    """The catalog's mentions in `text` that hold up, in text order, and why others were not."""
    kept: list[Mention] = []
    trace: list[str] = []
    for match in candidates:
        span = (match.start, match.end)
        said = match.matched
        if match.score < MIN_SCORE:
            continue
        if span[0] >= 0 and overlaps(span, blocked):
            trace.append(f'"{said}" is part of a date, not {match.entity.id}')
            continue
        if _means_something_else(said, match.entity, vocab):
            trace.append(
                f'"{said}" read as a word of the question, not the ticker {match.entity.id}'
            )
            continue
        if any(m.entity.id == match.entity.id for m in kept):
            continue
        kept.append(
            Mention(entity=match.entity, text=said, span=span, score=match.score, how=match.how)
        )
    kept.sort(key=lambda m: m.span[0])
    return kept, trace


def _means_something_else(said: str, entity: Entity, vocab: Vocab) -> bool:
    labels = vocab.matcher.labels_of(said)
    if not any(label.startswith(_MEANING_LABELS) for label in labels):
        return False
    # A full company name that happens to be a word still names the company.
    return said.strip().upper() == entity.id.upper() or len(said.strip()) <= 4


_CALENDAR_NAME = re.compile(
    r"(?i)(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?|(?:mon|tue|wed|thu|fri|sat|sun)\.?"
)
_LATIN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9&.\-']*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")


_SENTENCE_OPENS = re.compile(r"[.?!:;]\s+$")


def unknown_names(text: str, claimed: Iterable[Span], hits: Iterable[Hit]) -> list[str]:
    """What is left of the question after every known word: names the catalog does not know."""
    rest = mask(text, [*claimed, *((h.start, h.end) for h in hits)])
    names: list[str] = []
    opening: set[str] = set()  # runs that open a sentence, capitalised for that alone
    current: list[str] = []
    last_end = -1
    for token in _LATIN_TOKEN.finditer(rest):
        word = token.group(0).removesuffix("'s").removesuffix("’s").strip(".-'")
        if not word or word.isdigit():
            continue
        if current and rest[last_end : token.start()].strip():
            names.append(" ".join(current))
            current = []
        if not current and _SENTENCE_OPENS.search(text[: token.start()]):
            opening.add(word)
        current.append(word)
        last_end = token.end()
    if current:
        names.append(" ".join(current))

    def everyday(word: str, first: bool) -> bool:
        # "… close. Ending value of each": a sentence's first word, capitalised by its place
        said = word.lower() if first and word in opening else word
        return is_common_word(said) or bool(_CALENDAR_NAME.fullmatch(word))

    # Everyday words ("Should I buy…") are no names, even capitalised; nor is a month or a
    # weekday said without a year ("the Jan return").
    names = [n for n in names if not all(everyday(w, i == 0) for i, w in enumerate(n.split()))]
    names += [run.group(0) for run in _CJK_RUN.finditer(rest)]
    return [n for n in dict.fromkeys(names) if len(n) > 1]


_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
# Words that, inside a Chinese name nobody knows, are part of the name: a one-character filler
# (中 of 中欧, 同 of 同花顺) or an everyday word (行业 of 易方达消费行业, 健康 of 中欧医疗健康混合).
# A measure, a chart word or a time phrase always ends the name.
_GLUE = frozenset({"cue:filler", "cue:finance", "out_of_scope"})
# One-character fillers that are also common inside names (中证, 中欧, 旗下, 股份).
_NAME_CHARACTERS = frozenset("中下股里")


def glued_to_names(text: str, claimed: Iterable[Span], hits: Sequence[Hit]) -> list[Span]:
    """The everyday words inside or closing a run of Chinese characters nobody knows, so the
    name is quoted whole ("中欧医疗健康混合", not "欧医疗" and "混合"): a word between unknown
    characters, an everyday (non-filler) word right after them, and a one-character filler that
    opens a name (after the question's start, a mark or a word like 和)."""
    claimed = list(claimed)
    rest = mask(text, [*claimed, *((h.start, h.end) for h in hits)])

    def unknown(i: int) -> bool:
        return 0 <= i < len(rest) and bool(_CJK_CHAR.match(rest[i]))

    fillers = {h.end for h in hits if h.has("cue:filler")}  # "和" ends where 中欧 starts
    glued: list[Span] = []
    for hit in hits:
        if not set(hit.labels) <= _GLUE or not _CJK_CHAR.match(hit.text):
            continue
        before, after = unknown(hit.start - 1), unknown(hit.end)
        filler = hit.has("cue:filler")
        if filler and len(hit.text) == 1 and hit.text not in _NAME_CHARACTERS:
            continue  # a particle or a conjunction ends a name: 佐布拉克斯和辉端 are two
        opens = hit.start in fillers or hit.start == 0 or not _CJK_CHAR.match(text[hit.start - 1])
        first = opens and after and len(hit.text) == 1
        if (before and after) or (before and not filler) or first:
            glued.append((hit.start, hit.end))
    return glued + _glued_latin(text, claimed, hits)


_CAPITALISED = re.compile(r"[A-Z][A-Za-z0-9&.\-']*")
_SUFFIXES = frozenset({"Inc", "Corp", "Co", "Ltd", "Group", "Holdings", "Plc", "AG", "SA"})


def _glued_latin(text: str, claimed: list[Span], hits: Sequence[Hit]) -> list[Span]:
    """Capitalised finance and place words beside a capitalised word nobody knows are part of
    its name ("E Fund Blue Chip Select", "China Europe Healthcare Hybrid"), as is a company
    suffix after one ("Zorblax Group"); other words that open a sentence ("Plot") are not."""
    # A company suffix ("Corp", "Group") only ends a name; "Fund" or a place may open one.
    either = [
        h
        for h in hits
        if _CAPITALISED.fullmatch(h.text) and (h.has("cue:finance") or h.has("cue:country"))
    ]
    suffixes = [h for h in hits if h.text in _SUFFIXES and h not in either]
    glued: list[Span] = []
    while True:
        taken = [(h.start, h.end) for h in hits if (h.start, h.end) not in glued]
        rest = mask(text, [*claimed, *taken])
        names = {m.span() for m in _CAPITALISED.finditer(rest)}
        added = [
            (h.start, h.end)
            for h in [*either, *suffixes]
            if (h.start, h.end) not in glued
            and any(
                (e + 1 == h.start or (h.end + 1 == s and h in either))
                and text[min(e, h.end)] == " "
                for s, e in names
            )
        ]
        if not added:
            return glued
        glued += added


def group_mentions(
    hits: Sequence[Hit], named: Sequence[Mention], vocab: Vocab, catalog: Catalog
) -> tuple[list[Mention], list[str]]:
    """Members of the groups the question names ("the factor ETFs"), and why.

    A group stands for all its members only when none of them is named on its own: in "the
    momentum and quality factor ETFs" the group word just says what kind of names those are.
    """
    taken = {m.entity.id for m in named}
    found: list[Mention] = []
    trace: list[str] = []
    for hit in hits:
        for name in hit.group("group"):
            ids = vocab.groups.groups[name].ids
            if taken & set(ids):
                continue
            members = [e for i in ids if (e := catalog.get(i)) is not None and e.id not in taken]
            if not members:
                continue
            taken |= {e.id for e in members}
            found += [
                Mention(entity=e, text=hit.text, span=(hit.start, hit.end), score=100.0)
                for e in members
            ]
            trace.append(f'"{hit.text}" → {", ".join(e.id for e in members)} (a group)')
    return found, trace


_SHORT_TOKEN = re.compile(r"(?<![A-Za-z0-9^])\$?([A-Za-z]{2,3})(?![A-Za-z0-9])")


_LIST_JOINT = re.compile(r"(?i)(?:,|，|、|&|\band|\bor|和|与|及)\s*$")


def _in_a_list(text: str, start: int, named: Sequence[Mention]) -> bool:
    """Whether the word at `start` follows a named entity in a list ("aapl, bby and hd")."""
    lo = max(0, start - 8)
    joint = _LIST_JOINT.search(text[lo:start])
    return joint is not None and any(0 <= lo + joint.start() - m.span[1] <= 2 for m in named)


def short_ticker_mentions(
    text: str,
    claimed: Iterable[Span],
    hits: Iterable[Hit],
    named: Sequence[Mention],
    catalog: Catalog,
) -> tuple[list[Mention], list[str]]:
    """Two- and three-letter tickers typed in lower case ("pg", "jnj's") that nothing else explains.

    The catalog matches short tickers only as written in capitals, since many are words; a word
    left over after every known phrase and filler word, that is exactly a ticker, names it.
    """
    hits = list(hits)
    rest = mask(text, [*claimed, *((h.start, h.end) for h in hits)])
    taken = {m.entity.id for m in named}
    found: list[Mention] = []
    trace: list[str] = []
    for token in _SHORT_TOKEN.finditer(rest):
        word = token.group(1)
        if word.isupper():
            continue  # capitals the catalog did not take are an abbreviation (MA, PM)
        listed = _in_a_list(text, token.start(1), [*named, *found])
        # "hd max dd 2020?": the question's first word, no other name, and a measure right after
        leading = (
            not named
            and not text[: token.start(1)].strip()
            and any(h.group("metric") and 0 < h.start - token.end(1) <= 2 for h in hits)
        )
        word_only = is_common_word(word) and not token.group(0).startswith("$")
        if word_only and not listed and not leading:
            continue  # "so", "low", "cat": words, unless written as $so or listed with names
        entity = catalog.get(word)
        if entity is None or entity.id in taken:
            continue
        taken.add(entity.id)
        mention = Mention(entity=entity, text=word, span=token.span(1), score=MIN_SCORE)
        found.append(mention.model_copy(update={"how": "ticker"}))
        trace.append(found[-1].described())
    return found, trace
