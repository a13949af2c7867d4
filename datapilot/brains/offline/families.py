"""Question families analysts ask often, each read by a grammatical rule in both languages:

- best and worst sub-periods: a superlative beside a period word ("best month", "worst quarter",
  "biggest monthly loss", 表现最差的一个月, 哪个季度涨得最多) ranks the window's weeks, months,
  quarters or years by their return (`period_extremes`);
- conditional counts: "how many days" / 多少天 with a condition (a close above a level, a daily
  move beyond a %, up or down days), or the number of trading days itself (`count_days`);
- distance from a peak or trough: "how far below its 52-week high", "% off the all-time high",
  离历史高点还差多少 (`distance`);
- exclusions: "except X", "leave X out", "but not X", 除了X, X除外, 不算X — X is removed from the
  entities, and the trace and the answer name it.

The rules are in `family_asks` and `exclusions`; `read_families` applies them to a reading and
records the words each used (`family_spans`), so the ledger counts them as read; a number a rule
takes (a threshold) is recorded on the reading too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser imports this module
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading
    from datapilot.brains.offline.vocab import Episode, Vocab

from datapilot.brains.offline.after_extremes import AfterAsk, as_after_extreme, read_after_extreme
from datapilot.brains.offline.baskets import read_basket
from datapilot.brains.offline.conditions import as_condition, read_condition_ask
from datapilot.brains.offline.contributions import as_contributions, read_contribution_ask
from datapilot.brains.offline.crosses import as_cross, read_cross_ask
from datapilot.brains.offline.described_days import blanked
from datapilot.brains.offline.distance_back import read_distance_back
from datapilot.brains.offline.episodes import DATES_DECIDE, named_episodes
from datapilot.brains.offline.exclusions import COSTS_LEFT_OUT, exclusion_note, read_exclusions
from datapilot.brains.offline.family_asks import (
    FIRST_COUNTED,
    CountAsk,
    DistanceAsk,
    PeriodAsk,
    Span,
    WhenAsk,
    before_fall_words,
    peak_period_span,
    read_count_ask,
    read_distance_ask,
    read_leverage,
    read_peak_period,
    read_period_ask,
    read_recovery_ask,
    read_series_extreme,
    read_values_count,
    read_when_ask,
)
from datapilot.brains.offline.first_back import as_first, read_first_ask
from datapilot.brains.offline.first_day import as_first_day, read_first_day_ask
from datapilot.brains.offline.honour import WHEN
from datapilot.brains.offline.measures import amount_span
from datapilot.brains.offline.numbers import digits_for_words
from datapilot.brains.offline.period_tallies import read_period_tally
from datapilot.brains.offline.periods import period_holding
from datapilot.brains.offline.points_beside import points_beside_a_span
from datapilot.brains.offline.ratios import (
    as_growth_multiple,
    as_ratio,
    read_growth_multiple,
    read_ratio_ask,
)
from datapilot.brains.offline.series_asks import read_rolling_extreme, rolling_measure
from datapilot.brains.offline.streaks import as_streak, read_streak_ask
from datapilot.brains.offline.volume_days import read_volume_when
from datapilot.brains.offline.weekdays import read_weekdays
from datapilot.brains.offline.without_extremes import read_without_extremes
from datapilot.interfaces.periods import DATED_CONDITIONS


def read_families(reading: Reading, parsed: Parsed, vocab: Vocab) -> None:
    """Apply the family rules to a reading whose metrics, members and window are read; an
    extreme asked with its value some months later reads that value too."""
    after = read_after_extreme(parsed.text, vocab.time.numbers)
    _read_families(reading, parsed, vocab, after)
    dated_extreme = "period_extremes" in reading.metrics and reading.extreme_of != "returns"
    if after is not None and reading.status == "ok" and dated_extreme and reading.entities:
        as_after_extreme(reading, after, list(parsed.time.clauses))


def read_contributions(reading: Reading, parsed: Parsed, vocab: Vocab) -> bool:
    """Regular buying asked ("每个月第一个交易日买2000美金标普500，一直供到2016年12月"): read as
    one question over its whole window, never parts nor one sum at the start; whether it was."""
    contributing = read_contribution_ask(parsed.text)
    if contributing is None or not reading.entities or reading.tables:
        return False
    if reading.amount is None:
        reading.status = "no_data"
        reading.message = (
            "请说明每次买入多少（例如“每月定投1000美元”）。"
            if reading.zh
            else 'Say how much is bought each time (e.g. "$1,000 every month").'
        )
        return True
    # (a named episode beside written dates dates nothing: 金融危机那几年…假设2007年1月到2009年12月)
    episodes = (
        {id(clause) for clause, _, _ in named_episodes(parsed.time, vocab.episodes)}
        if DATES_DECIDE in parsed.time.notes
        else set()
    )
    clauses = [c for c in parsed.time.clauses if id(c) not in episodes]
    as_contributions(reading, contributing, clauses, amount_span(parsed.text))
    return True


def _read_families(reading: Reading, parsed: Parsed, vocab: Vocab, after: AfterAsk | None) -> None:
    # "above thirty", "two times daily leverage": figures in words read as the digits they are.
    text = digits_for_words(parsed.text, vocab.time.numbers)
    numbers = vocab.time.numbers
    read_without_extremes(reading, text, numbers)  # "excluding the worst day": no name left out
    if reading.without_extremes is None:
        _exclude(reading, parsed)
    _lever(reading, text)
    read_basket(reading, parsed)  # "60/40 AAPL/MSFT": one holding
    read_weekdays(reading, parsed, text)
    if reading.status != "ok":
        return
    if {"max_drawdown", "drawdown"} & set(reading.metrics):
        for end in _DRAWDOWN_ENDS.finditer(text):  # 高点和低点分别在哪天: the drawdown's dates
            reading.family_spans.append((*end.span(), "the drawdown's peak and trough"))
        _peak_words_are_the_drawdowns(reading, parsed)
    for cost in COSTS_LEFT_OUT.finditer(text):
        # "ignore fees", 不计费用: every figure here is before costs, as it always is.
        reading.family_spans.append((*cost.span(), "before costs"))
    said = amount_span(text) if reading.amount is not None else None
    if said is not None:  # "5k", "1亿", "$1bn": the sum invested, scale and all
        reading.family_spans.append((*said, f"amount {reading.amount:,.0f}"))
    if reading.tables or "forecast" in reading.metrics:
        return
    condition = read_condition_ask(parsed)
    if condition is not None and reading.entities:
        as_condition(reading, condition)  # "on the days the S&P 500 fell more than 2%"
        return
    cross = read_cross_ask(text)
    if cross is not None and reading.entities:
        as_cross(reading, cross, _REPLACED | _DAYS | {"ma", "sma", "moving_average"})
        return
    first = read_first_ask(text)
    if (
        first is not None
        and first.level is None
        and first.back
        and read_recovery_ask(text) is not None
        and (named_peak := _peak_named_by_period(parsed, reading)) is not None
        and named_peak[0] < named_peak[1]
    ):
        # "哪天收盘重新站上那个高点" of 2007年10月的高点: that period's peak and its recovery,
        # read below (a peak named by its day, "its Feb 19 2020 record close", is that close)
        first = None
    if first is not None and first.level is not None and not first.back:
        counted = read_count_ask(text)
        if counted is not None and counted.threshold == first.level:
            # "在80块上面的有几天？第一次站上80是哪天": the count of the level's sessions,
            # with its first day, answers both
            first = None
    if (
        first is not None
        and reading.entities
        and as_first(reading, first, parsed, _REPLACED | _DAYS)
    ):
        return
    recovery = read_recovery_ask(text)
    fall = None
    if recovery is not None:
        fall = _named_fall(parsed, vocab, reading) or _fall_named_before(text, vocab, reading)
    asks_when = WHEN.search(text) or _HOW_LONG.search(text)  # or how long it took
    if recovery is not None and fall is not None and reading.entities and asks_when:
        _as_recovery(reading, recovery, fall)
        for span in before_fall_words(text):
            reading.family_spans.append((*span, "the peak before the fall"))
        return
    # "lost about 78% after its March 2000 peak before it finally bottomed", 从高点跌到谷底: a
    # fall said to run to the bottom is the fall from that peak to its trough.
    fell = bool(set(reading.metrics) & _RETURN_WORDS) or _FELL.search(text) is not None
    to_bottom = fell and _TO_THE_BOTTOM.search(text) is not None
    falls = recovery is not None or "max_drawdown" in reading.metrics or to_bottom
    peak = _peak_named_by_period(parsed, reading) if falls else None
    if recovery is not None and peak is not None and reading.entities and asks_when:
        _as_peak_recovery(reading, recovery, peak)
        return
    if recovery is None and peak is not None and reading.entities:
        # "how deep was the fall from its March 2000 record close": the same fall, its
        # recovery shown when there was one
        _as_peak_recovery(reading, None, peak)
        return
    fell_from_the_high = _FELL_FROM_THE_HIGH.search(text) if peak is None else None
    if (
        fell_from_the_high is not None
        and reading.entities
        and "max_drawdown" not in reading.metrics
    ):
        # 在年内从最高位跌了多少，哪天是最低点: the window's drawdown, dated peak to trough
        _drawdown_first(reading)
        reading.family_spans.append((*fell_from_the_high.span(), "the fall from the high"))
        for end in _DRAWDOWN_ENDS.finditer(text):
            reading.family_spans.append((*end.span(), "the drawdown's peak and trough"))
        for low in _THE_LOWEST_DAY.finditer(text):
            reading.family_spans.append((*low.span(), "the drawdown's trough"))
    how_long = _HOW_LONG.search(text)
    if recovery is not None and how_long and "max_drawdown" in reading.metrics and reading.entities:
        # "the max drawdown over 2018-2019, and how many calendar days from the peak until it
        # closed back at that peak": the window's drawdown, whose recovery the answer dates
        _as_window_recovery(reading, recovery, how_long.span())
        return
    streak = read_streak_ask(text)
    if streak is not None and reading.entities:
        # "how many up days, and the longest losing streak": the count asked in other words
        beside = read_count_ask(blanked(text, list(streak.spans)))
        if beside is not None and beside.condition in ("up", "down", "both"):
            _as_count(reading, beside)
        as_streak(reading, streak, _REPLACED | _DAYS | {"count_days"})
        return
    tally = read_period_tally(text)
    best = read_period_ask(blanked(text, list(tally.spans))) if tally is not None else None
    if (
        tally is not None
        and reading.entities
        and (best is None or best.frequency == tally.period)
        and not _measured_apart(
            parsed,
            tally.spans,
            _OWN_CHANGE.get(tally.period, ""),
            # (the best month's own size, "and by how much", is the period ask's)
            _PERIODS_OWN if best is not None else frozenset(),
        )
    ):
        # "How many months was KO up": the window's months counted by the sign of each return;
        # "…and which was the best month": the best of those months beside the count
        reading.frequency = tally.period
        _as_count(reading, CountAsk(tally.side, None, False, tally.spans))
        if best is not None:
            _as_period(reading, best, parsed, numbers, tally.spans)
        return
    ratio = read_ratio_ask(text)
    if ratio is not None and reading.entities:
        as_ratio(reading, ratio)  # "is how many times chevron's": a ratio, never a count
    growth = read_growth_multiple(text) if ratio is None else None
    if growth is not None and reading.entities:
        as_growth_multiple(reading, growth)  # 涨了几倍: the end over the start, never a count
        return
    count = read_count_ask(text) if ratio is None else None
    values = read_values_count(text) if count is None and ratio is None else None
    if (
        values is not None
        and reading.entities
        and all(e.frequency == values[0] for e in reading.entities)
    ):
        # "How many months was Brent above $100": a monthly series' values against the level.
        # A daily price's months are not counted (by its month-end close? every close?).
        reading.frequency, count = values  # type: ignore[assignment]
    if count is not None and reading.entities:
        run = _IN_A_ROW.search(text)
        if run is not None and count.condition not in ("up", "down"):
            # "高于8%的状态一共连续保持了几个月": the longest run of periods meeting a level, which
            # a count of all of them does not answer
            reading.status = "no_data"
            reading.message = (
                f"“{run.group(0)}”：我还不能统计满足条件的最长连续时段，只能统计满足条件的时段总数。"
                if reading.zh
                else f'"{run.group(0)}": I can\'t yet count the longest run of consecutive periods '
                "meeting a level, only how many periods met it in all."
            )
            return
        _as_count(reading, count, parsed)
        if count.condition in ("record_high", "record_low"):
            _records_window(reading, parsed)
        _count_with_extreme(reading, text)
        period = read_period_ask(text)
        if (
            period is not None
            and "period_extremes" not in reading.metrics
            and count.condition not in ("up", "down", "both")
            and not any(a < f and e < b for a, b in count.spans for e, f in period.spans)
        ):
            if len(period.sides) == 1 and {"yoy", "qoq", "mom"} & set(reading.metrics):
                # "同比…哪个季度最高…有几个季度在10%以上": the rate's highest quarter, dated,
                # never the quarters ranked by the index's own return
                (side,) = period.sides
                _as_when(reading, WhenAsk(side, period.frequency, period.spans), None, text)
            else:
                # "best week, worst week, and how many sessions moved more than 7%": both
                _as_period(reading, period, parsed, numbers, count.spans)
        return
    first_day = read_first_day_ask(text)
    if first_day is not None and reading.entities:
        as_first_day(reading, first_day, _REPLACED | _DAYS | {"period_extremes"})
        return
    distance = read_distance_ask(text) or read_distance_back(text)
    # (the move between the window's high and low, "range", is not the last close's distance)
    if (
        distance is not None
        and reading.entities
        and after is None
        and "range" not in reading.metrics
    ):
        _as_distance(reading, distance)
        return
    when = read_when_ask(text)
    if (volume_when := read_volume_when(text)) is not None and reading.price_entities:
        when = volume_when  # "which day had the heaviest volume": the volume's day, not a close's
        reading.metrics = ["volume", *(m for m in reading.metrics if m != "volume")]
    if volume_when is not None and reading.price_entities and _THAT_DAYS_MOVE.search(text):
        # "which day had the heaviest volume, and how much did it move that day": the day is
        # the volume's, whose own move no plan here computes; the day alone drops the move.
        reading.status = "no_data"
        reading.message = _move_on_a_found_day(reading.zh)
        reading.trace.append("the move on the day of the heaviest volume: not read")
        return
    since = _FROM_THAT_DAY.search(text)
    if (
        since is not None
        and when is None
        and reading.days is not None
        and reading.entities
        and _A_DAY.search(since.group(0))  # not "since then"
    ):
        # "spx worst day 2020 + date, and how much did it gain from that day to yr end": the day
        # is a best or worst day's, which no window here starts from; answering the day alone
        # would drop the gain asked.
        reading.status = "no_data"
        reading.message = _from_a_found_day(since.group(0), reading.zh)
        reading.trace.append("a window from the day of a best or worst day: not read")
        return
    if (
        since is not None
        and when is not None
        and when.label == "daily"
        and reading.entities
        and after is None
        and "range" not in reading.metrics
    ):
        # "When was its 2020 low? How much did it gain from that day to the end of the year?":
        # the day is the window's extreme, so the gain is the distance of the window's last close
        # from that extreme, answered with the extreme's day and value.
        side = "low" if when.side == "worst" else "high"
        _as_distance(reading, DistanceAsk(side, False, (*when.spans, since.span())))
        return
    if when is None and rolling_measure(reading) is not None:
        when = read_series_extreme(text) or read_rolling_extreme(text)
    if when is not None and when.label != "daily" and _return_of_the_extreme(parsed, when):
        # 涨幅最大的是哪个月, "which month had the biggest gain": the months ranked by their
        # return, never the month of the highest close.
        asked = PeriodAsk(frozenset({when.side}), when.label, when.spans)
        also = read_period_ask(text)
        if also is not None and also.frequency == when.label and when.side in also.sides:
            # "涨幅最大的是哪个月，跌得最狠的又是哪个月": the other side asked too
            asked = PeriodAsk(also.sides, when.label, (*when.spans, *also.spans))
        if reading.price_entities and not reading.days and _periods_in(reading, asked) >= 2:
            _as_period(reading, asked, parsed, numbers)  # 涨幅第二大 (最大的2个): the first two
            return
    if (
        when is not None
        and reading.entities
        and not reading.days
        and not _DATED & set(reading.metrics)
        # (a named month inside the span: a part of its own when the others are named periods)
        and (not _nested_window(parsed) or points_beside_a_span(parsed))
    ):
        _as_when(reading, when, _said_apart(parsed, when.spans), text)
        return
    period = read_period_ask(text)
    if period is not None and period.levels and not _rates_only(reading):
        period = None  # "the month with the highest close" of a price: no month's return
    if period is not None and _names_the_drawdowns_ends(reading, text, period.spans):
        # "高点取1973-74年中最高的季度，低点取…最低的季度": the drawdown's peak and trough, which
        # it dates, not the best and worst quarters by return
        reading.family_spans += [(s, e, "the drawdown's peak or trough") for s, e in period.spans]
        period = None
    if period is not None and reading.entities and len(period.sides) == 1:
        measured = _measure_of_the_period(parsed, period)
        if measured:
            # "which month had Brent at its biggest premium to WTI": the month of the spread's
            # highest value, never the months ranked by each price's return.
            (side,) = period.sides
            _as_when(reading, WhenAsk(side, period.frequency, period.spans), None, text)
            return
    if (
        period is not None
        and reading.entities
        and not reading.days
        and _periods_in(reading, period) >= 2
    ):
        # "the best year in 2020" ranks names, not years
        _as_period(reading, period, parsed, numbers)


def _measure_of_the_period(parsed: Parsed, period: PeriodAsk) -> bool:
    """Whether a spread or the volume is said inside, or right after, the words that ask for a
    best or worst period: that measure's extreme is asked, not the periods' returns."""
    return any(
        m in ("spread", "volume") and any(s <= hit.start <= e + 1 for s, e in period.spans)
        for m, hit in parsed.group("metric")
    )


# A day said in "from that day", 从那天 (not "since then", 从那时).
_A_DAY = re.compile(r"(?i)\b(?:day|date|session)\b|天|日")


# A found day's own move, asked of "that day": 那天涨跌幅多少, "its move that day".
_THAT_DAYS_MOVE = re.compile(
    r"(?i)\b(?:that|the\s+same)\s+day'?s\s+(?:move|change|return|gain|loss)"
    r"|\b(?:on\s+)?that\s+day\b[^.?!]{0,30}?\b(?:move|moved|change|changed|return|returned|"
    r"rose|rise|fell|fall|gain|gained|lose|lost)\b"
    r"|\b(?:move|moved|change|changed|return|returned|rose|rise|fell|fall|gain|gained|lose|lost)"
    r"\b[^.?!]{0,20}?\bthat\s+day\b"
    r"|(?:那天|当天|当日|那一天)[^，。？！?]{0,12}?(?:涨跌幅|涨幅|跌幅|涨了|跌了|涨跌|收益)"
)


def _move_on_a_found_day(zh: bool) -> str:
    """Why the move on the day of the heaviest volume is not answered."""
    if zh:
        return (
            "这里问的是成交量最大的那一天当天的涨跌幅，我还不能先找出这一天再计算它当天的涨跌；只回答那一天"
            "会漏掉问题的后半部分，所以不给出。可以先问出那一天，再写明日期问当天的涨跌幅。"
        )
    return (
        "This asks the move on the day of the heaviest volume, which the answer would have to "
        "find first; I can't yet measure that day's move, and answering the day alone would leave "
        "out the rest of the question. Ask for the day first, then ask its move with the date."
    )


def _from_a_found_day(said: str, zh: bool) -> str:
    """Why a change "from that day" after a best or worst day is not answered."""
    if zh:
        return (
            f"“{said}”指的是要先找出的涨跌幅最大的那一天，我还不能从这样的日子往后计算；只回答那一天会漏掉"
            "问题的后半部分，所以不给出。可以先问出那一天，再写明日期问后半部分。"
        )
    return (
        f'"{said}" is the best or worst day the answer would find first, and I can\'t yet measure '
        "from such a day; answering the day alone would leave out the rest of the question, so "
        "I won't. Ask for the day first, then ask the rest with the date written out."
    )


def _return_of_the_extreme(parsed: Parsed, when: WhenAsk) -> bool:
    """A return said right before or inside an extreme's words (涨幅最大, "biggest gain")."""
    first = min(s for s, _ in when.spans)
    last = max(e for _, e in when.spans)
    return any(
        m in ("return", "cumulative_return") and first - 3 <= hit.end and hit.start < last
        for m, hit in parsed.group("metric")
    )


