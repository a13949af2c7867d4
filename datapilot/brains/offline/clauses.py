"""Clauses of a question: the spans between punctuation or a spaced dash, which the readers of
advice and of claims use to tell what a question tells from what it asks."""

from __future__ import annotations

import re
from itertools import pairwise

Span = tuple[int, int]

# A clause ends at punctuation or a spaced dash; a comma ends one only in Chinese (the text may
# arrive with its full-width commas made ASCII).
CLAUSE_END = re.compile(r"\s[-–—]\s|[.;:?!，。；：？！]|(?<=[\u3400-\u9fff]),")
# Within a clause, commas and 、 part its phrases too ("推荐三只明年会涨的美股，标普500成分股里挑").
PHRASE_END = re.compile(r"\s[-–—]\s|[,.;:?!，、。；：？！]")


def clauses(text: str, ends: re.Pattern[str] = CLAUSE_END) -> list[Span]:
    """The clauses of `text`, in order."""
    cuts = [0, *(m.end() for m in ends.finditer(text)), len(text)]
    return [(a, b) for a, b in pairwise(cuts) if b > a]


def clause_around(text: str, start: int, end: int, ends: re.Pattern[str] = CLAUSE_END) -> Span:
    """The clause holding the words `text[start:end]`: from the last end before them to the
    first after them."""
    cuts = [m.end() for m in ends.finditer(text, 0, start)]
    after = ends.search(text, end)
    return (cuts[-1] if cuts else 0, after.start() if after else len(text))
