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

_MASK = "\x00"


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


def phrase_pattern(phrase: str, ignorecase: bool = True) -> str:
    """A regex for one phrase: flexible whitespace, word boundaries on ASCII letter/digit ends.
    A hyphen between two words and a space are the same ("peak-to-trough", "peak to trough").
    `ignorecase`: the pattern will be compiled with IGNORECASE."""
    words = [re.escape(word) for word in _WORD_BREAK.split(phrase.strip())]
    # The classes hold both cases already: under IGNORECASE, `(?-i:…)` spares expanding each of
    # them with its case variants when compiling (most of the time grammar's start-up cost).
    # Without IGNORECASE the scoped groups only slow compiling down.
    space, before, after = r"[\s-]+", r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
    if ignorecase:
        space, before, after = (f"(?-i:{p})" for p in (space, before, after))
    body = space.join(words)
    if phrase[:1].isascii() and phrase[:1].isalnum():
        body = before + body
    if phrase[-1:].isascii() and phrase[-1:].isalnum():
        body += after
    return body


def alternation(phrases: Iterable[str], ignorecase: bool = True) -> str:
    """A non-capturing alternation of phrases, longest first so the longest wins at a position
    (`ignorecase`: as for `phrase_pattern`)."""
    unique = sorted({p.strip() for p in phrases if p.strip()}, key=lambda p: (-len(p), p))
    if not unique:
        return r"(?!x)x"
    return "(?:" + "|".join(phrase_pattern(p, ignorecase) for p in unique) + ")"


def mask(text: str, spans: Iterable[Span]) -> str:
    """`text` with the given spans blanked out (indices preserved)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = _MASK * (end - start)
    return "".join(chars)


def overlaps(span: Span, spans: Iterable[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


class PhraseMatcher:
    """Labelled phrases compiled into one case-insensitive regex."""

    def __init__(self, labelled: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._labels: dict[str, list[str]] = {}
        for label, phrases in labelled:
            for phrase in phrases:
                key = _key(phrase)
                if key and label not in self._labels.setdefault(key, []):
                    self._labels[key].append(label)
        # The keys are lower case already: matching them against lower-cased text needs no
        # IGNORECASE, which makes compiling this ~1,000-phrase pattern 2-3 times slower (every
        # character class is expanded with its case variants) on every process start.
        self._regex = re.compile(alternation(self._labels, ignorecase=False))

    def __contains__(self, phrase: str) -> bool:
        return _key(phrase) in self._labels

    def labels_of(self, phrase: str) -> list[str]:
        return list(self._labels.get(_key(phrase), []))

    def find(self, text: str, blocked: Iterable[Span] = ()) -> list[Hit]:
        """Every phrase in `text` outside `blocked`, left to right."""
        searched = mask(text, blocked)
        hits = []
        for match in self._regex.finditer(lower_in_place(searched)):
            labels = self._labels.get(_key(match.group(0)))
            if labels:
                said = searched[match.start() : match.end()]
                hits.append(Hit(tuple(labels), match.start(), match.end(), said))
        return hits


def lower_in_place(text: str) -> str:
    """`text` in lower case, one character per character (so match positions hold)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _key(phrase: str) -> str:
    """The phrase's identity: lower case, with spaces and hyphens between words as one space."""
    return " ".join(w for w in _WORD_BREAK.split(phrase.lower().strip()) if w)