# Each period's own change: what a count of periods up or down signs ("how many quarters had a
# negative q/q print" counts the quarters down).
_OWN_CHANGE = {"quarterly": "qoq", "monthly": "mom"}


def _measured_apart(
    parsed: Parsed,
    spans: tuple[tuple[int, int], ...],
    own: str = "",
    also: frozenset[str] = frozenset(),
) -> bool:
    """A measure said outside a count's words ("the average monthly return, and how many months
    were up"): the count goes beside that measure's figure, not instead of it. The counted
    periods' own change (`own`), and the measures `also` answered beside it, are the count's."""
    return any(
        not any(s <= hit.start and hit.end <= e for s, e in spans)
        for name, hit in parsed.group("metric")
        if name != own and name not in also
    )


# What a best or worst period beside a count of periods measures: each period's return.
_PERIODS_OWN = frozenset({"return", "cumulative_return", "period_extremes"})


# A day named earlier in the question, referred back to: "from that day", "since then", 从那天.
_FROM_THAT_DAY = re.compile(
    r"(?i)\b(?:from|since|after)\s+(?:that|this|the\s+same)\s+(?:day|date|point|low|bottom|high|"
    r"peak|close)\b|\b(?:from|since)\s+then\b"
    r"|(?:从|自|打|由)(?:那|这|当)(?:一)?(?:天|日|时|时候|个(?:低点|高点|点))|(?:那|这)(?:一)?天(?:以来|之后|以后|起)"
    # 最低点是哪天？到现在反弹了多少 / 现在比那时高了多少: from that day to the window's end
    r"|(?:比|较|相比)(?:那时|那天|当时|那时候|那一天)(?:候)?[^，,。？?]{0,3}?(?:高|低|涨|跌|反弹)了?(?:多少|几)?"
    r"|(?:到现在|至今|到今天|到目前|迄今)(?:为止)?[^，,。？?]{0,3}?(?:反弹|回升|回落|上涨|下跌|涨|跌)了?(?:多少|几)?"
)


