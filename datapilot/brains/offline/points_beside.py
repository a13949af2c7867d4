"""Values asked at named periods beside the extreme of another, longer span.

"Core CPI y/y in December 2005 and in December 2009, and which month of 2006-2008 was highest":
each named period is a part with its value, the span a part with its extreme (and whatever else
is asked of the span), never one window spanning them all with the extreme of the whole. A
named month inside the span ("in June 2016, and in which months of 2016 was it widest"), which
the time reader sets aside beside its year, is taken up again; "that year" (那一年) of the months
named is the span when no other is said.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from datapilot.brains.offline.parsing import Parsed
from datapilot.brains.offline.parts import part_of, split_into
from datapilot.brains.offline.windows import Clause

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading


# The longest a named period can be and still be one value of a monthly or quarterly series.
_ONE_PERIOD_DAYS = 92


def points_and_a_span(clauses: list[Clause], text: str) -> bool:
    """Whether the dated windows are named periods (a month, a quarter) and one longer span,
    said or taken up as "that year" of the periods (那一年)."""
    return _points_and_span(clauses, text) is not None


def _points_and_span(clauses: list[Clause], text: str) -> tuple[list[Clause], Clause] | None:
    """The named periods, in order, and the one longer span beside them: said, or "that year"
    of periods all in one year (a span made from the words 那一年 say); None otherwise."""
    firsts: dict[tuple[date, date], Clause] = {}
    for clause in clauses:
        if clause.start is not None and clause.end is not None:
            firsts.setdefault(_window(clause), clause)
    points = sorted((c for c in firsts.values() if _days(c) <= _ONE_PERIOD_DAYS), key=_window)
    spans = [c for c in firsts.values() if _days(c) > _ONE_PERIOD_DAYS]
    years = {_window(c)[0].year for c in points}
    said = _THAT_YEAR.search(text)
    if not spans and len(points) >= 2 and len(years) == 1 and said is not None:
        # "2001年1月和12月…各是多少？那一年利差最窄的是哪个月": the year of the months named
        (year,) = years
        whole = {"start": date(year, 1, 1), "end": date(year, 12, 31)}
        spans = [points[0].model_copy(update={"text": said.group(0), "span": said.span(), **whole})]
    if len(spans) != 1 or not points:
        return None
    return points, spans[0]


def _window(clause: Clause) -> tuple[date, date]:
    assert clause.start is not None and clause.end is not None  # (only dated clauses come here)
    return clause.start, clause.end


def _days(clause: Clause) -> int:
    start, end = _window(clause)
    return (end - start).days


def points_beside_a_span(parsed: Parsed) -> bool:
    """Whether the question's windows are named periods and one longer span (each of which
    `read_points_beside_extreme` makes a part of its own beside a dated extreme)."""
    return points_and_a_span([*dated_windows(parsed), *parsed.time.set_aside], parsed.text)


def dated_windows(parsed: Parsed) -> list[Clause]:
    """The question's time phrases that date a window a part can be measured over (a horizon
    ahead and a first day said alone date none)."""
    return [
        c
        for c in parsed.time.clauses
        if c.start is not None and c.end is not None and c.rule not in _NO_PART
    ]


def read_points_beside_extreme(reading: Reading, parsed: Parsed) -> None:
    """Values asked at named periods beside the extreme of another, longer span ("what was it in
    December 2005 and in December 2009? And over 2006 through 2008, which month was highest"):
    each named period a part with its value, the span a part with its extreme, never one window
    spanning them all with the extreme of the whole (a named period inside the span too: "in June
    2016, and in which months of 2016 was it widest")."""
    if reading.parts or "period_extremes" not in reading.metrics or reading.extreme_of == "returns":
        return
    # (a named month the year around it set aside as unread is taken up again as a part)
    found = _points_and_span([*dated_windows(parsed), *parsed.time.set_aside], parsed.text)
    if found is None:
        return
    points, span = found
    for clause in parsed.time.set_aside:
        # read now: the ledger holds its words as this part's window, not as one left unread
        parsed.time.nested = [
            n for n in parsed.time.nested if not (clause.span[0] <= n[0] and n[1] <= clause.span[1])
        ]
        parsed.time.spans.append(clause.span)
    parsed.time.set_aside = []
    values = [m for m in reading.metrics if m in _VALUES_AT_A_PERIOD] or ["value"]
    parts = [part_of(p, values, [], reading.zh) for p in points]
    # The span keeps every other ask of it (a count of its quarters above 10% too), its
    # measure planned before the extreme taken of it.
    rest = [m for m in reading.metrics if m not in values]
    split_into(reading, [*parts, part_of(span, [*values, *rest], [], reading.zh)])


# What a named period's own value is read as: the series' value, or the change asked of it.
_VALUES_AT_A_PERIOD = ("yoy", "qoq", "mom", "pop", "spread", "ratio", "value", "close")


_NO_PART = ("horizon", "first")
# The year of the periods just named, taken up again: 那一年, 当年, "that year".
_THAT_YEAR = re.compile(r"那一?年|这一?年|当年|(?i:\bthat (?:same )?year\b|\bthe same year\b)")
