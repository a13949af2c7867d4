"""A period named by the one said before it: "coca cola's volatility last year? and the year before
that?", "Q3 2020 … the quarter before", 2020年的收益率，再往前一年呢 — the calendar year (quarter,
month) just before the window the question named last, not one counted back from today.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the time grammar imports this module
    from datapilot.brains.offline.windows import Atom

# Closed by punctuation, "and" or the end, so "the year before the election" (a length anchored on
# something else) is not read here.
_EN = re.compile(
    r"(?i)\b(?:the|a|one)\s+(?P<unit>year|quarter|month)\s+(?:before|prior|earlier)"
    r"(?:\s+(?:that|it|then|that\s+one))?(?=\s*(?:[?.!,;:)]|$|and\b))"
    # "in 2019 and the previous year": 2018 — alone, "the previous year" is last year
    r"|\bthe\s+(?:previous|prior|preceding)\s+(?P<unit2>year|quarter|month)\b"
)
_ZH = re.compile(r"(?:再往前|再前|其前|那之前的?|在那之前的?|此前的?)一(?:个)?(?P<unit>年|季度|月)")
_UNITS = {"year": 12, "quarter": 3, "month": 1, "年": 12, "季度": 3, "月": 1}


def before_that(text: str, atoms: list[Atom]) -> list[Atom]:
    """`atoms` with a period for each "the year before that" that follows a calendar period."""
    out = list(atoms)
    for found in [*_EN.finditer(text), *_ZH.finditer(text)]:
        start, end = found.span()
        inside = [a for a in out if a.span[0] < end and start < a.span[1]]
        if any(not _counted_back(a) or a.span[0] < start or end < a.span[1] for a in inside):
            continue  # another reading has these words ("the year before last")
        earlier = [a for a in out if a.span[1] <= start and a.kind == "period"]
        if not earlier or earlier[-1].dated is not None:
            continue
        unit = found.groupdict().get("unit2") or found.group("unit")
        window = _before(earlier[-1], _UNITS[unit.lower()])
        if window is not None:
            atom = replace(earlier[-1], span=(start, end), rule="before_that", used=False)
            atom.first, atom.last = window
            # "the year" of it is no length of its own
            out = [a for a in out if a not in inside] + [atom]
    return sorted(out, key=lambda a: a.span[0])


def _counted_back(atom: Atom) -> bool:
    """A reading the words have only when no period was named before them: "the year" as a
    length, "the previous year" as last year, "the prior quarter" as the last three months."""
    return atom.kind in ("duration", "rolling") or atom.rule.startswith("word_last")


def _before(atom: Atom, months: int) -> tuple[date, date] | None:
    """The whole calendar unit of `months` months before the one `atom` starts, when `atom`
    starts on such a unit's first day and ends within it (2021 year to date: all of 2020)."""
    first, last = atom.first, atom.last
    if first is None or last is None or first.day != 1 or (first.month - 1) % months:
        return None
    if (last.year, (last.month - 1) // months) != (first.year, (first.month - 1) // months):
        return None
    index = first.year * 12 + first.month - 1 - months
    year, month = divmod(index, 12)
    begin = date(year, month + 1, 1)
    end_index = index + months - 1
    end_year, end_month = divmod(end_index, 12)
    return begin, date(end_year, end_month + 1, calendar.monthrange(end_year, end_month + 1)[1])