def _nested_window(parsed: Parsed) -> bool:
    """A time phrase inside another's window ("what was it in January 2008, and the widest in
    2008-2009"): it asks a figure of its own that the window's one extreme does not give."""
    spans = [(c.start, c.end) for c in parsed.time.clauses if c.start and c.end]
    return any((a, b) != (c, d) and c <= a and b <= d for a, b in spans for c, d in spans)


# Measures a family's answer replaces: what the words of its phrase were otherwise read as.
_REPLACED = {"close", "value", "stats", "return", "cumulative_return", "mean", "median"}


def _exclude(reading: Reading, parsed: Parsed) -> None:
    removed, spans = read_exclusions(parsed)
    removed = [r for r in removed if any(e.id == r for e in reading.entities)]
    if not removed:
        return
    kept = [e for e in reading.entities if e.id not in removed]
    if not kept:
        return  # nothing would be left: the names were not a list to remove from
    reading.entities = kept
    reading.excluded = removed
    reading.family_spans += [(s, e, "exclusion: " + ", ".join(removed)) for s, e in spans]
    reading.notes.append(exclusion_note(removed, reading.zh))
    reading.trace.append(
        f"按要求排除：{'、'.join(removed)}"
        if reading.zh
        else f"left out, as asked: {', '.join(removed)}"
    )
    if len(kept) < 2:
        reading.rank = reading.compare = False


