"""The scale a figure is asked in: "in millions of shares", （百万股）, 万股, "in thousands", and
basis points ("the spread in bps", 变动了多少个基点), a hundredth of a percentage point.

A volume or an amount said in the unit the user asked ("4.08 million shares") is what they read;
the reader records the scale and the words, and the summary restates the headline figure in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EN = re.compile(
    r"(?i)\bin\s+(?P<word>thousands|millions|billions|mn|bn)\b(?:\s+of\s+(?P<unit>shares|"
    r"dollars|usd|barrels))?"
)
# Never an amount said with its number ("10万美元"): only a unit asked for, often in brackets.
_ZH = re.compile(
    r"(?<![\d一二三四五六七八九十两几百千.])(?:单位[:：]?\s*)?(?P<word>千|万|百万|千万|亿)"
    r"(?P<unit>股|美元|元)"
)
# Basis points: "bps" and "bp" only in lower case (BP is a ticker).
_BASIS_POINTS = re.compile(r"(?i:\bbasis[-\s]points?\b)|\bbps?\b|基点")
# The scale word of basis points: a percent figure divided by it is in basis points.
BASIS_POINTS = "basis points"
_EN_FACTOR = {"thousands": 1e3, "millions": 1e6, "mn": 1e6}
_EN_FACTOR |= {"billions": 1e9, "bn": 1e9}
_ZH_FACTOR = {"千": 1e3, "万": 1e4, "百万": 1e6, "千万": 1e7, "亿": 1e8}
_EN_WORD = {1e3: "thousand", 1e6: "million", 1e9: "billion"}


@dataclass(frozen=True)
class Scale:
    """Divide by `factor` and say `word` (million, 万) before the unit."""

    factor: float
    word: str
    span: tuple[int, int]


def read_scale(text: str) -> Scale | None:
    """The scale `text` asks a figure in, or None."""
    found = _BASIS_POINTS.search(text)
    if found is not None:
        return Scale(0.01, BASIS_POINTS, found.span())
    found = _EN.search(text)
    if found is not None:
        factor = _EN_FACTOR[found["word"].casefold()]
        return Scale(factor, _EN_WORD[factor], found.span())
    found = _ZH.search(text)
    if found is not None:
        return Scale(_ZH_FACTOR[found["word"]], found["word"], found.span())
    return None
