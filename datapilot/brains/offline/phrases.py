"""Find vocabulary phrases in a question: leftmost-longest, non-overlapping, both languages.

English phrases match case-insensitively and only on word boundaries (so `ma` never matches
inside `max`); Chinese phrases match as written. Spans already claimed by an earlier reader
(time phrases, entity names) are masked out first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Span = tuple[int, int]

MASK = "\x00"


@dataclass(frozen=True)
class Hit:
    """One phrase found in the text, with every label it carries (e.g. `metric:close`)."""

    labels: tuple[str, ...]
    start: int
    end: int
    text: str

    def has(self, label: str) -> bool:
        return label in self.labels

    def group(self, prefix: str) -> list[str]:
        """The labels under `prefix:`, without the prefix."""
        head = prefix + ":"
        return [label[len(head) :] for label in self.labels if label.startswith(head)]


_WORD_BREAK = re.compile(r"\s+|(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])")


def phrase_key(text: str) -> str:
    """A phrase as a lookup key: lower case, words one space apart, a hyphen between two words
    a space, as `phrase_pattern` matches them ("COVID-crash" finds "covid crash")."""
    return " ".join(_WORD_BREAK.split(text.strip().lower()))


def _bounds(ignorecase: bool) -> tuple[str, str, str]:
    """The space, before and after patterns of a phrase. The classes hold both cases already:
    under IGNORECASE, `(?-i:…)` spares expanding each of them with its case variants when
    compiling (most of the time grammar's start-up cost). Without IGNORECASE the scoped groups
    only slow compiling down."""
    space, before, after = r"[\s-]+", r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
    if ignorecase:
        space, before, after = (f"(?-i:{p})" for p in (space, before, after))
    return space, before, after


def _bounded(phrase: str) -> tuple[bool, bool]:
    """Whether the phrase needs a word boundary before and after (an ASCII letter/digit end)."""
    first, last = phrase[:1], phrase[-1:]
    return first.isascii() and first.isalnum(), last.isascii() and last.isalnum()


def phrase_pattern(phrase: str, ignorecase: bool = True, bounds: bool = True) -> str:
    """A regex for one phrase: flexible whitespace, word boundaries on ASCII letter/digit ends.
    A hyphen between two words and a space are the same ("peak-to-trough", "peak to trough").
    `ignorecase`: the pattern will be compiled with IGNORECASE; `bounds=False`: without the
    word boundaries (the caller adds them)."""
    space, before, after = _bounds(ignorecase)
    body = space.join(re.escape(word) for word in _WORD_BREAK.split(phrase.strip()))
    starts, ends = _bounded(phrase) if bounds else (False, False)
    return (before if starts else "") + body + (after if ends else "")


def alternation(phrases: Iterable[str], ignorecase: bool = True) -> str:
    """A non-capturing alternation of phrases, longest first so the longest wins at a position
    (`ignorecase`: as for `phrase_pattern`).

    When every phrase has a word boundary at its start (or end), that boundary is written once
    around the alternation instead of in each branch: a zero-width assertion shared by every
    branch matches the same text (`(?:LA|LB)` is `L(?:A|B)`, `(?:AL|BL)` is `(?:A|B)L` for the
    regex's ordered, backtracking choice), and the pattern compiles in about half the time."""
    unique = sorted({p.strip() for p in phrases if p.strip()}, key=lambda p: (-len(p), p))
    if not unique:
        return r"(?!x)x"
    _, before, after = _bounds(ignorecase)
    ends = [_bounded(p) for p in unique]
    shared_start, shared_end = all(s for s, _ in ends), all(e for _, e in ends)
    branches = []
    for phrase, (starts, finishes) in zip(unique, ends, strict=True):
        body = phrase_pattern(phrase, ignorecase, bounds=False)
        body = (before if starts and not shared_start else "") + body
        branches.append(body + (after if finishes and not shared_end else ""))
    head, tail = (before if shared_start else ""), (after if shared_end else "")
    return head + "(?:" + "|".join(branches) + ")" + tail


def mask(text: str, spans: Iterable[Span]) -> str:
    """`text` with the given spans blanked out (indices preserved)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = MASK * (end - start)
    return "".join(chars)


def overlaps(span: Span, spans: Iterable[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


def within(span: Span, spans: Iterable[Span]) -> bool:
    """Whether `span` lies wholly inside one of `spans`."""
    return any(start <= span[0] and span[1] <= end for start, end in spans)


class PhraseMatcher:
    """Labelled phrases found by literal comparison, keyed by their first character.

    It finds what one alternation regex of every phrase (`alternation(..., ignorecase=False)`
    over lower-cased text) finds, hit for hit — same leftmost-longest order, same word
    boundaries, same flexible spaces and hyphens — without compiling that ~1,000-phrase pattern,
    which cost ~0.1-0.2 s of every process start (Python cannot keep a compiled pattern across
    processes). A question is short, so trying the few phrases that start with each character
    is cheaper than compiling them all."""

    def __init__(self, labelled: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._labels: dict[str, list[str]] = {}
        for label, phrases in labelled:
            for phrase in phrases:
                key = _key(phrase)
                if key and label not in self._labels.setdefault(key, []):
                    self._labels[key].append(label)
        # The alternation's order: the longest phrase first, so it wins at a position. Phrases
        # are indexed by the first two characters of their first word (by its only character
        # when it has one), so a position tries only the few phrases that can start there.
        self._by_two: dict[str, list[tuple[int, _Literal]]] = {}
        self._by_one: dict[str, list[tuple[int, _Literal]]] = {}
        ordered = sorted(self._labels, key=lambda p: (-len(p), p))
        for order, key in enumerate(ordered):
            literal = _Literal.of(key)
            first = literal.words[0]
            index = self._by_two if len(first) >= 2 else self._by_one
            index.setdefault(first[:2], []).append((order, literal))

    def __contains__(self, phrase: str) -> bool:
        return _key(phrase) in self._labels

    def labels_of(self, phrase: str) -> list[str]:
        return list(self._labels.get(_key(phrase), []))

    def find(self, text: str, blocked: Iterable[Span] = ()) -> list[Hit]:
        """Every phrase in `text` outside `blocked`, left to right."""
        searched = mask(text, blocked)
        lowered = lower_in_place(searched)
        hits = []
        start = 0
        while start < len(lowered):
            end = None
            for literal in self._candidates(lowered, start):
                end = literal.match(lowered, start)
                if end is not None:
                    break
            if end is None:
                start += 1
                continue
            labels = self._labels.get(_key(lowered[start:end]))
            if labels:
                hits.append(Hit(tuple(labels), start, end, searched[start:end]))
            start = end
        return hits

    def _candidates(self, text: str, start: int) -> list[_Literal]:
        """The phrases that may start at `start`, in the alternation's order."""
        two = self._by_two.get(text[start : start + 2], [])
        one = self._by_one.get(text[start], [])
        if not one or not two:
            return [literal for _, literal in two or one]
        return [literal for _, literal in sorted(two + one, key=lambda pair: pair[0])]


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _is_word_char(char: str) -> bool:
    """`[A-Za-z0-9]`: what a phrase's word boundary looks at."""
    return char.isascii() and char.isalnum()


@dataclass(frozen=True)
class _Literal:
    """One phrase as `phrase_pattern` reads it: its words, separated in the text by one or
    more spaces or hyphens (`[\\s-]+`), with a word boundary at an ASCII letter/digit end."""

    words: tuple[str, ...]
    bounded_before: bool
    bounded_after: bool

    @classmethod
    def of(cls, phrase: str) -> _Literal:
        words = tuple(_WORD_BREAK.split(phrase.strip()))
        return cls(words, _is_word_char(phrase[:1]), _is_word_char(phrase[-1:]))

    def match(self, text: str, start: int) -> int | None:
        """Where the phrase ends if it starts at `start`, else None."""
        if self.bounded_before and start > 0 and text[start - 1] in _WORD_CHARS:
            return None
        return self._rest(text, start, 0)

    def _rest(self, text: str, at: int, index: int) -> int | None:
        word = self.words[index]
        if not text.startswith(word, at):
            return None
        at += len(word)
        if index == len(self.words) - 1:
            if self.bounded_after and at < len(text) and text[at] in _WORD_CHARS:
                return None
            return at
        gap_end = at
        while gap_end < len(text) and (text[gap_end].isspace() or text[gap_end] == "-"):
            gap_end += 1
        # Greedy, giving back one character at a time, as the regex's `[\s-]+` does.
        for next_at in range(gap_end, at, -1):
            end = self._rest(text, next_at, index + 1)
            if end is not None:
                return end
        return None


def lower_in_place(text: str) -> str:
    """`text` in lower case, one character per character (so match positions hold)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _key(phrase: str) -> str:
    """The phrase's identity: lower case, with spaces and hyphens between words as one space."""
    return " ".join(w for w in _WORD_BREAK.split(phrase.lower().strip()) if w)