# Measures of returns a daily leverage applies to; a price level asked alone becomes a return.
_LEVERED = {"return", "cumulative_return", "annualized_return", "max_drawdown", "drawdown"}
_LEVERED |= {"investment_growth", "volatility", "sharpe", "best_day", "worst_day"}


def _lever(reading: Reading, text: str) -> None:
    """ "With 2x daily leverage": every return is of a position rebalanced daily to 2x."""
    found = read_leverage(text)
    if found is None or not reading.price_entities or reading.series_entities:
        return
    value, spans = found
    reading.leverage = value
    said = " ".join(text[start:end] for start, end in spans)
    if reading.frequency == "daily" and re.search(r"(?i)daily|每日|每天|日", said):
        rest = text
        for start, end in sorted(spans, reverse=True):
            rest = rest[:start] + " " + rest[end:]
        if not re.search(r"(?i)\bdaily\b|每日|每天|日收益|日度", rest):
            reading.frequency = None  # "daily" only said how the leverage is kept
            reading.trace = [t for t in reading.trace if "→ daily data" not in t]
    if not set(reading.metrics) & _LEVERED:
        reading.metrics = ["return", *(m for m in reading.metrics if m not in _REPLACED)]
    reading.family_spans += [(*span, f"{value:g}x daily leverage") for span in spans]
    times = f"{value:g}"
    reading.notes.append(
        f"按{times}倍每日杠杆计算：每天的收益率乘以{times}后按日复利，不计费用和融资成本。"
        if reading.zh
        else f"With {times}x daily leverage: each day's return is multiplied by {times} and "
        "compounded daily, before fees and financing costs."
    )
    reading.trace.append(
        f"{times}倍每日杠杆" if reading.zh else f"{times}x daily leverage on every return"
    )


# A count's condition and a period's frequency, as the Chinese trace says them.
_CONDITION_ZH = {
    "close_above": "收盘高于",
    "close_below": "收盘低于",
    "gain_beyond": "单日涨幅超过",
    "fall_beyond": "单日跌幅超过",
    "move_beyond": "单日涨跌幅超过",
    "up": "收涨",
    "down": "收跌",
    "above_ma": "收盘高于均线",
    "below_ma": "收盘低于均线",
    "both": "收涨与收跌",
    "sessions": "交易日",
}
_FREQUENCY_ZH = {"daily": "日", "weekly": "周", "monthly": "月", "quarterly": "季度"}
_FREQUENCY_ZH |= {"annual": "年"}


# The two ends of a drawdown, asked with it: its peak and its trough.
# ("which quarters were the peak and the trough" is the date reader's, not these words').
_DRAWDOWN_ENDS = re.compile(
    r"(?i)\b(?:peak|trough)(?:[-\s]+(?:and|&|to)[-\s]+(?:the\s+)?(?:peak|trough))?\s+dates?\b"
    r"|高点|低点|峰值|谷底|顶点|底部|最高点|最低点"
)


# A fall asked from the window's high, no period naming it: 在年内从最高位跌了多少, 由高位跌咗几多.
_FELL_FROM_THE_HIGH = re.compile(
    r"(?:从|由|自)(?:年内|当年|全年|那年|期间|今年|去年)?的?(?:最高点|最高位|高点|高位|峰值|顶部)"
    r"(?:开始)?(?:算起?)?(?:最多)?(?:跌|下跌|回撤|回落)"
)
# The day of the low asked: 哪日是最低那日, 哪天跌到最低, 最低点是哪天.
_THE_LOWEST_DAY = re.compile(
    r"哪(?:一)?(?:日|天)[^，。？?]{0,6}?最低(?:的?那(?:日|天)|点)?|最低(?:的?那(?:日|天)|点)?是哪(?:一)?(?:日|天)"
)
# The words of a drawdown's own ends, which alone would ask for summary statistics, and the
# words that tie one to the fall: "from its pre-pandemic closing high", 从高点.
_ENDS = re.compile(r"(?i)^(?:high|peak|top|高点|峰值|顶点|最高点)$")
_FROM = re.compile(r"(?i)\b(?:from|off)\b[^,.;:?!]{0,30}$|从[^，。？！；]{0,12}$")


_END_NAMED = re.compile(r"(?i)(?:高点|低点|峰值|谷底|\bpeak|\btrough)[^，。？！,.?!;；]{0,14}$")


def _names_the_drawdowns_ends(
    reading: Reading, text: str, spans: tuple[tuple[int, int], ...]
) -> bool:
    """Whether a best/worst-period phrase says which period is a drawdown's peak or trough."""
    if "max_drawdown" not in reading.metrics:
        return False
    return all(_END_NAMED.search(text[max(0, s - 16) : s]) for s, _ in spans)


_TROUGH = re.compile(r"(?i)^(?:low|lowest|bottom|trough)$")
_HIT = re.compile(r"(?i)\b(?:hit|reached|touched|made|set)\s+(?:its|their|the)\s+$")


def _peak_words_are_the_drawdowns(reading: Reading, parsed: Parsed) -> None:
    """ "How deep was the crash from its pre-pandemic closing high": the high is the drawdown's
    peak, which it dates and prices, not a request for the window's statistics of closes."""
    stats = [h for m, h in parsed.group("metric") if m == "stats"]
    text = parsed.text
    tied = [h for h in stats if _ENDS.match(h.text.strip()) and _FROM.search(text[: h.start])]
    if "max_drawdown" in reading.metrics:
        # "its maximum drawdown, and the date each hit its low point": the drawdown's trough
        tied += [
            h
            for h in stats
            if _TROUGH.match(h.text.strip()) and _HIT.search(text[max(0, h.start - 24) : h.start])
        ]
    if not stats or len(tied) != len(stats):
        return
    dropped = {"stats"}
    closes = [h for m, h in parsed.group("metric") if m == "close"]
    if all(any(0 <= s.start - c.end <= 1 for s in stats) for c in closes):
        dropped.add("close")  # "closing high": the peak's close
    reading.metrics = [m for m in reading.metrics if m not in dropped]
    for hit in stats:
        reading.family_spans.append((hit.start, hit.end, "the drawdown's peak or trough"))


def _records_window(reading: Reading, parsed: Parsed) -> None:
    """Records counted in a window: "all-time" says what a record beats (every close in the
    data), not the window counted in, which the other time words give ("during 2020")."""
    dated = [
        c
        for c in parsed.time.clauses
        if c.rule != "first" and c.start is not None and c.end is not None
    ]
    if dated:
        reading.start = min(c.start for c in dated if c.start is not None)
        reading.end = max(c.end for c in dated if c.end is not None)
        reading.explicit_window = True


