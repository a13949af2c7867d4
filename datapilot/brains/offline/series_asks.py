"""Extremes of a rolling series said before its measure: "the lowest 20-day rolling
correlation", "the highest 60-day volatility" — the measure's own rolling series is ranked, not
the closes nor the window's one figure."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.family_asks import WhenAsk

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from datapilot.brains.offline.reading import Reading

# The measures with a rolling series, as the reading names them.
_ROLLING = ("volatility", "correlation")

_BEFORE = re.compile(
    r"(?i)\b(?P<side>peak|highest|maximum|max|lowest|minimum|min)\s+"
    r"(?:\d+\s*-?\s*(?:day|session|trading[- ]day|week|month)s?\s+)?(?:rolling\s+)?"
    r"(?:volatility|vol|correlation|corr)\b"
)


def rolling_measure(reading: Reading) -> str | None:
    """The rolling measure the reading asks for ("20-day rolling correlation"), if one: a
    correlation needs two or more entities and the word "rolling" or a window length."""
    if not (reading.rolling or reading.window):
        return None
    for measure in _ROLLING:
        if measure in reading.metrics:
            if measure == "correlation" and len(reading.entities) < 2:
                continue
            return measure
    return None


def read_rolling_extreme(text: str) -> WhenAsk | None:
    """ "The lowest 20-day rolling correlation": the highest or lowest value of that series."""
    found = _BEFORE.search(text)
    if found is None:
        return None
    low = found.group("side").lower() in ("lowest", "minimum", "min")
    return WhenAsk("worst" if low else "best", "daily", (found.span(),))
