"""Find the entities a free question names: aliases, tickers and misspelt names, with scores.

Rules (each one fixes a real false positive or miss):
* names (aliases) match case-insensitively; a Latin name must not run into letters or digits
  ("Apple's" matches, "Applebee" does not); Chinese names match anywhere in the text;
* spaces, hyphens, dots and apostrophes are ignored inside names ("S&P500", "T bill");
* tickers (ids and `symbols`, less the `not_tickers` abbreviations such as MA) match as whole
  tokens, exactly as written in upper case, or in any case when four characters or longer and
  not an ordinary word ("msft" yes, "it"/"ge"/"size" no);
  a bare six-digit A-share code matches when it is unambiguous;
* weak aliases ("momentum") count only when the text also says factor / ETF;
* a Chinese name also matches in its other common wordings (`zh_names`: 三个月 / 3个月期, 美国
  before or after a tenor, 国债 / 国库券), unless another entity has that name;
* a name of several Latin words also matches in the plural ("factor ETFs", "bond yields"); a
  one-word name does not ("targets" is no company);
* names of five letters or more also match with one or two typos ("Microsfot", "Amazn") at a lower
  score, and a word that is the start of exactly one one-word name ("Micros") names it; a word
  that starts a name is never read as a misspelling of another ("Micros" is not Micron);
* overlapping candidates: the longest span wins ("Nasdaq Composite" over "Nasdaq"), then the
  score, then a name over a ticker (so the word "GDP" means real GDP, not the FRED series `GDP`).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from datapilot.core.spans import DisjointSpans
from datapilot.data import text
from datapilot.data.entity import Entity
from datapilot.data.vocabulary import MatchingRules
from datapilot.data.zh_names import zh_wordings

EXACT_SCORE = 100.0
CODE_SCORE = 95.0
WEAK_SCORE = 90.0
FUZZY_SCORE = 90.0  # one typo; each further typo costs 5
PREFIX_SCORE = 85.0
_MIN_PREFIX_SHARE = 0.6  # "Micros" (6 of "microsoft"'s 9) yes, "Micro" alone is too little

_TOKEN = re.compile(r"(?<![A-Za-z0-9])\^?[A-Za-z0-9]+(?:[.\-=][A-Za-z0-9]+)*(?![A-Za-z0-9])")
_WORD = re.compile(r"[a-z][a-z0-9&]*")
_A_SHARE = re.compile(r"^(\d{6})\.(SH|SZ|SS)$")
_MAX_FUZZY_WORDS = 4
_MIN_FUZZY_LEN = 5
_MIN_PREFIX_LEN = 4


# Words that offer names as alternatives: a name never spans one ("AT&T" and "Procter and
# Gamble" hold "&" and "and", so those are not among them).
_CHOICE_WORDS = frozenset({"or", "vs", "versus", "nor"})


@dataclass(frozen=True)
class Candidate:
    entity_id: str
    start: int
    end: int
    score: float
    # 0 = a name, 1 = a ticker: on an identical span a name wins.
    via: int = 0
    how: str = "name"

    @property
    def length(self) -> int:
        return self.end - self.start


class Matcher:
    """An index over entity names built once; `find` is a few milliseconds per question."""

    def __init__(self, entities: list[Entity], rules: MatchingRules) -> None:
        self._rules = rules
        self._names: dict[str, str] = {}
        self._weak: dict[str, str] = {}
        self._plural_ok: set[str] = set()
        self._tickers: dict[str, str] = {}
        self._tickers_any_case: dict[str, str] = {}
        self._codes: dict[str, str] = {}
        ambiguous_codes: set[str] = set()
        for entity in entities:
            for name in {entity.name, *entity.aliases, *_and_variants(entity.aliases)}:
                if key := text.key(name):
                    self._names[key] = entity.id
                    if _pluralizable(name):
                        self._plural_ok.add(key)
            for name in entity.weak_aliases:
                self._weak[text.key(name)] = entity.id
            for symbol in {entity.id, *entity.symbols}:
                if symbol in rules.not_tickers:
                    continue
                self._tickers[symbol] = entity.id
                if sum(c.isalnum() for c in symbol) >= 4 and symbol.lower() not in (
                    rules.common_words
                ):
                    self._tickers_any_case[symbol.upper()] = entity.id
            if code := _A_SHARE.match(entity.id.upper()):
                number = code.group(1)
                if number in self._codes:
                    ambiguous_codes.add(number)
                self._codes[number] = entity.id
        for number in ambiguous_codes:
            del self._codes[number]
        # Other wordings of Chinese names (三个月期美国国债利率 for 3个月期国债利率), never taking a
        # name another entity answers to.
        for entity in entities:
            for name in entity.aliases:
                if text.is_chinese(name):
                    for wording in zh_wordings(name, rules.zh_interchangeable):
                        self._names.setdefault(text.key(wording), entity.id)
        # The key lengths worth trying at a position, by the first two characters there (by the
        # one character for one-character keys): a question tries a handful, not every length.
        lengths: dict[str, set[int]] = defaultdict(set)
        for key in [*self._names, *self._weak]:
            lengths[key[:2]].add(len(key))
        self._lengths = {prefix: sorted(found, reverse=True) for prefix, found in lengths.items()}
        self._context = [text.key(word) for word in rules.weak_context]
        # Fuzzy choices: Latin names long enough that one typo cannot turn a word into them.
        fuzzy: dict[str, list[str]] = defaultdict(list)
        for key in self._names:
            if len(key) >= _MIN_FUZZY_LEN and key.isascii() and key[0].isalpha():
                fuzzy[key[0]].append(key)
        self._fuzzy = dict(fuzzy)
        # One-word Latin names, for words that are their start ("Micros").
        self._one_word = sorted(
            {
                text.key(name)
                for e in entities
                for name in (e.name, *e.aliases)
                if name.isascii() and len(name.split()) == 1 and len(text.key(name)) >= 5
            }
        )

    # What `__init__` builds from the entities: kept as plain data (`state`) beside the cached
    # catalog, so a process reading that catalog skips the build (~8 ms, mostly keying names).
    _STATE = (
        "_names", "_weak", "_plural_ok", "_tickers", "_tickers_any_case", "_codes",
        "_lengths", "_context", "_fuzzy", "_one_word",
    )  # fmt: skip

    def state(self) -> dict[str, Any]:
        """The built index as JSON-ready data, for `from_state`."""
        state = {name: getattr(self, name) for name in self._STATE}
        state["_plural_ok"] = sorted(self._plural_ok)
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any], rules: MatchingRules) -> Matcher:
        """The matcher `state()` was taken from (with the same rules); KeyError or TypeError
        when `state` is not such data."""
        matcher = cls.__new__(cls)
        matcher._rules = rules
        for name in cls._STATE:
            if not isinstance(state[name], dict | list):
                raise TypeError(f"matcher state {name}: {type(state[name]).__name__}")
            setattr(matcher, name, state[name])
        matcher._plural_ok = set(state["_plural_ok"])
        return matcher

    def name_key_owner(self, key: str) -> str | None:
        return self._names.get(key)

    def weak_key_owner(self, key: str) -> str | None:
        return self._weak.get(key)

    def code_owner(self, code: str) -> str | None:
        return self._codes.get(code)

    def ticker_owner(self, token: str) -> str | None:
        return self._tickers.get(token) or self._tickers_any_case.get(token.upper())

    def find(self, question: str) -> list[Candidate]:
        """Non-overlapping candidates, longest first, as spans of `question`."""
        chosen = _select([*self._names_in(question), *self._tickers_in(question)])
        covered = [(c.start, c.end) for c in chosen]
        return chosen + _select(self._fuzzy_in(question, covered))

    def _names_in(self, question: str) -> list[Candidate]:
        compact, positions = text.compact(question)
        original = text.normalise(question)
        weak_allowed = any(word in compact for word in self._context)
        found: list[Candidate] = []
        for start in range(len(compact)):
            for length in self._lengths_at(compact, start):
                stop = start + length
                if stop > len(compact):
                    continue
                key = compact[start:stop]
                owner, score, how = self._names.get(key), EXACT_SCORE, "name"
                if owner is None and weak_allowed:
                    owner, score, how = self._weak.get(key), WEAK_SCORE, "weak"
                if owner is None:
                    continue
                first, last = positions[start], positions[stop - 1] + 1
                if not _bounded_start(original, first):
                    continue
                if _bounded_end(original, last):
                    found.append(Candidate(owner, first, last, score, how=how))
                elif key in self._plural_ok and _plural_at(original, last):
                    found.append(Candidate(owner, first, last + 1, score, how=how))
        return found

    def _lengths_at(self, compact: str, start: int) -> list[int]:
        """The key lengths that may match at `start`, longest first."""
        found = [*self._lengths.get(compact[start], ()), *self._lengths.get("", ())]
        if start + 2 <= len(compact):
            found += self._lengths.get(compact[start : start + 2], ())
        return sorted(found, reverse=True)

    def _tickers_in(self, question: str) -> list[Candidate]:
        original = text.normalise(question)
        found: list[Candidate] = []
        for token in _TOKEN.finditer(original):
            word = token.group()
            if owner := self.ticker_owner(word):
                found.append(
                    Candidate(owner, token.start(), token.end(), EXACT_SCORE, via=1, how="ticker")
                )
            elif owner := self._codes.get(word):
                found.append(
                    Candidate(owner, token.start(), token.end(), CODE_SCORE, via=1, how="code")
                )
        return found

    def _fuzzy_in(self, question: str, covered: list[tuple[int, int]]) -> list[Candidate]:
        folded = text.fold(question)
        taken = DisjointSpans(covered)
        words = [w for w in _WORD.finditer(folded) if taken.free(w.start(), w.end())]
        found: list[Candidate] = []
        for i, first_word in enumerate(words):
            said = first_word.group()
            if said in self._rules.common_words or text.is_common_word(said):
                continue  # "being" is no misspelt Boeing, "micro" no start of Micron
            for j in range(i, min(i + _MAX_FUZZY_WORDS, len(words))):
                if j > i and not _adjacent(folded, words[j - 1], words[j]):
                    break
                last = words[j].group()
                if j > i and last in _CHOICE_WORDS:
                    break  # "jpm or bac" is two names offered, never a misspelt "jpmorgan"
                if j > i and len(last) <= 3 and text.is_common_word(last):
                    # "dividend of" is no misspelt "dividend ETF": a name ends on a word of its
                    # own, never on "of", "in", "and" or "the"
                    continue
                start, end = first_word.start(), words[j].end()
                query = text.key(folded[start:end])
                if len(query) < _MIN_PREFIX_LEN or query in self._names:
                    continue
                if j == i:
                    starts = self._starting_with(query)
                    if starts:  # the start of a name, never a misspelling of another one
                        owners = {owner for owner, _ in starts}
                        if len(owners) == 1 and any(long for _, long in starts):
                            found.append(
                                Candidate(owners.pop(), start, end, PREFIX_SCORE, how="prefix")
                            )
                        continue
                if len(query) < _MIN_FUZZY_LEN:
                    continue
                limit = 1 if len(query) < 8 else 2
                best = process.extractOne(
                    query,
                    self._fuzzy.get(query[0], []),
                    scorer=DamerauLevenshtein.distance,
                    score_cutoff=limit,
                )
                if best is None:
                    continue
                choice, distance, _ = best
                if distance == 0 or choice.startswith(query) or query.startswith(choice):
                    continue
                score = FUZZY_SCORE - 5 * (distance - 1)
                found.append(Candidate(self._names[choice], start, end, score, how="spelling"))
        return found

    def _starting_with(self, query: str) -> list[tuple[str, bool]]:
        """Owners of the one-word names `query` starts, each with whether it is a long enough
        start to name it ("Micros" of Microsoft; "micro" starts Micron and Microsoft alike)."""
        first = bisect.bisect_left(self._one_word, query)
        found: list[tuple[str, bool]] = []
        for key in self._one_word[first:]:
            if not key.startswith(query):
                break
            if key != query:
                found.append((self._names[key], len(query) >= _MIN_PREFIX_SHARE * len(key)))
        return found


def _and_variants(aliases: list[str]) -> list[str]:
    return [a.replace("&", " and ") for a in aliases if "&" in a]


def _bounded_start(original: str, first: int) -> bool:
    """A Latin name must not continue a word on its left (Chinese names need no boundary)."""
    return not (
        text.is_word_char(original[first]) and first > 0 and text.is_word_char(original[first - 1])
    )


def _bounded_end(original: str, last: int) -> bool:
    """A Latin name must not run into letters or digits on its right."""
    return not (
        text.is_word_char(original[last - 1])
        and last < len(original)
        and text.is_word_char(original[last])
    )


def _pluralizable(name: str) -> bool:
    words = name.split()
    return len(words) >= 2 and name.isascii() and name[-1].isalpha()


def _plural_at(original: str, last: int) -> bool:
    """An English plural "s" right after a name, then the end of the word."""
    return original[last : last + 1] in ("s", "S") and _bounded_end(original, last + 1)


def _adjacent(folded: str, left: re.Match[str], right: re.Match[str]) -> bool:
    gap = folded[left.end() : right.start()]
    return len(gap) <= 3 and all(c in " -&" for c in gap)


def _select(candidates: list[Candidate]) -> list[Candidate]:
    """Greedy: longest span, then best score, then names over tickers, then earliest."""
    chosen: list[Candidate] = []
    taken = DisjointSpans()
    for candidate in sorted(candidates, key=lambda c: (-c.length, -c.score, c.via, c.start)):
        if taken.free(candidate.start, candidate.end):
            taken.add(candidate.start, candidate.end)
            chosen.append(candidate)
    return chosen
