"""A value some months after an extreme, asked beside it: "when in 2008 was the spread widest,
and how far had it tightened six months after that peak month?", 1982年利差最大是在哪个月？三个月后
收窄了多少？ The extreme is sought in the window the question names; its value that many months
later (and the change to it) is read from the data after it, never as a forecast."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from datapilot.brains.offline.family_asks import Span
from datapilot.brains.offline.numbers import read_number

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from collections.abc import Mapping

    from datapilot.brains.offline.reading import Reading
    from datapilot.brains.offline.windows import Clause

_MONTHS = {"month": 1, "quarter": 3, "year": 12, "月": 1, "季度": 3, "季": 3, "年": 12}
_AFTER_EN = re.compile(
    r"(?i)\b(?P<n>\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"eighteen|twenty-four)\s+(?P<unit>month|quarter|year)s?\s+(?:after|later|on)\b"
    r"(?:\s+(?:that|the|its|this)(?:\s+(?:peak|high|low|trough|top|bottom|widest|tightest|"
    r"highest|lowest|point|reading|level|month|quarter|year))+)?"
    r"(?:\s*\([^)]{1,30}\))?"
)
_AFTER_ZH = re.compile(
    r"(?P<n>[一二两三四五六七八九十\d]{1,3})个?(?P<unit>月|季度|季|年)(?:之后|以后|后)"
    r"(?:\s*[（(][^）)]{1,20}[）)])?"
)


@dataclass(frozen=True)
class AfterAsk:
    """How many months after the extreme, and the words saying it."""

    months: int
    span: Span


def read_after_extreme(text: str, numbers: Mapping[str, int]) -> AfterAsk | None:
    """The months after an extreme the question asks about, or None (`numbers`: the
    vocabulary's number words)."""
    found = _AFTER_EN.search(text) or _AFTER_ZH.search(text)
    if found is None:
        return None
    count = read_number(found.group("n"), numbers)
    if not count:
        return None
    months = int(count) * _MONTHS[found.group("unit").lower()]
    return AfterAsk(months, found.span())


def as_after_extreme(reading: Reading, ask: AfterAsk, clauses: list[Clause]) -> bool:
    """Read the extreme's value `ask.months` months later beside it: the extreme is sought in
    the window the other dates name (a date said inside the ask, "(Dec 2016)", is where the
    later value falls, not the window); the plan reads the data that many months past it
    (`planning.base.PlannerBase.levels`), up to today: an extreme too late for its later value
    is said so by `period_extremes`. False when the window is not in the past."""
    start, end = reading.start, reading.end
    named = [
        c
        for c in clauses
        if c.start is not None
        and c.end is not None
        and not (ask.span[0] <= c.span[0] and c.span[1] <= ask.span[1])
    ]
    if named:
        start = min(c.start for c in named if c.start is not None)
        end = max(c.end for c in named if c.end is not None)
    if start is None or end is None or end > reading.today:
        return False
    reading.start, reading.end = start, end
    reading.after_months = ask.months
    reading.family_spans.append((*ask.span, f"the value {ask.months} months after the extreme"))
    reading.trace.append(
        f"极值（{start}至{end}）及其{ask.months}个月后的数值与变化"
        if reading.zh
        else f"the extreme over {start}..{end}, and its value {ask.months} months later with "
        "the change"
    )
    return True
