"""Days and periods said relative to today that the time grammar would read as another period,
written as the dates they are before it reads them.

- A relative year with an edge after it: 去年初, 前年底, 今年年末 are the start or end of that
  year (2021年初), never the edge of the current one ("年初" read alone); "the end of the year
  before last", "the start of last year" likewise ("the end of 2020").
- The same day a year ago: 去年这个时候, 一年前的今天, "this time last year", "a year
  ago today" are that day (2020年9月15日, "September 15, 2020"), never the whole of last year.
- The month or quarter before last: 上上个月, 上上个季度, "the month before last", "the quarter
  before last" are that calendar month or quarter.

- A length said before a return or a change: "AAPL 5d chg", "the 5-day return", "3m perf" are
  the return or change over the past that long, never a length nothing uses.

The rewritten words are what the answer's ledger shows, so the dates used are visible.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

_YEARS_BACK = {"大前年": 3, "前年": 2, "去年": 1, "今年": 0, "明年": -1}
_ZH_YEAR_EDGE = re.compile(r"(?P<rel>大前年|前年|去年|今年|明年)(?=的?年?(?:初|底|末|中))")
_ZH_SAME_DAY = re.compile(
    # (not 去年同期: the same period a year before the one named, "比去年同期")
    r"去年的?(?:这个时候|这时候|此时|今天|今日|这一天)|一年前的?(?:今天|今日|这个时候|这时候)"
)
_ZH_BEFORE_LAST = re.compile(r"上上(?:个)?(?P<unit>月|季度|季)")
_EN_YEAR_EDGE = re.compile(
    r"(?i)\b(?P<edge>start|beginning|end|close)\s+of\s+(?:the\s+)?"
    r"(?P<rel>year\s+before\s+last|last\s+year|this\s+year|previous\s+year|prior\s+year)\b"
)
_EN_SAME_DAY = re.compile(
    r"(?i)\bthis\s+(?:time|day|date)\s+last\s+year\b|\ba\s+year\s+ago\s+today\b"
    r"|\bthe\s+same\s+(?:day|date)\s+(?:a\s+year\s+ago|last\s+year)\b"
)
_EN_BEFORE_LAST = re.compile(r"(?i)\bthe\s+(?P<unit>month|quarter)\s+before\s+last\b")
_EN_YEARS_BACK = {"year before last": 2, "last year": 1, "previous year": 1, "prior year": 1}
_EN_YEARS_BACK |= {"this year": 0}


_UNITS = {"d": "days", "day": "days", "w": "weeks", "wk": "weeks", "week": "weeks"}
_UNITS |= {"m": "months", "mo": "months", "month": "months", "y": "years", "yr": "years"}
_UNITS |= {"year": "years"}
_LENGTH_BEFORE_CHANGE = re.compile(
    r"(?i)\b(?P<n>\d{1,3})\s*-?\s*(?P<unit>days?|d|weeks?|wks?|w|months?|mos?|m|years?|yrs?|y)\s+"
    r"(?P<what>returns?|chg|chng|change|gains?|moves?|performance|perf|%\s*chg|%\s*change)\b"
)


def name_relative_days(text: str, today: date) -> str:
    """`text` with the relative days and periods above written as their dates."""
    text = _LENGTH_BEFORE_CHANGE.sub(_length_before_change, text)
    text = _ZH_YEAR_EDGE.sub(lambda m: f"{today.year - _YEARS_BACK[m['rel']]}年", text)
    text = _ZH_SAME_DAY.sub(lambda m: _zh_day(_year_before(today)), text)
    text = _ZH_BEFORE_LAST.sub(lambda m: _zh_before_last(m["unit"], today), text)
    text = _EN_YEAR_EDGE.sub(lambda m: _en_year_edge(m, today), text)
    text = _EN_SAME_DAY.sub(lambda m: _en_day(_year_before(today)), text)
    return _EN_BEFORE_LAST.sub(lambda m: _en_before_last(m["unit"].lower(), today), text)


def _year_before(today: date) -> date:
    """The same day a year earlier (28 February for a 29th)."""
    last = calendar.monthrange(today.year - 1, today.month)[1]
    return today.replace(year=today.year - 1, day=min(today.day, last))


def _months_back(today: date, months: int) -> tuple[int, int]:
    index = today.year * 12 + today.month - 1 - months
    return index // 12, index % 12 + 1


def _zh_day(day: date) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


def _en_day(day: date) -> str:
    return f"{calendar.month_name[day.month]} {day.day}, {day.year}"


def _zh_before_last(unit: str, today: date) -> str:
    if unit == "月":
        year, month = _months_back(today, 2)
        return f"{year}年{month}月"
    year, month = _months_back(today, 6)  # two quarters back: its first month
    return f"{year}年第{'一二三四'[(month - 1) // 3]}季度"


def _en_before_last(unit: str, today: date) -> str:
    if unit == "month":
        year, month = _months_back(today, 2)
        return f"{calendar.month_name[month]} {year}"
    year, month = _months_back(today, 6)
    return f"Q{(month - 1) // 3 + 1} {year}"


def _en_year_edge(found: re.Match[str], today: date) -> str:
    back = _EN_YEARS_BACK[re.sub(r"\s+", " ", found["rel"].lower())]
    return f"{found['edge']} of {today.year - back}"


def _length_before_change(found: re.Match[str]) -> str:
    unit = found["unit"].lower()
    unit = _UNITS.get(unit.rstrip("s") if len(unit) > 2 else unit, unit)
    what = found["what"].lower()
    measure = "change" if "ch" in what else "return"
    return f"{measure} over the past {found['n']} {unit}"