def _as_count(reading: Reading, count: CountAsk, parsed: Parsed | None = None) -> None:
    # The best or worst days asked beside the count ("how many sessions moved more than 10%?
    # and what were its single best and worst days?", 有几天单日涨幅超过3%？最大单日涨幅是哪一天):
    # both answered
    apart = reading.days is not None and not any(
        s <= a < e or a <= s < b
        for a, b in count.spans
        for s, e, said in reading.family_spans
        if said.endswith("daily change")
    )
    apart = apart or any(
        m in ("best_day", "worst_day") and not any(a <= hit.start < b for a, b in count.spans)
        for m, hit in (parsed.group("metric") if parsed is not None else [])
    )
    kept = {"best_day", "worst_day"} if apart else set()
    reading.metrics = [
        "count_days",
        *(m for m in reading.metrics if m not in _REPLACED | _DAYS or m in kept),
    ]
    reading.count_condition = count.condition
    reading.threshold = count.threshold
    reading.count_inclusive = count.inclusive
    reading.family_spans += [(s, e, f"count: {count.condition}") for s, e in count.spans]
    # "how many sessions closed up more than 2%, how many closed down more than 2%": each count
    taken = list(count.spans)
    while len(reading.counted_also) < 3 and (other := read_count_ask(blanked(reading.text, taken))):
        if not set(other.spans) - set(taken) or other.condition in ("sessions", count.condition):
            break
        reading.counted_also.append((other.condition, other.threshold, other.inclusive))
        reading.family_spans += [(s, e, f"count: {other.condition}") for s, e in other.spans]
        taken += other.spans
    if count.condition in DATED_CONDITIONS:
        # "and when was the first one", 第一次收在3000点上方是哪一天: the count dates its first
        reading.family_spans += [
            (*f.span(), FIRST_COUNTED) for f in _FIRST_COUNTED.finditer(reading.text)
        ]
    reading.rank = False
    said = f" {count.threshold:g}" if count.threshold is not None else ""
    reading.trace.append(
        f"计数：满足条件（{_CONDITION_ZH.get(count.condition, count.condition)}{said}）的交易日数"
        if reading.zh
        else f"a count of sessions: {count.condition}{said}"
    )


# The first (or last) of the sessions counted, asked beside the count.
_FIRST_COUNTED = re.compile(
    r"(?i)\b(?:when|what|which)\s+(?:(?:day|date|session|one)\s+)?(?:was|were|is)\s+(?:the\s+)?"
    r"(?:first|last)\b(?:\s+(?:one|day|date|session|time|close))?"
    r"|\b(?:the\s+)?(?:date|day)\s+(?:of\s+)?(?:the\s+|its\s+)?(?:first|last)\b"
    r"(?:\s+(?:one|day|session|time|close))?"
    r"|\b(?:the\s+)?(?:first|last)\s+(?:day|date|session|time|close)\b"
    # "on what date did that first happen", "when did it first close above that mark"
    r"|\b(?:when|(?:on\s+)?(?:what|which)\s+(?:date|day))\b[^.?!,;]{0,30}?\bfirst\b"
    # 头一回…啥时候, 最早哪天, 第一天是几号, 第一次站上80是哪天
    r"|(?:第一次|首次|头一次|头一回|第一回|最后一次|第一天|最早|最晚)[^，,。？?；;]{0,16}?"
    r"(?:哪一?天|哪日|什么时候|啥时候|啥时|几时|几号|何时|哪个交易日)"
    r"|(?:哪一?天|什么时候|啥时候|何时)[^，,。？?；;]{0,8}?(?:第一次|首次|头一回|最后一次)"
)
_DAYS = {"best_day", "worst_day", "max_drawdown", "drawdown"}
# The window's extreme close asked beside a count: "and what was its highest close", 最高收盘是多少.
_LEVEL_EXTREME = re.compile(
    r"(?i)\b(?P<side>highest|lowest|peak|maximum|minimum|max|min)\s+(?:daily\s+)?(?:close|"
    r"closing\s+(?:level|price|value)|level|reading|value)\b"
    r"|(?P<zh>最高|最低)(?:的)?(?:收盘(?:价|点位)?|点位|点)|收盘(?:价)?(?P<zh2>最高|最低)"
    # the month or day of the window's peak: "which month was the year's peak", "when did it
    # peak", "the month Brent topped out", 月均价最高的是哪个月
    r"|\b(?:which|what)\s+(?:month|day|date|quarter)\s+(?:was|did)\s+(?:the\s+)?"
    r"(?:(?:year|window|period)['’]s\s+)?(?P<en2>peak|high|top|low|bottom|trough)"
    r"|\bwhen\s+did\s+(?:it|\w+)\s+(?P<en3>peak|top\s+out|bottom)"
    r"|\b(?:month|day|date)\s+(?:\w+\s+){0,2}?(?P<en4>topped|bottomed)\s+out\b"
    r"|\b(?P<en5>peak|low)\s+month\b"
    r"|(?:价|均价|值)?(?P<zh3>最高|最低)的?是哪(?:个|一)?(?:月|天|日|季度)"
)


def _count_with_extreme(reading: Reading, text: str) -> None:
    """A count of sessions and the window's highest (lowest) close beside it: both figures, the
    extreme with its day (`period_extremes` of the level)."""
    found = _LEVEL_EXTREME.search(text)
    if found is None or any(s <= found.start() < e for s, e, _ in reading.family_spans):
        return
    groups = ("side", "zh", "zh2", "en2", "en3", "en4", "en5", "zh3")
    said = next((found.group(g) for g in groups if found.group(g)), "").casefold()
    low = ("lowest", "minimum", "min", "最低", "low", "bottom", "trough", "bottomed")
    side = "worst" if said in low else "best"
    reading.metrics.append("period_extremes")
    reading.extreme_of = "level"
    reading.period_sides = side
    # a monthly series' highest value is its highest month
    coarse = {e.frequency for e in reading.entities} & {"monthly", "quarterly", "weekly"}
    reading.period_label = coarse.pop() if len(coarse) == 1 else "daily"
    reading.family_spans.append((*found.span(), f"date of the {side}"))
    reading.trace.append(
        f"以及区间内{'最高' if side == 'best' else '最低'}收盘及其日期"
        if reading.zh
        else f"and the window's {'highest' if side == 'best' else 'lowest'} close, with its date"
    )


# How long a recovery took, in the calendar days the answer states: "how long did it take",
# "how many calendar days", 多久, 用了多少天 (never trading days, which it does not count).
_HOW_LONG = re.compile(
    r"(?i)\bhow\s+(?:long|many\s+(?:calendar\s+)?days)\b"
    r"|多久|多长时间|(?:用了|花了|要)?(?:多少|几)(?:个)?(?:日历日|天|日(?![期子]))"
)


def _whole_history(reading: Reading) -> None:
    """The window from the first date any entity has data to today, said in no time words."""
    firsts = [e.first for e in reading.entities if e.first is not None]
    if not firsts:
        return
    reading.start = min(firsts)
    reading.end = reading.end if reading.explicit_window else reading.today
    reading.explicit_window = True
    reading.trace = [t for t in reading.trace if not t.startswith(("no time words", "未提时间"))]


def _as_distance(reading: Reading, distance: DistanceAsk) -> None:
    reading.metrics = ["distance", *(m for m in reading.metrics if m not in _REPLACED | _DAYS)]
    reading.peak_side = distance.side
    reading.family_spans += [
        (s, e, f"distance from the {distance.side}") for s, e in distance.spans
    ]
    reading.rank = False
    if distance.all_time:
        _whole_history(reading)
    weeks = re.search(r"(?i)52\s*(?:周|[-\s]?(?:weeks?|wks?|w)\b)", reading.text)
    one_day = reading.explicit_window and reading.start is not None and reading.start == reading.end
    if one_day and not weeks and not distance.all_time:
        _peak_before_the_day(reading)
    if (
        weeks
        and reading.end is not None
        and (reading.window or not reading.explicit_window or one_day)
    ):
        # "52-week high" / 52周高点: the 52 weeks to the window's end, never a rolling length.
        reading.window = None
        reading.start = reading.end - timedelta(weeks=52)
        reading.family_spans.append((*weeks.span(), "52 weeks"))
    word = "high" if distance.side == "high" else "low"
    reading.trace.append(
        f"离{'最高' if word == 'high' else '最低'}点的距离（%），高点日期与数值"
        if reading.zh
        else f"distance from the window's {word} in %, with its date and value"
        + (" (all the data: the all-time high)" if distance.all_time else "")
    )


