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
    r"(?:收盘价?|价格|股价|发行价)?(?=[^，。？?]{0,3}(?:低|高|跌|涨|差|相差|多少))"
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


def read_first_day_ask(text: str) -> FirstDayAsk | None:
    """The extreme-from-the-first-day request in `text`, or None."""
    found = _FIRST_EN.search(text) or _FIRST_ZH.search(text)
    if found is None:
        return None
    when = read_when_ask(text)
    if when is not None:
        return FirstDayAsk("low" if when.side == "worst" else "high", (*when.spans, found.span()))
    extreme = _EXTREME.search(text[: found.start()])
    if extreme is None:
        return None
    word = (extreme.group("side") or extreme.group("zh")).lower()
    low = bool(re.match(r"low|bottom|最低|低点|谷底", word))
    return FirstDayAsk("low" if low else "high", (extreme.span(), found.span()))


def as_first_day(reading: Reading, ask: FirstDayAsk, replaced: set[str]) -> None:
    """Record the ask: the extreme and its distance from the first close, when the window
    holds the first day of every name's data."""
    reading.rank = False
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
