"""A period's first trading day said as such ("the close of the first trading day of 2020",
2020年第一个交易日, "the first session of March 2020"): the first weekday of the period that is
no market holiday, so that a return "bought at that close" starts from it — the period's
first calendar day is often a holiday (New Year's Day), whose close-on-or-before is the
previous year's last. Holidays are the US federal ones (pandas' calendar): the exchange closes
on each that can open a month (New Year's Day, Independence Day, Labor Day).

A year's first N sessions ("the first 100 trading days of 2020", 2020年前100个交易日) are
counted on the New York Stock Exchange's calendar (Good Friday is no federal holiday) and
written as the days they run between."""

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


_FIRST_N_EN = re.compile(
    r"(?i)\b(?:the\s+)?first\s+(?P<n>\d{1,3})\s+(?:trading\s+(?:days|sessions)|sessions|"
    r"market\s+days)\s+(?:of|in)\s+(?P<y>(?:19|20)\d{2})\b"
)
_FIRST_N_ZH = re.compile(r"(?P<y>(?:19|20)\d{2})\s*年\s*(?:的)?\s*前\s*(?P<n>\d{1,3})\s*个?交易日")


def name_first_sessions(text: str) -> str:
    """A year's first N sessions written as the two days they run between: "the first 100
    trading days of 2020" → "from 2020-01-01 to 2020-05-26", 2020年前100个交易日 →
    2020-01-01至2020-05-26 (a calendar window, from the close before it)."""

    def days(found: re.Match[str], zh: bool) -> str:
        year, count = int(found["y"]), int(found["n"])
        last = _nth_session(year, count)
        if last is None:
            return found[0]
        return f"{year}-01-01至{last}" if zh else f"from {year}-01-01 to {last}"

    text = _FIRST_N_EN.sub(lambda found: days(found, zh=False), text)
    return _FIRST_N_ZH.sub(lambda found: days(found, zh=True), text)


def _nth_session(year: int, count: int) -> str | None:
    """The day of a year's `count`-th NYSE session, None past the year's last."""
    from datapilot.interfaces.frame import sessions_of

    sessions = sessions_of("XNYS", year, year)
    if sessions is None or not 1 <= count <= len(sessions):
        return None
    return sessions[count - 1].date().isoformat()


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