def _named_fall(parsed: Parsed, vocab: Vocab, reading: Reading) -> tuple[date, date] | None:
    """The first and last days of the earliest-ending named episode the question dates its
    window by ("the COVID crash": 2020-02-19 to 2020-03-23), or None: a recovery is only read
    from a fall with days."""
    falls = [
        fall
        for _, _, episode in named_episodes(parsed.time, vocab.episodes)
        if (fall := _fall_of(episode, reading.today)) is not None
    ]
    return min(falls, key=lambda fall: fall[1]) if falls else None


def _fall_of(episode: Episode, today: date) -> tuple[date, date] | None:
    """An episode's first day and the day its fall bottomed (its low where it lists one, "the
    pandemic" running on long after the crash; else its last day), when that is past."""
    bottom = episode.low or episode.end
    if episode.start is None or bottom is None or bottom >= today:
        return None
    return episode.start, bottom


def _fall_named_before(text: str, vocab: Vocab, reading: Reading) -> tuple[date, date] | None:
    """The fall a peak is named by ("its pre-COVID high", "the pre-pandemic peak"), when the
    word after "pre-" names an episode."""
    for start, end in before_fall_words(text):
        word = re.sub(r"(?i)^pre-?", "", text[start:end])
        found = vocab.episodes.named(word) or vocab.episodes.named(f"the {word}")
        if found is not None and (fall := _fall_of(found[1], reading.today)) is not None:
            return fall
    return None


def _as_recovery(reading: Reading, span: tuple[int, int], fall: tuple[date, date]) -> None:
    """When a named fall was made good: the window's maximum drawdown with its trough within
    the fall's days ("the COVID crash", however deep a later fall was), whose peak close, trough
    and first close back at the peak (its recovery) are each dated. The window holds the fall's
    first day (its peak) even when the question dates it after the fall ("after the 2008
    crisis, when did it close back at its pre-crisis peak"): the peak is what was regained."""
    start, trough_by = fall
    if reading.start is not None and reading.start > start:
        reading.trace.append(
            f"收复的是{start}的高点：区间从{start}起"
            if reading.zh
            else f"the peak regained is the fall's first day: the window starts {start}"
        )
        reading.start = start
    if reading.end is not None and reading.end <= trough_by:
        # "金融危机前的高点" dates the window by the fall alone: its recovery came after it.
        reading.trace.append(
            f"收复在下跌之后：区间延至{reading.today}"
            if reading.zh
            else f"a recovery comes after the fall: the window runs to {reading.today}"
        )
        reading.end = reading.today
    reading.trough_by = trough_by
    kept = (m for m in reading.metrics if m not in _REPLACED | _DAYS)
    reading.metrics = ["max_drawdown", *kept]
    reading.rank = False
    reading.family_spans.append((*span, "the drawdown's recovery"))
    reading.trace.append(
        "收复高点 → 区间最大回撤及其高点、低点与收复日期"
        if reading.zh
        else "a recovery → the window's maximum drawdown, with its peak, trough and recovery dates"
    )


def _drawdown_first(reading: Reading) -> None:
    """The window's maximum drawdown as what is asked, in place of the returns, extreme days and
    session counts its words were also read as; nothing is ranked."""
    kept = (m for m in reading.metrics if m not in _REPLACED | _DAYS | {"count_days"})
    reading.metrics = ["max_drawdown", *kept]
    reading.rank = False


def _as_window_recovery(reading: Reading, recovery: Span, how_long: Span) -> None:
    """The window's maximum drawdown asked with how long its recovery took: the drawdown, whose
    answer dates its peak, trough and first close back at the peak and counts the calendar days
    from the peak to it (never a count of the window's sessions)."""
    _drawdown_first(reading)
    reading.family_spans.append((*recovery, "the drawdown's recovery"))
    start, end = min(recovery[0], how_long[0]), max(recovery[1], how_long[1])
    if re.search(r"[.?!。？！;；]", reading.text[start:end]):
        start, end = how_long  # said apart: the words between are another ask's
    reading.family_spans.append((start, end, "the calendar days from the peak to the recovery"))
    reading.trace.append(
        "最大回撤及收复：从高点到收复的日历日数"
        if reading.zh
        else "the maximum drawdown and its recovery: calendar days from the peak to it"
    )


# The low said of the period the peak is named by: 全年/年内/当年最低, "the year's low", "its
# lowest close that year".
_LOW_OF_THE_PERIOD = re.compile(
    r"(?:全年|年内|当年|同年|那年|该年)[^。？?]{0,20}?(?:最低|低点)"
    r"|(?i:\b(?:the|that|its)\s+year'?s\s+(?:highest\s+\w+\s+to\s+(?:its|the)\s+)?(?:low|lowest)\b)"
)


# Words setting out a claim to check ("true or false", 这是真的吗, 有人说, 係咪).
_CLAIM_CUE = re.compile(
    r"(?i)\b(?:true|false|right|correct|really|actually|claims?|claimed|says?|said|reckons?)\b"
    r"|真的|对吗|對嗎|对不对|是不是|是否|係咪|有人说|有人說|据说|據說|听说|聽說"
)
_PERIOD_DAYS = {"annual": (360, 366), "quarterly": (89, 92), "monthly": (27, 31)}


def _claimed_period(parsed: Parsed, period: PeriodAsk) -> date | None:
    """The first day of the one period a claim names as the best (worst): a time phrase of
    exactly one period of the frequency asked, inside the window the other phrases name."""
    if _CLAIM_CUE.search(parsed.text) is None or period.frequency not in _PERIOD_DAYS:
        return None
    low, high = _PERIOD_DAYS[period.frequency]
    clauses = [c for c in parsed.time.clauses if c.start is not None and c.end is not None]
    one = [c for c in clauses if low <= (c.end - c.start).days <= high]  # type: ignore[operator]
    wider = [c for c in clauses if (c.end - c.start).days > high]  # type: ignore[operator]
    for clause in one:
        if any(w.start <= clause.start and clause.end <= w.end for w in wider):  # type: ignore[operator]
            return clause.start
    return None


# The best period set against the worst: "by how many percentage points did its best quarter
# beat its worst", "the best-minus-worst spread", 最佳季度比最差季度多出几个百分点.
_BEST_LESS_WORST = re.compile(
    r"(?i)\bbest[-\s]+(?:minus|less|over)[-\s]+worst\b"
    r"|\bbest\s+(?:\w+\s+){0,2}(?:beat|outperform(?:ed)?|exceed(?:ed)?|top(?:ped)?)\s+(?:\w+\s+){0,2}"
    r"worst\b(?:\s+(?:one|quarter|month|year|week))?"
    r"|\b(?:gap|spread|difference)\s+between\s+(?:the\s+|its\s+)?best\s+(?:\w+\s+)?and\s+"
    r"(?:the\s+|its\s+)?worst\b"
    r"|(?:最好|最佳|最强)[^，。？?；;]{0,8}?比[^，。？?；;]{0,8}?(?:最差|最弱|最糟|最惨)[^，。？?；;]{0,8}?"
    r"(?:高出|多出|高|多|强)了?(?:多少|几)个?(?:百分点|点)?"
)
# Both sides asked, then how far apart the two are: "这两个月差了多少个点", "差距有多大",
# "two months apart by how many points", "the gap between them".
_GAP_OF_THE_TWO = re.compile(
    r"(?i)\b(?:gap|spread|difference|distance)\s+between\s+(?:them|the\s+two|those\s+two|both)\b"
    r"|\bhow\s+far\s+apart\b|\bhow\s+(?:many\s+(?:percentage\s+)?points|much)\s+"
    r"(?:separates?\s+(?:them|the\s+two|both)|apart)\b"
    r"|(?:相差|差了|差距|差值|差额|之差|差)(?:有)?(?:多少|多大|几大|几)个?(?:百分点|点)?"
)
# The best and the worst asked as a pair: 是哪两个月, "which two months".
_THE_PAIR = re.compile(r"(?i)哪两个|\bwhich\s+two\b")
# A run of consecutive periods asked ("连续保持了几个月", "consecutive months", "in a row").
_IN_A_ROW = re.compile(
    r"(?i)\bconsecutive\b|\bin\s+a\s+row\b|\bstraight\s+(?:months|quarters|years|days|weeks)\b|连续"
)
_RETURN_WORDS = {"return", "cumulative_return"}
# A fall said, in a claim too ("a columnist wrote that it lost about 78%").
_FELL = re.compile(
    r"(?i)\b(?:lost|los(?:e|es|ing)|f[ae]ll(?:s|en|ing)?|drop(?:s|ped|ping)?|declin(?:e|ed|es)|"
    r"crash(?:ed|es)?|plung(?:e|ed|es))\b|跌|亏"
)
_TO_THE_BOTTOM = re.compile(
    r"(?i)\b(?:bottom(?:ed|s)?|trough(?:ed)?|lowest\s+(?:close|point|level))\b"
    r"|谷底|见底|触底|最低点|低点|最低的?收盘价?|最低价|跌到(?:之后|后面|其后)?的?最低"
)


