"""What the bundled data can answer: the latest window it has, and the names it lacks.

Two decisions live here. A relative length ("the past 3 years", 近一个月, no time words at all)
that lies wholly after the data moves to the same length read as of the data's last date, and
says so; a window given as dates, or a relative phrase naming a calendar period (今年, "last
quarter", YTD), never moves: that period has no data. Names without data (or without data in
the window) are left out with a note when others remain, so one missing name never refuses the
whole answer.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import TYPE_CHECKING

from datapilot.brains.offline.margins import sets_names_against_each_other
from datapilot.brains.offline.periods import month_end, quarter_of, quarter_window
from datapilot.brains.offline.refusals import (
    chinese_name,
    coverage_message,
    edge_note,
    latest_offer,
    left_out_data_note,
    missing_message,
    moved_window_note,
    short_of_the_end_message,
)
from datapilot.brains.offline.siblings import frequency_zh, sibling_series, swap_series
from datapilot.brains.offline.vocab import Vocab
from datapilot.brains.offline.windows import Clause, TimeReading, default_window, read_time
from datapilot.data.catalog import Catalog, Entity

if TYPE_CHECKING:  # reading.py calls in here
    from datapilot.brains.offline.reading import Reading


def move_to_latest(reading: Reading, time: TimeReading, vocab: Vocab) -> TimeReading:
    """The window read as of the entities' last date when the relative window asked for lies
    wholly after their data; `time` unchanged otherwise (dates written out are never moved)."""
    lasts = [e.last for e in reading.entities if e.available and e.last is not None]
    if not lasts or reading.start is None or reading.end is None or "forecast" in reading.metrics:
        return time
    if time.future is not None:
        return time  # a dated period after today ("in 2024") is not moved: it has no data
    last = max(lasts)
    if reading.tables:
        return time
    if reading.start <= last and not _length_cut_short(reading, time, last):
        return time  # inside the data, or partly: answered on the part that exists
    if time.explicit and any(_names_a_period(c) for c in time.clauses):
        # 今年一季度, "last year", YTD after the data: that period has no data; the same words
        # read as of the data's last date are offered, not answered in its place.
        latest = read_time(time.text, last, vocab)
        if latest.start is not None and latest.start <= last:
            reading.latest_instead = (latest.start, min(latest.end or last, last))
        return time
    if time.explicit:
        moved = read_time(time.text, last, vocab)
        if (moved.start, moved.end) == (time.start, time.end) or moved.start is None:
            return time  # the same whatever today is: dates given, not a relative window
        if any(_dated(c, last, vocab) for c in time.clauses):
            return time  # "in April 2020, … from February": a date given is never moved
        start, end = moved.start, moved.end or last
        said = ", ".join(c.text for c in time.clauses if c.rule not in ("horizon", "first"))
    else:
        moved, (start, end) = time, default_window(last)
        said = ""
    was = f"{reading.start}..{reading.end}"
    reading.start, reading.end = start, min(end, last)
    reading.base = moved.base
    reading.trace.append(
        f"the window {was} lies after the data, which ends on {last}: "
        f"moved to {reading.start}..{reading.end}"
    )
    # First among the notes: the summary starts with it.
    ending = [e for e in reading.entities if e.available and e.last == last]
    note = moved_window_note(
        last, said, reading.start, reading.end, reading.zh, data=_whose(ending)
    )
    reading.notes.insert(0, note)
    return moved


_A_MONTH = 31


def _length_cut_short(reading: Reading, time: TimeReading, last: date) -> bool:
    """Whether a length asked ("the past 6 months") would lose more than a tenth of itself, and
    more than a month, to the data ending: then it is that much of the latest data, as a length
    wholly after the data is."""
    assert reading.start is not None and reading.end is not None
    lengths = [c for c in time.clauses if c.rule == "rolling"]
    if len(time.clauses) != 1 or not lengths or reading.end <= last:
        return False
    span, lost = (reading.end - reading.start).days, (reading.end - last).days
    # More than a tenth of the length, and more than a month: data that ends days before the
    # question (the past week asked on Friday, the data to Wednesday) answers it as asked.
    return span > 0 and lost > max(span / 10, _A_MONTH)


def _names_a_period(clause: Clause) -> bool:
    """A relative phrase naming a calendar period or its start (今年, "last quarter", YTD,
    "since last March"): another period answers another question. A length ("the past 3
    years", 近一个月) asks for that much of the latest data, wherever the data ends."""
    return clause.start is not None and clause.rule not in ("rolling", "horizon", "first")


def _dated(clause: Clause, last: date, vocab: Vocab) -> bool:
    """A time phrase that names the same window whatever today is ("April 2020", "in 2019")."""
    if clause.start is None or clause.rule in ("horizon", "first"):
        return False
    again = read_time(clause.text, last, vocab)
    window = (clause.start, clause.end)
    return (again.start, again.end) == window or again.future == window


def check_availability(reading: Reading, catalog: Catalog | None = None) -> None:
    """Leave out the names without data (or none in the window), with a note; no_data when
    nothing the question named is left. A series with no data in the window is first replaced
    by its sibling of another frequency that has some (`sibling_series`)."""
    if catalog is not None:
        _siblings_for_the_window(reading, catalog)
    named = list(reading.entities)
    if not named:
        return  # client tables only
    rates = [e for e in named if e.units == "%"]
    if "sharpe" in reading.metrics and rates and len(rates) < len(named):
        # "Apple's Sharpe ratio using the 3-month T-bill rate as the risk-free rate": the rate is
        # the Sharpe's risk-free rate, never a second name to rate, nor left out for 0%.
        reading.status = "no_data"
        reading.message = _rate_series_message(rates, reading.zh)
        reading.trace.append("a rate series named as the risk-free rate")
        return
    missing = [e for e in named if not e.available]
    if missing:
        reading.trace.append("no bundled data for " + ", ".join(e.id for e in missing))
    start, end = reading.start, reading.end
    outside = [
        e
        for e in named
        if e.available
        and None not in (e.first, e.last, start, end)
        and (end < e.first or start > e.last)  # type: ignore[operator]
    ]
    for entity in outside:
        reading.trace.append(f"{entity.id} has no data in the window")
    kept = [e for e in named if e not in missing and e not in outside]
    if not _answers_the_question(reading, named, kept):
        reading.status = "no_data"
        if missing:
            reading.message = missing_message(missing, reading.zh)
        else:
            assert start is not None and end is not None
            reading.message = coverage_message(outside[0], start, end, reading.zh)
            if reading.latest_instead is not None:
                gap = "" if reading.zh else " "
                reading.message += gap + latest_offer(*reading.latest_instead, reading.zh)
        return
    if missing or outside:
        reading.entities = kept
        reading.notes.append(left_out_data_note(missing, outside, kept, start, end, reading.zh))
        left = ", ".join(e.id for e in [*missing, *outside])
        reading.trace.append(f"answering for {', '.join(e.id for e in kept)}; left out: {left}")
    short = _ends_before_the_end_said(reading, kept)
    if short is not None:
        # "the annualized return from January 2000 through December 2020" of data ending in
        # 2018: a figure over fewer years is another question's
        assert start is not None and end is not None
        reading.status = "no_data"
        reading.message = short_of_the_end_message(short, start, end, reading.zh)
        return
    for entity in kept:
        if entity.first is None or entity.last is None or start is None or end is None:
            continue
        if start < entity.first:
            reading.notes.append(edge_note(entity, reading.zh, starts=True, start=start, end=end))
        if end > covered_to(entity, entity.last):
            reading.notes.append(edge_note(entity, reading.zh, starts=False, start=start, end=end))


# Measures a series of another frequency answers the same way: its levels and their changes
# between two dates; never a count of days, a daily extreme or a volatility.
_ANY_FREQUENCY = {"close", "value", "return", "cumulative_return", "spread", "mean", "median"}


def _siblings_for_the_window(reading: Reading, catalog: Catalog) -> None:
    """A series without data in the window whose sibling of another frequency has some
    ("WTI in December 2019": the daily series ends in January, the monthly one runs on) is
    answered from the sibling, and a note says so; only for measures any frequency answers."""
    start, end = reading.start, reading.end
    if start is None or end is None or not set(reading.metrics) <= _ANY_FREQUENCY:
        return
    for index, entity in enumerate(reading.entities):
        if entity.first is None or entity.last is None:
            continue
        if not (end < entity.first or start > covered_to(entity, entity.last)):
            continue
        covering = [
            s
            for s in sibling_series(entity, catalog)
            if s.first is not None
            and s.last is not None
            and s.first <= end
            and covered_to(s, s.last) >= start
            and s not in reading.entities
        ]
        if not covering:
            continue
        sibling = covering[0]
        swap_series(reading, index, sibling)
        reading.trace.append(f"{entity.id} has no data in the window: its sibling {sibling.id}")
        reading.notes.append(
            f"{chinese_name(entity)}（{entity.id}）在 {start} 至 {end} 期间没有数据，改用同一数据的"
            f"{frequency_zh(sibling.frequency)}序列{chinese_name(sibling)}（{sibling.id}）。"
            if reading.zh
            else f"{entity.name} ({entity.id}) has no data between {start} and {end}; the "
            f"{sibling.frequency} series {sibling.name} ({sibling.id}) has, so it is used."
        )


def covered_to(entity: Entity, last: date) -> date:
    """The last day `last`, an observation of `entity`, speaks for: a monthly or quarterly value
    dated on its period's first day (2009-07-01 for 2009Q3) stands for the whole period."""
    if last.day != 1 or entity.frequency not in ("monthly", "quarterly"):
        return last
    if entity.frequency == "monthly":
        return month_end(last.year, last.month)
    return quarter_window(last.year, quarter_of(last))[1]


def _rate_series_message(rates: list[Entity], zh: bool) -> str:
    """Why a Sharpe ratio with a rate series as its risk-free rate is not answered."""
    if zh:
        names = "、".join(f"{chinese_name(e)}（{e.id}）" for e in rates)
        return (
            f"我还不能用一个利率序列（{names}）作为夏普比率的无风险利率，也不会用0%代替。"
            "请直接给出年化利率数值，例如“无风险利率按2%”。"
        )
    names = ", ".join(f"{e.name} ({e.id})" for e in rates)
    return (
        f"I can't yet use a rate series ({names}) as a Sharpe ratio's risk-free rate, and I won't "
        "use 0% instead. Give the rate as a number, e.g. 'with a 2% risk-free rate'."
    )


# Measures of a whole window, which another window's figure does not answer.
_WHOLE_WINDOW = {
    "return",
    "cumulative_return",
    "annualized_return",
    "volatility",
    "sharpe",
    "investment_growth",
}
# A window ending up to one of its series' periods after the data still covers its end, unless
# the question stresses the whole period ("2018年全年" of factors ending with November's).
_GRACE = {"daily": timedelta(days=31), "monthly": timedelta(days=31)}
_GRACE |= {"quarterly": timedelta(days=92), "annual": timedelta(days=366)}
_WHOLE_PERIOD = re.compile(
    r"全年|整年|一整年|全年度|(?i:\b(?:full|whole|entire|complete)\s+(?:calendar\s+)?year\b"
    r"|\ball\s+of\s+(?:19|20)\d\d\b|\bthe\s+whole\s+of\b)"
)


def _ends_before_the_end_said(reading: Reading, kept: list[Entity]) -> Entity | None:
    """A name whose data ends well before the end the question said (not today's) of a
    whole-window measure; None when each name's data reach it."""
    end = reading.end
    if end is None or end >= reading.today or not reading.explicit_window:
        return None
    if not reading.metrics or not set(reading.metrics) <= _WHOLE_WINDOW or reading.parts:
        return None  # (a fall's peak and trough, a count …: what the data hold may answer it)
    whole = _WHOLE_PERIOD.search(reading.text) is not None

    def grace(entity: Entity) -> timedelta:
        if whole and entity.frequency in ("monthly", "quarterly"):
            return timedelta(0)  # its last value already speaks for its whole period
        return _GRACE.get(entity.frequency or "", _GRACE["daily"])

    return next(
        (
            e
            for e in kept
            # (a user's own file holds what they chose to import: its figure, with a note)
            if _whose([e]) == "bundled"
            and e.last is not None
            and covered_to(e, e.last) + grace(e) < end
        ),
        None,
    )


def _answers_the_question(reading: Reading, named: list[Entity], kept: list[Entity]) -> bool:
    """Something the user named is left: the market added for beta alone answers nothing, and
    a correlation between two names, one of them without data, is no correlation at all (the
    answer says which name lacks data rather than asking for another name)."""
    if not kept:
        return False
    if "beta" in reading.metrics:
        return len(kept) >= 2
    if "correlation" in reading.metrics and len(named) >= 2:
        return len(kept) >= 2
    # "Tesla vs Apple … the total return for each and the gap": a gap needs both sides; the
    # answer says which name lacks data rather than give the other's figures as if they
    # answered it. ("MSFT vs Tesla 2020 return" gives MSFT's, saying Tesla has none.)
    two_sided = bool(_TWO_SIDED & set(reading.metrics)) or sets_names_against_each_other(
        reading.text
    )
    if len(named) >= 2 and named[0] not in kept and _COMPARED_TO.search(reading.text):
        # "What did the momentum factor return in 2009? Want to compare it with SMB": the name
        # asked about has no data; the one it is set against alone answers nothing asked
        return False
    if len(named) >= 2 and len(kept) < len(named) and _WHICH_ONE_WON.search(reading.text):
        # "Of TSLA, NVDA, AAPL, MSFT and AMD, which had the lowest volatility": the winner may
        # be a name without data, so none among the others is the answer
        return False
    return not (len(named) >= 2 and len(kept) < 2 and two_sided)


# The name asked about set against another, said of it: "compare it with SMB", "relative to
# the S&P 500", 拿它跟标普比.
_COMPARED_TO = re.compile(
    r"(?i)\bcompar(?:e|ing)\s+(?:it|that|this|them|those)\s+(?:with|to|against)\b"
    r"|\brelative\s+to\b|\bbenchmark(?:ed)?\s+(?:it\s+)?against\b"
    r"|(?:拿|把|将)?它(?:们)?(?:跟|和|与|同)[^，。？！,?]{1,20}?(?:比|对比|相比)"
)


# Which of the names asked about came out first: "which had the lowest …", "who did better",
# 哪只涨得最多, 谁更稳.
_WHICH_ONE_WON = re.compile(
    r"(?i)\b(?:which|who)\b(?:\s+(?:one|stock|name|index|of\s+them|of\s+these|of\s+the\s+\w+))?"
    r"[^?.!;]{0,50}?\b(?:\w+est|most|least|best|worst|better|worse)\b"
    r"|(?:哪(?:个|只|支|一个|一只|家)|谁)[^？?。；;]{0,20}?(?:最|更)"
)
# Measures of two names together: one name alone has none.
_TWO_SIDED = {"spread", "ratio"}


def _whose(entities: list[Entity]) -> str:
    """Whose data the entities ending last come from: `bundled` when every source is bundled,
    `imported` when every one is a file a user imported, else `any` (live providers, mixed)."""
    from datapilot.data.owners import PREFIX
    from datapilot.data.providers.bundled import SOURCES

    sources = {s.strip() for e in entities for s in e.source.split(",") if s.strip()}
    if sources and sources <= set(SOURCES):
        return "bundled"
    if sources and all(s.startswith(("import:", PREFIX)) for s in sources):
        return "imported"
    return "any"
