"""Days the market was shut: a holiday said by name is its day ("Christmas Day 2019",
2020年元旦), and a level asked on a day without a session is the last close before it, said so.
The eves and Black Friday, shortened sessions, are read as their days too ("Christmas Eve 2018").

"What did AAPL close at on Christmas Day 2019" reads as 2019-12-25; the exchange had no session
that day, so the answer shows the close of 2019-12-24 and its note says the market was closed on
2019-12-25 and which close is shown instead. Sessions come from the entity's exchange calendar
(`exchange_calendars`); a holiday whose day a calendar rule gives (Thanksgiving, Good Friday) is
computed from that rule, and one without a year is not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING

from dateutil.easter import easter

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _nth(month: int, weekday: int, n: int) -> Callable[[int], date]:
    """The n-th `weekday` (Monday 0) of `month`; n = -1 for the last."""

    def day(year: int) -> date:
        if n > 0:
            first = date(year, month, 1)
            return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
        last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)

    return day


# Each holiday's names (English matched case-insensitively, Chinese as written) and its day.
_HOLIDAYS: dict[str, tuple[tuple[str, ...], Callable[[int], date]]] = {
    "Christmas Day": (("christmas day", "christmas", "圣诞节", "圣诞"), _fixed(12, 25)),
    "Christmas Eve": (("christmas eve", "平安夜", "圣诞夜"), _fixed(12, 24)),
    "New Year's Day": (("new year's day", "new years day", "new year's", "元旦"), _fixed(1, 1)),
    "New Year's Eve": (("new year's eve", "new years eve", "跨年夜"), _fixed(12, 31)),
    "Independence Day": (
        ("independence day", "july 4th", "the fourth of july", "4th of july", "独立日"),
        _fixed(7, 4),
    ),
    "Juneteenth": (("juneteenth",), _fixed(6, 19)),
    "Thanksgiving": (("thanksgiving day", "thanksgiving", "感恩节"), _nth(11, 3, 4)),
    "Black Friday": (
        ("black friday", "黑色星期五", "黑五"),
        lambda year: _nth(11, 3, 4)(year) + timedelta(days=1),
    ),
    "Good Friday": (("good friday", "耶稣受难日"), lambda year: easter(year) - timedelta(days=2)),
    "Labor Day": (("labor day", "labour day"), _nth(9, 0, 1)),
    "Memorial Day": (("memorial day",), _nth(5, 0, -1)),
    "Martin Luther King Jr. Day": (
        ("martin luther king jr. day", "martin luther king day", "mlk day"),
        _nth(1, 0, 3),
    ),
    "Presidents' Day": (
        ("presidents' day", "presidents day", "washington's birthday"),
        _nth(2, 0, 3),
    ),
    "National Day": (("国庆节", "国庆"), _fixed(10, 1)),
}

_NAMES = sorted(
    ((name, holiday) for holiday, (names, _) in _HOLIDAYS.items() for name in names),
    key=lambda pair: -len(pair[0]),
)
_NAME = "|".join(re.escape(name) for name, _ in _NAMES)
# "Christmas Day 2019", "Christmas Day, 2019", "2019 Christmas", 2019年圣诞节, 2020年的元旦.
_SAID = re.compile(
    rf"(?i)(?:(?P<before>(?:19|20)\d\d)\s*(?:年的?|年)?\s*(?P<name1>{_NAME})"
    rf"|(?P<name2>{_NAME})(?:\s*(?:day)?)?,?\s*(?:of\s+|in\s+)?(?P<after>(?:19|20)\d\d)(?:年)?)"
    r"(?![\d-])"
)


# A holiday of a year said relative to today: 去年国庆节, 今年的元旦, "last year's Christmas".
_RELATIVE = re.compile(
    rf"(?i)(?P<rel>去年|今年|前年|last\s+year'?s|this\s+year'?s)\s*的?\s*(?P<name>{_NAME})"
    r"(?![A-Za-z\d])"
)
_YEARS_BACK = {"去年": 1, "今年": 0, "前年": 2, "last year's": 1, "last years": 1}
_YEARS_BACK |= {"this year's": 0, "this years": 0}


# A holiday said without its year, as a day: "on Christmas Day", 感恩节那天, 圣诞节休市吗.
_BARE = re.compile(
    rf"(?i)(?<![A-Za-z])on\s+(?:the\s+)?(?P<name1>{_NAME})(?![A-Za-z\d])"
    rf"|(?P<name2>{_NAME})(?=\s*(?:美股|股市|美国股市|市场)?\s*(?:那天|当天|当日|那一天|休市|开市|开门|"
    r"的收盘|收盘))"
)


def holiday_dates(text: str, today: date | None = None) -> str:
    """`text` with each holiday said with its year written as its ISO day ("Christmas Day
    2019" → 2019-12-25), so the time grammar reads it as that day; with `today`, one said as a
    day without its year ("on Thanksgiving", 感恩节那天) is its latest day on or before today."""

    def named(said: str) -> Callable[[int], date]:
        holiday = next(h for name, h in _NAMES if name.casefold() == said.casefold())
        return _HOLIDAYS[holiday][1]

    def day(found: re.Match[str]) -> str:
        rule = named(found.group("name1") or found.group("name2"))
        said = rule(int(found.group("before") or found.group("after"))).isoformat()
        # A name written right after the holiday (2018年平安夜VIX) stays a word of its own.
        following = found.string[found.end() : found.end() + 1]
        return said + " " if following.isalnum() else said

    def latest(found: re.Match[str]) -> str:
        group = "name1" if found.group("name1") else "name2"
        rule = named(found.group(group))
        assert today is not None
        when = rule(today.year) if rule(today.year) <= today else rule(today.year - 1)
        return found.group(0)[: found.start(group) - found.start()] + when.isoformat()

    def relative(found: re.Match[str]) -> str:
        assert today is not None
        back = _YEARS_BACK[re.sub(r"\s+", " ", found.group("rel").lower())]
        when = named(found.group("name"))(today.year - back)
        return when.isoformat() if when <= today else found.group(0)

    text = _SAID.sub(day, text)
    if today is None:
        return text
    return _BARE.sub(latest, _RELATIVE.sub(relative, text))


def holiday_named(day: date) -> str | None:
    """The holiday `day` is, by its English name, if one of ours."""
    for holiday, (_, rule) in _HOLIDAYS.items():
        if rule(day.year) == day:
            return holiday
    return None


# Chinese names of the holidays, for the answer to whether the market was open.
_ZH = {"Christmas Day": "圣诞节", "New Year's Day": "元旦", "Independence Day": "美国独立日"}
_ZH |= {"Christmas Eve": "平安夜", "New Year's Eve": "跨年夜", "Black Friday": "黑色星期五"}
_ZH |= {"Thanksgiving": "感恩节", "Good Friday": "耶稣受难日", "Juneteenth": "六月节"}
_ZH |= {"Labor Day": "劳动节", "Memorial Day": "阵亡将士纪念日", "National Day": "国庆节"}
_ZH |= {"Martin Luther King Jr. Day": "马丁·路德·金纪念日", "Presidents' Day": "总统日"}

_LEVELS = {"close", "value", "price", "open", "high", "low"}


def last_session_before(day: date, calendar: str) -> date | None:
    """The calendar's last session before `day` when `day` has none; None when it has one or
    the calendar does not cover it."""
    import pandas as pd

    from datapilot.interfaces.frame import sessions_of

    sessions = sessions_of(calendar, day.year - 1, day.year)
    if sessions is None or pd.Timestamp(day) in sessions:
        return None
    before = sessions[sessions < pd.Timestamp(day)]
    return before[-1].date() if len(before) else None


# Whether the market was open or shut on a day: "was the market open on July 4th", "is the NYSE
# closed on Good Friday", "did the market trade on …", 股市那天开门吗, 美股休市吗.
OPEN_ASKED = re.compile(
    r"(?i)\b(?:was|is|were|are|will)\s+(?:the\s+)?(?:(?:us|u\.s\.|american|stock|equity)\s+)*"
    r"(?:markets?|exchanges?|nyse|nasdaq|wall\s+street)\s+(?:be\s+)?(?:open|closed|shut|trading)\b"
    r"|\bdid\s+(?:the\s+)?(?:(?:us|stock)\s+)*markets?\s+(?:trade|open)\b"
    r"|\b(?:was|were)\s+there\s+(?:a\s+)?(?:trading\s+)?session\b"
    r"|(?:开门|开市|开盘|休市|闭市|有交易|交易)(?:了)?(?:吗|么|嘛)|(?:是否|有没有)(?:开市|开门|休市|交易)"
)


def asks_open(text: str) -> re.Match[str] | None:
    """The words asking whether the market had a session, or None."""
    return OPEN_ASKED.search(text)


# A count of the US market's sessions: "how many trading days did Wall Street have",
# 美股一共有几个交易日. The market is named by its words, not by a series (美股 alone also names
# the universe of US stocks: "美股里表现最好的五只股票" ranks stocks, not the index).
_SESSIONS_COUNTED = re.compile(
    r"(?i)\bhow\s+many\s+(?:trading\s+)?(?:days|sessions)\b|(?:几|多少)个?交易日"
)
_US_MARKET = re.compile(
    r"(?i)\b(?:nyse|wall\s+street|(?:the\s+)?(?:us|u\.s\.|american)\s+(?:stock\s+)?market|"
    r"stock\s+market)\b|美股|美国股市|美国股票市场|纽交所|纽约证券交易所|华尔街"
)


def asks_market_sessions(text: str) -> bool:
    """Whether `text` counts the US market's sessions without naming a series."""
    return bool(_SESSIONS_COUNTED.search(text) and _US_MARKET.search(text))


# "How many trading days were there in March 2020?": sessions counted with no market or name
# said, which the bundled data (US markets) answers by the US market's calendar, said so.
_TRADING_SESSIONS_COUNTED = re.compile(
    r"(?i)\bhow\s+many\s+(?:trading\s+days|sessions|market\s+days)\b|(?:几|多少)个?交易日"
)


def counts_unnamed_sessions(text: str) -> bool:
    """Whether `text` counts trading sessions without naming a market."""
    return bool(_TRADING_SESSIONS_COUNTED.search(text))


# Measures for which one day is where a window starts, not a day asked about.
_ANCHORS = {"investment_growth"}


def shut_day(reading: Reading) -> None:
    """A level asked on one day without a session: the last close before it, said so."""
    from datapilot.interfaces.prices import exchange_calendar

    if reading.start is None or reading.start != reading.end or not reading.entities:
        return
    if reading.start > reading.today:
        return
    if _ANCHORS & set(reading.metrics):
        return  # the day starts a window ("put $5k in at the start of 2018"): no day's figure
    calendars = {exchange_calendar(e) for e in reading.entities}
    if calendars == {None}:
        _weekend_value(reading)
        return
    if len(calendars) != 1 or None in calendars:
        return
    day = reading.start
    before = last_session_before(day, str(next(iter(calendars))))
    if before is None:
        if asks_open(reading.text):
            said = f"{day}正常开市。" if reading.zh else f"The market was open on {day}."
            reading.notes.append(said)
        return
    holiday = holiday_named(day)
    why = f" ({holiday})" if holiday else ""
    if asks_open(reading.text):  # the answer is that it was shut, not a figure
        reading.status = "no_data"
        reading.message = (
            f"{day}{'（' + _ZH.get(holiday, holiday) + '）' if holiday else ''}休市，"
            f"没有交易；之前最近的交易日是{before}。"
            if reading.zh
            else f"The market was closed on {day}{why}, with no session; the last session "
            f"before it was {before}."
        )
        return
    if not set(reading.metrics) <= _LEVELS:  # a day's move or measure: there was none
        reading.status = "no_data"
        reading.message = (
            f"{day}休市，没有交易，也就没有当天的数据；最近的交易日是{before}。"
            if reading.zh
            else f"The market was closed on {day}{why}: there was no session, so no figure for"
            f" that day; the last session before it was {before}."
        )
        return
    reading.start = reading.end = before
    if reading.zh:
        reading.notes.append(
            f"{day}休市，没有收盘价；这里给出休市前最后一个交易日（{before}）的收盘价。"
        )
    else:
        reading.notes.append(
            f"The market was closed on {day}{why}; the last close before it, on {before}, is"
            " shown instead."
        )
    reading.trace.append(
        f"{day}没有交易 → 取此前最后一个交易日{before}"
        if reading.zh
        else f"{day} has no session → the last session before it, {before}"
    )


def _weekend_value(reading: Reading) -> None:
    """A daily series' value asked on a weekend (no exchange of its own says its sessions):
    the value of the Friday before, said so ("2008-06-14 was a Saturday")."""
    day = reading.start
    if (
        day is None
        or day.weekday() < 5
        or not set(reading.metrics) <= _LEVELS
        or any(e.frequency != "daily" for e in reading.entities)
    ):
        return
    before = day - timedelta(days=day.weekday() - 4)
    reading.start = reading.end = before
    weekday = ("周六", "周日")[day.weekday() - 5] if reading.zh else day.strftime("%A")
    reading.notes.append(
        f"{day}是{weekday}，没有当天的数值；这里给出此前最近的工作日（{before}）的数值。"
        if reading.zh
        else f"{day} was a {weekday}, with no value of its own; the value of the weekday before"
        f" it, {before}, is shown instead."
    )
    reading.trace.append(
        f"{day}是{weekday} → 取{before}" if reading.zh else f"{day} is a {weekday} → {before}"
    )