def _peak_named_by_period(parsed: Parsed, reading: Reading) -> tuple[date, date, Span] | None:
    """The first and last days of the period a peak is named by ("its October 2007 peak",
    "the record close of March 2000", 2007年10月的高点) and the words naming it, or None."""
    for clause in parsed.time.clauses:
        first, last = clause.start, clause.end
        if first is not None and clause.opens_on is not None:  # 从2007年10月的高点: that month
            last = period_holding(first, clause.opens_on)[1]
        if first is None or last is None or last > reading.today:
            continue
        named = peak_period_span(parsed.text, clause.span)
        if named is not None:
            return first, last, named
    return None


def _as_peak_recovery(
    reading: Reading, span: tuple[int, int] | None, peak: tuple[date, date, Span]
) -> None:
    """When a peak named by its period was regained: the fall from the highest close of that
    period to its lowest close before the first close back at it, each dated. The window runs
    from the period to today: a recovery is sought in all the data after the fall ("到2002年的
    低点" dates the trough, not where the search for the recovery stops)."""
    first, last, words = peak
    reading.start, reading.end = first, reading.today
    reading.peak_within = (first, last)
    low = _LOW_OF_THE_PERIOD.search(reading.text)
    if span is None and low is not None:
        # "2014年从全年最高收盘价跌到最低收盘价", "之后的年内最低": the low of that same period
        reading.trough_by = last
        reading.family_spans.append((*low.span(), "the low of the same period"))
    kept = (m for m in reading.metrics if m not in _REPLACED | _DAYS)
    reading.metrics = ["max_drawdown", *kept]
    reading.rank = False
    if span is not None:
        reading.family_spans.append((*span, "the drawdown's recovery"))
    reading.family_spans.append((*words, f"the peak: the highest close of {first}..{last}"))
    reading.trace.append(
        f"{first}至{last}的最高收盘 → 从该高点的跌幅、低点与收复日期（区间至{reading.end}）"
        if reading.zh
        else f"the peak is the highest close of {first}..{last} → its fall, trough and recovery "
        f"(the window runs to {reading.end})"
    )


def _peak_before_the_day(reading: Reading) -> None:
    """A distance asked on one day (2021年底距离当年高点): the peak is sought over the calendar
    period the question names for it (that year, that month), else over all the data to that
    day; never over the day alone, where every close is its own peak."""
    assert reading.end is not None
    end = reading.end
    named = read_peak_period(reading.text)
    if named is not None:
        period, span = named
        start = period_holding(end, period)[0]
        reading.family_spans.append((*span, f"the {period} of the peak"))
        said = {"year": "当年", "quarter": "当季", "month": "当月"}[period]
        reading.trace.append(
            f"高点取{said}（{start} 至 {end}）"
            if reading.zh
            else f"the high is sought over that {period} ({start} to {end})"
        )
    else:
        firsts = [e.first for e in reading.entities if e.first is not None]
        if not firsts:
            return
        start = min(firsts)
        reading.trace.append(
            f"高点取截至{end}的全部数据"
            if reading.zh
            else f"the high is sought over all the data to {end}"
        )
    reading.start = start


# Measures that already date their extremes (a drawdown's peak and trough, the best days).
_DATED = {"max_drawdown", "drawdown", "best_day", "worst_day", "investment_growth"}


# Measures of the window a clause of their own may ask beside a dated extreme.
_APART = {"mean", "median", "return", "cumulative_return"}
_SIZE_OF_IT = re.compile(
    r"(?i)^[^.?!。？]{0,4}[.?!。？,，]?\s*(?:(?:and\s+)?(?:by\s+)?how\s+much\b|(?:那个季度|当季|当月|那个月)?"
    r"(?:增长|上涨|涨|增加|下降|下跌|跌)(?:了|幅)?(?:多少|几)|(?:幅度|增幅|涨幅)(?:是|为|有)?多少)"
)


def _said_apart(parsed: Parsed, spans: tuple[tuple[int, int], ...]) -> set[str]:
    """Measures said outside the extreme's words ("the average rate …, and its highest?")."""
    return {
        m
        for m, hit in parsed.group("metric")
        if m in _APART and not any(s <= hit.start < e for s, e in spans)
    }


# The extreme is of each period's average: "which month had the highest average price",
# 哪个月的月均价最高.
_OF_AVERAGES = re.compile(
    r"(?i)^\s*(?:monthly\s+|quarterly\s+|yearly\s+|annual\s+)?(?:average|mean)\b"
    r"|^\s*的?\s*(?:月|季|年)?(?:平均|均价|均值)"
)
_AVERAGE_BEFORE_ZH = re.compile(r"(?:月|季|年)?(?:平均|均价|均值)[^，。？?,()（）;；!！]{0,6}$")


_STATISTICS = {"mean", "median"}


def _as_when(
    reading: Reading, when: WhenAsk, apart: set[str] | None = None, text: str = ""
) -> None:
    if when.label != "daily" and "mean" in reading.metrics and _of_averages(when, text):
        _as_period_level(
            reading,
            PeriodAsk(frozenset({when.side}), when.label, when.spans),
            {"mean"},
        )
        return
    of_series = rolling_measure(reading)
    # "When was inflation highest": the peak of the year-over-year change the name implies,
    # never of the index level beside it.
    change = next((m for m in reading.metrics if m in ("yoy", "qoq", "mom", "pop")), None)
    volume = "volume" if "volume" in reading.metrics and reading.price_entities else None
    reading.extreme_of = of_series or change or volume or "level"
    after = text[max((e for _, e in when.spans), default=0) :]
    if change and apart and _SIZE_OF_IT.search(after):
        # "环比增长最快的是哪个季度？增长了多少？": how much it grew that quarter, the extreme's
        # own size, never the window's change beside it.
        apart = apart - {"return", "cumulative_return"}
    # A spread or the volume is computed first, then its extreme.
    spread = [m for m in reading.metrics if m in ("spread", "volume")]
    dropped = (_REPLACED - (apart or set())) | {"volatility", "correlation", "spread", "volume"}
    if of_series and set(reading.metrics) & _STATISTICS:
        # "the average 30-day rolling volatility over 2022, and its highest reading": the
        # average is of the rolling measure too, never of the closes.
        dropped -= {of_series}
    reading.metrics = [
        *spread,
        "period_extremes",
        *(m for m in reading.metrics if m not in dropped),
    ]
    reading.period_sides = when.side
    reading.period_label = when.label
    reading.rank = False
    reading.family_spans += [(s, e, f"date of the {when.side}") for s, e in when.spans]
    if not reading.explicit_window and reading.extreme_of != "returns":
        _whole_history(reading)  # "when was unemployment highest": ever, not in the past year
    what = f"rolling {of_series}" if of_series else "value"
    high = "highest" if when.side == "best" else "lowest"
    reading.trace.append(
        f"{'最高' if when.side == 'best' else '最低'}值及其日期"
        if reading.zh
        else f"the {high} {what} of the window, with its date"
    )


