"""An explicit basis: two periods set one over the other name the two points a change is measured
between — "Q4 2008 over Q4 2007", 2008年四季度对2007年四季度, 按2008年四季度比2007年四季度算.

The change runs from the end of the earlier period to the end of the later one, whichever is said
first: the calendar convention ("GDP growth in 2008" is Q4 2008 on Q4 2007), so a series with one
value per period is measured from the earlier period's own value to the later one's, and a daily
close from the earlier period's last close. The basis decides the window over any other period
the question names ("2008年增长了多少？按2008年四季度对2007年四季度算").
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from datapilot.brains.offline.periods import calendar_unit

# Between the two periods: "over", "on", "relative to", 对, 相对于. 比 / 相比 / "vs" alone set two
# windows against each other (2020年比2019年涨得多吗), so they are a basis only when the words
# around say one is measured on the other: 按…算, "measured as …", or 比 before 增长了多少.
_GAP = re.compile(r"(?i)\s*(?:over|on|relative\s+to|对|相对于?)\s*")
_GAP_SAID = re.compile(
    r"(?i)\s*(?:对|比|较|相比|相较于?|相对于?|over|on|relative\s+to|vs\.?|versus|against)\s*"
)
_OPENS = re.compile(
    r"(?i)(?:按|按照|以)\s*$|\b(?:measured|computed|calculated|taken)\s+(?:as\s+)?$"
)
_CLOSES = re.compile(r"^\s*(?:来|去)?(?:算|计算|衡量)")
# 2008年美国实际GDP比2007年增长了多少: how much the later period grew on the earlier, its
# subject's name between them; never 多涨了多少 (a gap between two windows' changes).
_OVER_ZH = re.compile(r"[^\d，。,.?？!！;；多]{0,16}?(?:比|对|相比|相较于?|较)\s*")
_GREW_ZH = re.compile(
    r"^\s*(?:增长|上涨|下跌|增加|减少|上升|下降|变化|变动|增减|涨|跌|高|低)了?"
    r"(?:多少|几|百分之(?:几|多少))"
)

Window = tuple[date, date]
Span = tuple[int, int]


def basis_window(
    text: str, first: Span, second: Span, periods: tuple[Window, Window]
) -> tuple[Window, Span] | None:
    """The window of `first` and `second` (spans of `text`) set one over the other, whose
    `periods` they are: from the day after the earlier period ends to the later one's end (so a
    calendar window's usual base, the last value before its start, is the earlier period's),
    and the words that say it; None when the words set no basis. Unless the words say it is
    one (按…算, "measured as"), a basis is two calendar periods of the same length ("Q4 2008
    over Q4 2007")."""
    gap, before, after = text[first[1] : second[0]], text[: first[0]], text[second[1] :]
    span = (first[0], second[1])
    opens = _OPENS.search(before)
    if opens and (_CLOSES.match(after) or before.isascii()):
        if not _GAP_SAID.fullmatch(gap):
            return None
        span = (opens.start(), second[1])
    elif _OVER_ZH.fullmatch(gap) and _GREW_ZH.match(after) and _same_length(periods):
        if gap.strip() != "比":
            span = first  # the name between the two periods stays its own
    elif _VERSUS.fullmatch(gap) and _GROWTH_BEFORE.search(before) and _adjacent(periods):
        pass  # "GDP growth in Q2 2009 vs Q1 2009": the later period's growth on the one before
    elif not _GAP.fullmatch(gap) or not _same_length(periods):
        return None
    between = window_between(periods)
    return (between, span) if between is not None else None


def window_between(periods: tuple[Window, Window]) -> Window | None:
    """From the day after the earlier period ends to the later one's end, whichever is said
    first; None for the same or overlapping periods (no two points to measure between)."""
    earlier, later = sorted(periods, key=lambda window: window[1])
    if earlier[1] >= later[0]:
        return None
    return earlier[1] + timedelta(days=1), later[1]


_VERSUS = re.compile(r"(?i)\s*(?:vs\.?|versus|compared\s+(?:to|with))\s*")
_GROWTH_BEFORE = re.compile(
    r"(?i)\b(?:growth|grew|change|increase|decline|rise|fall)\s+(?:(?:in|of|for|during)\s+)?$"
)


def _adjacent(periods: tuple[Window, Window]) -> bool:
    """Two calendar periods of one length, one right after the other (Q1 and Q2 2009): a
    period and the one its growth is measured on, never two far apart (Q2 1980 vs Q2 2008)."""
    earlier, later = sorted(periods, key=lambda window: window[1])
    return _same_length(periods) and later[0] == earlier[1] + timedelta(days=1)


def _same_length(periods: tuple[Window, Window]) -> bool:
    units = {calendar_unit(*window) for window in periods}
    return len(units) == 1 and None not in units


# A change measured between averages: 按年均值算, 年均值对年均值, "annual average over annual
# average". No plan computes it yet, and a change between two ends is another comparison.
_AVERAGES = re.compile(
    r"(?i)(?:按|用|以)(?:照)?(?:全?年|季度?|月)?(?:度)?(?:平均值?|均值)(?:来)?(?:算|计算|比|比较)"
    r"|(?:年|季度?|月)(?:平均值?|均值)(?:对|比)(?:年|季度?|月)?(?:平均值?|均值)"
    r"|\b(?:annual|yearly|quarterly|monthly)?\s*averages?\s+(?:over|vs\.?|versus|on)\s+"
    r"(?:the\s+)?(?:annual|yearly|quarterly|monthly|prior|previous)?\s*(?:year's\s+)?averages?\b"
    r"|\b(?:on|by)\s+(?:an?\s+)?(?:annual|yearly)[-\s]average\s+basis\b"
)
_CHANGE = re.compile(r"(?i)增长|增速|涨|跌|变化|\bgr[eo]w|\bgrowth\b|\bchange|\bincreas|\bdeclin")


def averages_basis(text: str, zh: bool) -> str | None:
    """The message declining a change asked between averages (按年均值算), or None."""
    found = _AVERAGES.search(text)
    if found is None or not _CHANGE.search(text):
        return None
    if zh:
        return (
            f"“{found.group(0)}”：按平均值计算的增长（一期均值对上一期均值）我还不能计算，"
            "也不会用另一种比较代替。可以问期末值之间的增长，例如“2008年美国实际GDP增长了多少”"
            "（2008年四季度对2007年四季度）。"
        )
    return (
        f"\"{found.group(0)}\": I can't yet compute a change between averages (one period's "
        "average over the previous one's), and I won't give another comparison instead. I can "
        'give the change between period ends, e.g. "how much did real GDP grow in 2008" '
        "(Q4 2008 over Q4 2007)."
    )
