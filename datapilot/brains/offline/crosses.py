"""Moving-average crosses: "when did the 50-day cross above the 200-day", "golden cross",
"death cross", 金叉, 50日均线上穿200日均线 — the sessions the fast average crossed the slow one
(`ma_crosses`). A rule of grammar in both languages; the words it used are recorded on the
reading (`family_spans`) so the ledger counts them as read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from datapilot.brains.offline.reading import Reading

_AVERAGE = (
    r"(?:[-\s]?(?:day|d|session)s?)?(?:\s+(?:simple\s+)?(?:moving\s+average|MA|SMA|average))?"
)
_CROSS_EN = re.compile(
    rf"(?i)\b(?P<fast>\d{{1,3}}){_AVERAGE}\s+(?:line\s+)?(?:cross(?:es|ed|ing)?|moved?|br[oe]ke)\s+"
    rf"(?P<side>above|over|below|under)\s+(?:(?:its|the)\s+)?(?P<slow>\d{{1,3}}){_AVERAGE}"
)
_NAMED = re.compile(r"(?i)\b(?P<en>golden|death)\s+cross(?:es|over)?\b|(?P<zh>金叉|死叉)")
_CROSS_ZH = re.compile(
    r"(?P<fast>\d{1,3})日(?:均线|移动平均线?|MA)(?P<side>上穿|向上穿过|向上突破|突破|下穿|向下穿过|跌破)"
    r"(?P<slow>\d{1,3})日(?:均线|移动平均线?|MA)?"
)


@dataclass(frozen=True)
class CrossAsk:
    """The `fast`-session average crossing the `slow` one, `direction` above or below."""

    fast: int
    slow: int
    direction: str
    spans: tuple[tuple[int, int], ...]


def read_cross_ask(text: str) -> CrossAsk | None:
    """The moving-average cross a question asks about, or None."""
    said = _CROSS_EN.search(text) or _CROSS_ZH.search(text)
    named = _NAMED.search(text)
    if said is None and named is None:
        return None
    spans = [m.span() for m in (said, named) if m is not None]
    if said is not None:
        below = re.match(r"(?i)below|under|下穿|向下|跌破", said.group("side"))
        fast, slow = int(said.group("fast")), int(said.group("slow"))
        return CrossAsk(fast, slow, "below" if below else "above", tuple(spans))
    assert named is not None
    death = (named.group("en") or "").lower() == "death" or named.group("zh") == "死叉"
    return CrossAsk(50, 200, "below" if death else "above", tuple(spans))


def as_cross(reading: Reading, cross: CrossAsk, replaced: set[str]) -> None:
    """Read the question as the dates of a moving-average cross."""
    reading.metrics = ["ma_cross", *(m for m in reading.metrics if m not in replaced)]
    reading.ma_windows = [cross.fast, cross.slow]
    reading.count_condition = cross.direction
    reading.family_spans += [(s, e, f"{cross.fast}/{cross.slow} cross") for s, e in cross.spans]
    reading.rank = False
    up = cross.direction == "above"
    reading.trace.append(
        f"{cross.fast}日均线{'上穿' if up else '下穿'}{cross.slow}日均线的日期（简单移动平均）"
        if reading.zh
        else f"the dates the {cross.fast}-day simple moving average crossed {cross.direction} "
        f"the {cross.slow}-day"
    )
