"""Returns on some weekdays only: "exxon avg daily return on mondays only", 只看周五，标普500的
平均日收益率. Each day's return is still from the session before it; the statistic is taken over
the days of those weekdays alone, and a note says so. A weekday said of a measure that is not a
statistic of daily returns is `no_data`, never the statistic of every day.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import TYPE_CHECKING

from datapilot.brains.offline.periods import week_start

if TYPE_CHECKING:  # reading.py calls in here
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading

# Weekdays by their number (Monday = 0), as `date.weekday()` counts them.
_ORDER = {name.casefold(): day for day, name in enumerate(calendar.day_name)}
_ZH_ORDER = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_DAY = "|".join(list(_ORDER)[:5])  # the sessions' days
_ANY_DAY = "|".join(_ORDER)
# A weekday as a set of days: plural ("on Mondays"), or said with "only" / "every"; a single
# "Friday" names one day, which the time reader takes.
_EN = re.compile(
    rf"(?i)\b(?:only\s+)?(?:on\s+)?(?:(?P<p>{_DAY})s(?:\s+only)?|(?:only\s+on|every)\s+"
    rf"(?P<e>{_DAY})|(?P<o>{_DAY})\s+only)\b"
)
# 只看周五, 每周一, 周五的: never 上周五 or 这周五 (a date).
_ZH = re.compile(
    r"(?:只看|只算|仅看|只有|仅|只|每逢|逢)?(?<![上下这本该])(?:每)?(?:周|星期|礼拜)(?P<d>[一二三四五])"
)
# A weekday that says how periods are measured ("Friday close to Friday close", 按周五收盘对
# 周五收盘算) keeps no days out.
_CLOSE_TO_CLOSE = re.compile(r"(?i)^(?:'s)?\s*(?:的)?(?:收盘|clos(?:e|es|ing)\b|-to-|\s+to\s+)")
# Statistics of daily returns that a subset of the days (some weekdays, all but the best or
# worst) answers.
KEPT_DAYS_MEASURES = {"mean", "median", "stats", "volatility"}


def weekday_names(days: list[int], *, zh: bool) -> str:
    """The weekdays as a set of days: "Mondays and Fridays", 周一、周五."""
    if zh:
        return "、".join(f"周{'一二三四五六日'[d]}" for d in days)
    return " and ".join(f"{calendar.day_name[d]}s" for d in days)


def read_weekdays(reading: Reading, parsed: Parsed, text: str) -> None:
    """Set `reading.weekdays` from the weekdays the question keeps, with their words."""
    found: list[tuple[int, int, int]] = []
    for match in _EN.finditer(text):
        day = (match.group("p") or match.group("e") or match.group("o")).casefold()
        found.append((*match.span(), _ORDER[day]))
    for match in _ZH.finditer(text):
        found.append((*match.span(), _ZH_ORDER[match.group("d")]))
    found = [
        f
        for f in found
        if not any(s < f[1] and f[0] < e for s, e in parsed.time.spans)
        and not _CLOSE_TO_CLOSE.match(text[f[1] :])
    ]
    if not found or not reading.price_entities:
        return
    days = sorted({day for _, _, day in found})
    names, zh_names = weekday_names(days, zh=False), weekday_names(days, zh=True)
    if not set(reading.metrics) & KEPT_DAYS_MEASURES:
        reading.status = "no_data"
        reading.message = (
            f"我目前只能对{zh_names}的日收益率求均值、中位数、统计量或波动率；这个问题问的指标"
            "还不能只按这些日子计算，我不会用全部交易日的数字代替。"
            if reading.zh
            else f"On {names} only, I can take the mean, median, statistics or "
            "volatility of daily returns; the measure asked cannot yet be kept to those days, "
            "and I won't give every day's figure instead."
        )
        return
    reading.weekdays = days
    reading.frequency = None  # daily returns, then those weekdays
    reading.family_spans += [(s, e, "weekdays kept") for s, e, _ in found]
    reading.notes.append(
        f"只计{zh_names}的日收益率（每个都相对前一个交易日的收盘价）。"
        if reading.zh
        else f"Only {names}' daily returns are used, each from the close of the session before it."
    )


_LAST_EN = re.compile(rf"(?i)\b(?:last|this\s+past|previous|past)\s+(?P<day>{_ANY_DAY})\b")
_THIS_EN = re.compile(rf"(?i)\bthis\s+(?P<day>{_ANY_DAY})\b")
_WEEK_ZH = re.compile(r"(?P<which>上|这|本)(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天])")


def weekday_dates(text: str, today: date) -> str:
    """`text` with a weekday said relative to today written as its ISO day ("last Friday",
    上周五 → the Friday of the week before; "this Monday", 本周一 → this week's, when past), so
    the time grammar reads one day, never the whole of last week."""
    monday = week_start(today)

    def last(found: re.Match[str]) -> str:
        back = (today.weekday() - _ORDER[found.group("day").casefold()]) % 7 or 7
        return (today - timedelta(days=back)).isoformat()

    def this(found: re.Match[str]) -> str:
        day = monday + timedelta(days=_ORDER[found.group("day").casefold()])
        return day.isoformat() if day <= today else found.group(0)

    def week(found: re.Match[str]) -> str:
        start = monday - timedelta(days=7) if found.group("which") == "上" else monday
        day = start + timedelta(days=_ZH_ORDER[found.group("day")])
        return day.isoformat() if day <= today else found.group(0)

    text = _LAST_EN.sub(lambda found: _apart(found, last(found)), text)
    text = _THIS_EN.sub(lambda found: _apart(found, this(found)), text)
    return _WEEK_ZH.sub(lambda found: _apart(found, week(found)), text)


def _apart(found: re.Match[str], day: str) -> str:
    """The day written in, spaced from a name's digits around it (标普500本周一 → 标普500
    2019-06-10): a date glued to 500 would read as one number."""
    before = found.string[found.start() - 1 : found.start()]
    after = found.string[found.end() : found.end() + 1]
    return (" " if before.isalnum() else "") + day + (" " if after.isalnum() else "")
