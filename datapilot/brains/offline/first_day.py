"""An extreme measured from the first day's close: "lowest close in 2012, what date, and how
far below its IPO-day close was that?", 比上市首日收盘价低了多少. The IPO (listing, debut,
first) day is the first day of the data, as "since its IPO" reads; a window that does not hold
that day leaves the words unhonoured, so the answer declines them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from datapilot.brains.offline.family_asks import read_when_ask

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading

_FIRST_EN = re.compile(
    r"(?i)\bhow\s+(?:far|much)\s+(?:(?:was|is|were)\s+(?:it|that|this|the\s+\w+)\s+)?"
    r"(?:below|above|under|over|from|off)\s+(?:its|the|their)\s+"
    r"(?:ipo|listing|debut|first)(?:[-\s](?:day|trading[-\s]day|session))?"
    r"(?:\s+(?:close|closing\s+price|price|level))?\b"
)
_FIRST_ZH = re.compile(
    r"(?:比|较|低于|高于|离|距离|距)(?:其|它的?)?(?:上市|IPO|ipo)(?:首日|当天|当日|那天|第一天)?的?"
    r"(?:收盘价?|价格|股价|发行价)?(?=[^，,。？?]{0,3}(?:低|高|跌|涨|差|相差|多少))"
)
# A dated day's close: "how far below its 2019-12-31 close", 比2019年12月31日的收盘价低多少.
_DAY_EN = re.compile(
    r"(?i)\bhow\s+(?:far|much)\s+(?:(?:was|is|were)\s+(?:it|that|this|the\s+\w+)\s+)?"
    r"(?:below|above|under|over|from|off)\s+(?:its|the|their)\s+(?P<day>[^,.?!]{4,30}?)\s+"
    r"(?:close|closing\s+price|price|level)\b"
)
_DAY_ZH = re.compile(
    r"(?:比|较|低于|高于|离|距离|距)(?P<day>[^，,。？?比]{4,14}?)的?(?:收盘价?|价格|股价|点位)"
    r"(?=[^，,。？?]{0,3}(?:低|高|跌|涨|差|相差|多少))"
)
_EXTREME = re.compile(
    r"(?i)\b(?P<side>lowest|highest|low|high|bottom(?:ed)?|peak(?:ed)?|top(?:ped)?)\b"
    r"|(?P<zh>最低|最高|低点|高点|谷底|峰值)"
)


@dataclass(frozen=True)
class FirstDayAsk:
    """The window's `side` extreme ("low" or "high") measured from the first day's close."""

    side: str
    spans: tuple[tuple[int, int], ...]
    day: str | None = None  # the words of a dated reference day; None: the first day


def read_first_day_ask(text: str) -> FirstDayAsk | None:
    """The extreme-from-the-first-day request in `text`, or None."""
    found = _FIRST_EN.search(text) or _FIRST_ZH.search(text)
    day = None
    if found is None:
        found = _DAY_EN.search(text) or _DAY_ZH.search(text)
        if found is None or not re.search(r"\d", found.group("day")):
            return None
        if _EXTREME.search(found.group("day")):
            return None  # 比它2018年全年最高收盘价低多少: the year's high, not one day's close
        day = found.group("day")
    when = read_when_ask(text)
    if when is not None:
        side = "low" if when.side == "worst" else "high"
        return FirstDayAsk(side, (*when.spans, found.span()), day)
    extreme = _EXTREME.search(text[: found.start()])
    if extreme is None:
        return None
    word = (extreme.group("side") or extreme.group("zh")).lower()
    low = bool(re.match(r"low|bottom|最低|低点|谷底", word))
    return FirstDayAsk("low" if low else "high", (extreme.span(), found.span()), day)


def as_first_day(reading: Reading, ask: FirstDayAsk, replaced: set[str]) -> None:
    """Record the ask: the extreme and its distance from the first close, when the window
    holds the first day of every name's data."""
    reading.rank = False
    if ask.day is not None:
        _from_a_day(reading, ask, replaced)
        return
    firsts = [e.first for e in reading.entities]
    inside = all(
        f is not None
        and (reading.start is None or reading.start <= f)
        and (reading.end is None or f <= reading.end)
        for f in firsts
    )
    if not inside:
        reading.metrics = [m for m in reading.metrics if m not in replaced]
        return  # the first day is outside the window: the words stay unhonoured
    reading.metrics = ["extreme_from_day", *(m for m in reading.metrics if m not in replaced)]
    reading.family_spans += [(s, e, f"{ask.side} from the first day") for s, e in ask.spans]
    reading.peak_side = ask.side
    # "IPO" is the first day of the data here, not a name nobody knows.
    reading.notes = [n for n in reading.notes if "IPO" not in n and "ipo" not in n]
    reading.trace.append(
        f"区间{'最低' if ask.side == 'low' else '最高'}值及其日期，"
        "与数据首日（上市日）收盘价的距离（%）"
        if reading.zh
        else f"the window's {ask.side} with its date, and its distance in % from the first "
        "day's close (the IPO day: the first day of the data)"
    )


def _from_a_day(reading: Reading, ask: FirstDayAsk, replaced: set[str]) -> None:
    """ "How far below its 2019-12-31 close": the extreme from that day's close on, when the
    day is one day the window holds."""
    from datapilot.brains.offline.windows import read_time

    said = read_time(ask.day or "", reading.today)
    day = said.start
    if day is None or said.end != day:
        return  # not one day: the words stay unhonoured
    if (reading.start and day < reading.start) or (reading.end and day > reading.end):
        return
    reading.family_spans += [(s, e, f"{ask.side} from {day}") for s, e in ask.spans]
    reading.metrics = ["extreme_from_day", *(m for m in reading.metrics if m not in replaced)]
    reading.peak_side = ask.side
    reading.anchor_day = day
    reading.trace.append(
        f"{day}之后的{'最低' if ask.side == 'low' else '最高'}值及其日期，与{day}收盘价的距离（%）"
        if reading.zh
        else f"the {ask.side} from {day} on, with its date, and its distance in % from that "
        "day's close"
    )