def _of_averages(when: WhenAsk, text: str) -> bool:
    """Whether the extreme asked is of each period's average: the average word right after
    the side ("the highest average") or, in Chinese, right before it (月均价最高)."""
    for start, end in when.spans:
        side = re.search(r"(?i)highest|lowest|最高|最低", text[start:end])
        if side is None:
            continue
        at = start + side.end()
        if _OF_AVERAGES.match(text[at:]) or _AVERAGE_BEFORE_ZH.search(text[: start + side.start()]):
            return True
    return False


_MONTHS = {"weekly": 0.25, "monthly": 1, "quarterly": 3, "annual": 12}


def _periods_in(reading: Reading, period: PeriodAsk) -> float:
    """About how many periods of the asked length the window holds."""
    if reading.start is None or reading.end is None:
        return 2.0  # the whole history
    months = (reading.end - reading.start).days / 30.44
    return months / _MONTHS[period.frequency] + (0.0 if period.frequency != "weekly" else 0.1)


# A clause boundary: what separates two asks ("gain in 2021, and which was its worst month").
_CLAUSE = re.compile(r"(?i)[,，;；?？!！]|\band\b|\bplus\b|以及|并且|同时")
_PERIODIC = re.compile(r"(?i)daily|weekly|monthly|quarterly|annual|yearly|每|日|周|月|季|年度")


_SENTENCE_END = re.compile(r"[.?!。？！]")


def _whole_window_return(
    parsed: Parsed, period: PeriodAsk, taken: Sequence[tuple[int, int]] = ()
) -> list[str]:
    """ "How much did it gain in 2021, and which was its worst month?": a return said in a
    clause of its own before the period's phrase asks the window's return too (not one another
    ask took: `taken`, 单日跌幅超过7%的有几天)."""
    first, last = min(s for s, _ in period.spans), max(e for _, e in period.spans)
    for metric, hit in parsed.group("metric"):
        if metric not in ("return", "cumulative_return") or _PERIODIC.search(hit.text):
            continue
        if any(s <= hit.start < e for s, e in taken):
            continue
        if hit.end <= first and _CLAUSE.search(parsed.text[hit.end : first]):
            return ["return"]
        # "which month was best? And the compounded return over the whole period?": a return
        # asked in a sentence of its own after the period's
        if hit.start >= last and _SENTENCE_END.search(parsed.text[last : hit.start]):
            return ["return"]
    return []


def _as_period(
    reading: Reading,
    period: PeriodAsk,
    parsed: Parsed,
    numbers: Mapping[str, int],
    taken: Sequence[tuple[int, int]] = (),
) -> None:
    inside = {
        m
        for m, h in parsed.group("metric")
        if any(s <= h.start and h.end <= e for s, e in period.spans)
    }
    if _ANNUALISED.search(parsed.text):
        # "…the largest quarter-on-quarter drop, and what is it at an annualized rate": each
        # quarter's change compounded to a year is shown beside the ranking.
        inside -= {"qoq", "mom"}
    count = period.count(parsed.text, numbers)
    if count == 2 and period.which == "both" and _THE_PAIR.search(parsed.text):
        count = None  # 最高和最低是哪两个月, "which two months were best and worst": one each
    if reading.top_k is None and count is not None:
        reading.top_k = count  # "the best three quarters", 最好的3个月
    if _rates_only(reading):
        _as_period_level(reading, period, inside)
        return
    whole = _whole_window_return(parsed, period, taken)
    # "the simple average of the annual returns, and which single year was the worst": the
    # mean of the same periods' returns, beside their ranking
    averaged = [m for m in ("mean", "median") if m in reading.metrics and m not in inside]
    reading.metrics = [
        "period_extremes",
        *(m for m in reading.metrics if m not in _REPLACED and m not in inside),
        *whole,
        *averaged,
    ]
    reading.metrics = [m for m in reading.metrics if m not in ("best_day", "worst_day")]
    reading.frequency = period.frequency  # type: ignore[assignment]
    reading.period_sides = period.which
    reading.family_spans += [(s, e, f"{period.which} {period.frequency}") for s, e in period.spans]
    reading.rank = True  # the periods are what is ranked
    claimed = _claimed_period(parsed, period) if period.which != "both" else None
    if claimed is not None:
        # "the Nasdaq's best year from 2003 through 2018 was 2009 — true?": that year's return
        # and its place among the years, beside the best
        reading.claimed_period = claimed
    gap = _BEST_LESS_WORST.search(parsed.text) or _GAP_OF_THE_TWO.search(parsed.text)
    if period.which == "both" and gap is not None:
        # "by how many points did its best quarter beat its worst", 最好季度比最差季度高出多少
        reading.extremes_gap = True
        reading.family_spans.append((*gap.span(), "the best period less the worst"))
    reading.trace.append(
        f"按{_FREQUENCY_ZH.get(period.frequency, period.frequency)}收益率找出"
        f"最{'好' if period.which == 'best' else '差'}的时段"
        if reading.zh
        else f"the {period.which} {period.frequency} period(s) by return, with their dates"
    )


_ANNUALISED = re.compile(r"(?i)\bannuali[sz]ed\b|\bannual\s+rate\b|年化")


def _rates_only(reading: Reading) -> bool:
    """Every name a rate (unemployment, a yield, a T-bill rate): its periods rank by level. A
    series of returns (a Fama–French factor) is compounded over each period instead."""
    return bool(reading.entities) and all(
        e.kind != "stock"
        and (e.units or "").casefold() in ("percent", "%")
        and e.measure != "returns"
        for e in reading.entities
    )


def _as_period_level(reading: Reading, period: PeriodAsk, inside: set[str]) -> None:
    """ "A rate's highest quarter": the quarter whose average level is highest, never the
    rate's % change; a measure said in a clause of its own ("the average rate") stays."""
    reading.extreme_of = "period_mean"
    reading.period_label = period.frequency
    # Each period's mean is taken of the data as it comes; 月均 is that grouping, never the data
    # cut down to one value a month first.
    reading.frequency = None
    reading.period_sides = period.which
    kept = [m for m in reading.metrics if m not in inside and m not in _CHANGES]
    reading.metrics = ["period_extremes", *kept]
    reading.family_spans += [(s, e, f"{period.which} {period.frequency}") for s, e in period.spans]
    reading.rank = False
    unit = {"weekly": "week", "monthly": "month", "quarterly": "quarter", "annual": "year"}
    said = unit.get(period.frequency, period.frequency)
    zh_unit = {"week": "周", "month": "月", "quarter": "季度", "year": "年"}.get(said, said)
    rate = _rates_only(reading)
    reading.notes.append(
        f"{'利率的' if rate else '每个'}{zh_unit}按其平均水平（该{zh_unit}内观测值的均值）排序"
        + ("，而不是按变动率。" if rate else "。")
        if reading.zh
        else f"{'A rate' if rate else 'Each'}{'’s' if rate else ''} {said} is ranked by its "
        f"average level (the mean of its values in the {said})"
        + (", not by its % change." if rate else ".")
    )
    reading.trace.append(
        f"按{zh_unit}平均水平排序的最{'高' if period.which == 'best' else '低'}{zh_unit}"
        if reading.zh
        else f"the {period.which} {said}(s) by the {said}'s average level"
    )


_CHANGES = {"return", "cumulative_return", "value", "close", "stats", "period_extremes"}
