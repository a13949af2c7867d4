"""A period's first trading day said as such ("the close of the first trading day of 2020",
2020年第一个交易日, "the first session of March 2020"): the first weekday of the period that is
no market holiday, so that a return "bought at that close" starts from it — the period's
first calendar day is often a holiday (New Year's Day), whose close-on-or-before is the
previous year's last.

Holidays are the US federal ones (pandas' calendar): the exchange closes on each that can
open a month (New Year's Day, Independence Day, Labor Day)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.brains.offline.windows import Atom

_FIRST_SESSION = re.compile(
    r"(?i)\bfirst\s+(?:trading\s+day|trading\s+session|session|business\s+day|market\s+day)"
    r"|第一个交易日|首个交易日|第一个交易时段|首日交易"
)


def first_sessions(text: str, atoms: list[Atom]) -> list[Atom]:
    """One-day atoms said as a period's first trading day, moved to that day."""
    out = []
    for atom in atoms:
        said = text[atom.span[0] : atom.span[1]]
        if (
            atom.kind == "period"
            and atom.first is not None
            and atom.first == atom.last
            and _FIRST_SESSION.search(said)
        ):
            day = first_session_from(atom.first)
            atom = replace(atom, first=day, last=day)
        out.append(atom)
    return out


def first_session_from(day: date) -> date:
    """The first weekday on or after `day` that is no US federal holiday."""
    while day.weekday() >= 5 or day in _holidays(day.year):
        day += timedelta(days=1)
    return day


@lru_cache(maxsize=64)
def _holidays(year: int) -> frozenset[date]:
    from pandas.tseries.holiday import USFederalHolidayCalendar

    found = USFederalHolidayCalendar().holidays(date(year, 1, 1), date(year, 12, 31))
    return frozenset(d.date() for d in found)
