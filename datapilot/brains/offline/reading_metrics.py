"""Reading which measures a question asks for (returns, volatility, statistics of them…)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.clauses import clauses
from datapilot.brains.offline.exclusions import (
    DIVIDENDS_COUNTED,
    DIVIDENDS_LEFT_OUT,
    DIVIDENDS_OF_THE_ASKER,
)
from datapilot.brains.offline.extreme_days import read_day_ask
from datapilot.brains.offline.family_asks import BETWEEN_EXTREMES, RANGE_ASK
from datapilot.brains.offline.honour import FIGURE, GAP, claimed_figure, in_percent
from datapilot.brains.offline.how_much import bounds_a_move, names_the_start
from datapilot.brains.offline.measures import (
    GENERIC_CHANGE,
    LIVE_ONLY,
    qualifying_returns,
    refine,
)
from datapilot.brains.offline.parsing import Parsed
from datapilot.brains.offline.phrases import mask
from datapilot.brains.offline.vocab import Vocab

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading

# --- metrics -----------------------------------------------------------------------------------

_MODIFIERS = {"mean", "median", "stats", "forecast"}
# Words that look ahead: a period after the data is a forecast only when the question asks for
# one ("what will AAPL close at next year"); "AAPL's return in 2024" when the data ends in 2022
# has no data, never a forecast.
_AHEAD = re.compile(
    r"(?i)\b(will|would|going to|gonna|expected|expect|projected|next|upcoming|coming|ahead|"
    r"future)\b|会|将|未来|预期|明年|明天|下个|下一|接下来|今后|往后"
)


# Windows of one priced name ranked as better or worse: their returns are compared.
_BETTER = re.compile(r"(?i)\b(?:better|worse|best|worst|outperform\w*)\b|更好|更差|好于|差于|表现")


def asks_ahead(text: str) -> bool:
    """Whether the question looks ahead (a forecast), not back at a period without data."""
    return _AHEAD.search(text) is not None


# The two ends of a ranking after "gap between" / "difference between".
_RANKING_ENDS = re.compile(
    r"(?i)\s*(?:between\s+|from\s+)?(?:the\s+)?(?:(?:best|top|highest|biggest|leader|winner|first)\b"
    r"|#\s*1\b|no\.?\s*1\b)[^.?!;]{0,40}?(?:\b(?:worst|bottom|lowest|smallest|laggard|loser|last)\b"
    r"|#\s*\d+\b)"
)


def _change_between_ends(metrics: list[str], parsed: Parsed, reading: Reading) -> list[str]:
    """A bare "change" between the two ends of a range ("how much did GDP change from Q4 2007
    to Q2 2009") is the change from one end to the other, not each period's on the one before;
    a level of a percent series changes in percentage points (the ledger's gap)."""
    words = [hit.text.casefold() for metric, hit in parsed.group("metric") if metric == "pop"]
    if "pop" not in metrics or not words or any(w not in GENERIC_CHANGE for w in words):
        return metrics
    # "the close on Aug 1 … to its close on Jan 17, what was the change? And the lowest close in
    # between": the closes and their extreme are asked beside the change, which is still one.
    if set(metrics) - {"pop", "close", "value", "stats"}:
        return metrics
    ranged = any(c.rule == "range" for c in parsed.time.clauses)
    # "How much did the S&P 500 change in 2020", "AAPL change over the past 5 days": a window
    # said with no period of change ("daily", 月度) is changed across too, never its last day's
    # change on the day before.
    across = parsed.time.explicit and not any(h.group("freq") for h in parsed.hits)
    if not (ranged or across):
        return metrics
    reading.trace.append(
        "从…到…的变化 → 两端之间的变化"
        if reading.zh
        else "a change from one date to another → between the two ends"
    )
    # A calendar window's change is from the last value before it; a range's, a rate's in
    # points, as "by how many percentage points did it change in 2008" is.
    change = "value" if ranged and in_percent(reading) else "return"
    return [change if m == "pop" else m for m in metrics]


# A change that names its own comparison period: "year-over-year", 同比, "q/q".
_CHANGE_OF_A_PERIOD = re.compile(
    r"(?i)year|yoy|y/y|quarter|qoq|q/q|month|mom|m/m|同比|环比|年|季|月"
)


def _growth_over_a_basis(metrics: list[str], parsed: Parsed, reading: Reading) -> list[str]:
    """ "GDP growth in Q2 2009 over Q1 2009": a plain growth word measured between the two
    periods the basis names, never the year-over-year change it means alone."""
    if not parsed.time.basis:
        return metrics
    plain = {
        m
        for m, hit in parsed.group("metric")
        if m in ("yoy", "qoq", "mom") and not _CHANGE_OF_A_PERIOD.search(hit.text)
    }
    if not plain:
        return metrics
    change = "value" if in_percent(reading) else "return"
    reading.trace.append(
        "增长按两个时期之间的变化计"
        if reading.zh
        else "growth → the change between the two periods"
    )
    return list(dict.fromkeys(change if m in plain else m for m in metrics))


# A frequency right before an average word: "monthly avg", "quarterly average".
_PERIOD_BEFORE = re.compile(r"(?i)\b(monthly|quarterly|annual|yearly)[\s-]*$")


def _averages_are_the_values(reading: Reading, text: str, at: int) -> bool:
    """Whether "monthly avg" said right before `at` names what every entity's values already
    are (each month's average of a monthly series), not a mean to take of them."""
    said = _PERIOD_BEFORE.search(text[max(0, at - 12) : at])
    if said is None or not reading.entities:
        return False
    frequency = "annual" if said.group(1).casefold() == "yearly" else said.group(1).casefold()
    return all(e.frequency == frequency and e.kind != "stock" for e in reading.entities)


# Statistics words that ask the spread of values (which the summary statistics give beside the
# mean), not an extreme ("peak").
_DISPERSION = re.compile(r"(?i)std|standard\s+dev|deviation|variance|标准差|方差")
# A course or its homework named after "stats", 统计: "stats hw", "statistics class", 统计作业.
_COURSE = re.compile(
    r"(?i)\s*(?:hw|homework|class|course|exam|assignment|quiz|problem\s+set|101)\b"
    r"|\s*(?:学)?(?:作业|课|考试|练习)"
)
_RUN_EDGE = re.compile(r"(?i)peaks?|troughs?|高点|低点|峰值|谷底")
# What a range question's words are also read as: its two ends' words, and the level itself.
_RANGE_READS = {"range", "spread", "stats", "close", "value", "mean"}
# "How's Apple doing", "how did it do", "how has it performed": the return over the window,
# asked beside another measure (a best day, a volatility) that would otherwise stand alone.
_HOW_IS_IT_DOING = re.compile(
    r"(?i)\bhow(?:'s|\s+is|\s+has|\s+did|\s+was|\s+were|\s+are|\s+have)\s+"
    r"[\w&.'’ -]{1,40}?\s+(?:doing|done|do|performing|performed|fared?)\b"
)
_BESIDE_A_RETURN = {"best_day", "worst_day", "volatility", "max_drawdown", "stats"}
# A high or a low said beside a drawdown: its peak or its trough.
_A_FALLS_END = re.compile(
    r"(?i)highs?|lows?|peaks?|troughs?|tops?|bottoms?|高点|低点|最高点|最低点"
)
# Extremes said of the closes themselves: "highest and lowest closes", 收盘价最高和最低,
# 最高和最低收盘价.
_EXTREMES_OF_CLOSES = re.compile(
    r"(?i)\b(?:highest|lowest|high|low|max(?:imum)?|min(?:imum)?)\s+(?:and\s+(?:the\s+)?"
    r"(?:highest|lowest|high|low|max(?:imum)?|min(?:imum)?)\s+)?(?:(?:daily|adjusted)\s+)*(?:closes?|"
    r"closing\s+(?:prices?|levels?)|prices?)\b"
    r"|收盘价?(?:的)?(?:最高|最低)(?:和|与|、|跟)?(?:最高|最低)?"
    r"|(?:最高|最低)(?:和|与|、|跟)?(?:最高|最低)?的?收盘价?"
)
# The move asked between the window's two extremes: "how far did it fall" before "from that
# high down to that low", 涨了百分之多少 after 从那个最低点到最高点.
_MOVE_ASKED_BEFORE = re.compile(
    r"(?i)\bhow\s+(?:far|much)\s+(?:did|has|had|does)\s+(?:it|they|\w+)\s+"
    r"(?:fall|drop|decline|slide|rise|climb|gain|jump|rally)(?:en)?\s*$"
)
_MOVE_ASKED_AFTER = re.compile(
    r"^(?:涨|跌|上涨|下跌|涨了|跌了|上涨了|下跌了)(?:百分之)?(?:多少|几)(?:个百分点|%)?"
    r"|^,?\s*in\s+(?:%|percent(?:age)?(?:\s+terms)?)"
)


# Names set against each other period by period: "every year", "year by year", 每年都, 逐年.
_PERIOD_BY_PERIOD = re.compile(
    r"(?i)\bevery\s+(?:single\s+)?(?:year|quarter|month)\b|\b(?:year|quarter|month)[-\s]by[-\s]"
    r"(?:year|quarter|month)\b|每年都|每一年都|逐年|年年都|每年各|每一年各|各年"
)


def read_metrics(reading: Reading, parsed: Parsed, vocab: Vocab) -> None:
    metrics: list[str] = []
    gaps = [g.span() for g in GAP.finditer(parsed.text)]
    drawdown = any(m == "max_drawdown" for m, _ in parsed.group("metric"))
    told = _told_sentences(parsed) + _quoted_names(parsed)
    # "From the close on June 20, 2014 to the close on Feb 11, 2016 (roughly oil's peak to its
    # trough)": what the window was, said in brackets after it, asks no measure
    described = _window_described(parsed)
    reading.family_spans += [(s, e, "what the window was") for s, e in described]
    told += described
    indices = bool(reading.entities) and all(e.kind == "index" for e in reading.entities)
    # "(index level, no dividends)": a caveat an index's levels meet, no dividend data asked
    met = [found.span() for found in DIVIDENDS_LEFT_OUT.finditer(parsed.text)] if indices else []
    reading.family_spans += [(s, e, "no dividends: index levels") for s, e in met]
    # "total return incl. dividends (adj close)" of stocks: their adjusted closes reinvest each
    # dividend, so the return asked is theirs (an index's levels hold none: still declined)
    adjusted = bool(reading.entities) and all(e.kind in ("stock", "etf") for e in reading.entities)
    counted = [f.span() for f in DIVIDENDS_COUNTED.finditer(parsed.text)] if adjusted else []
    if counted:  # said once how they count, every mention of them is that ("living off
        # dividends … with dividends reinvested (adjusted closes)")
        counted += [
            (h.start, h.end)
            for _, h in parsed.group("metric")
            if re.fullmatch(r"(?i)dividends?|分红|股息", h.text)
        ]
    reading.family_spans += [(s, e, "dividends reinvested: adjusted closes") for s, e in counted]
    met += counted
    asker = [f.span() for f in DIVIDENDS_OF_THE_ASKER.finditer(parsed.text)]
    reading.family_spans += [(s, e, "who asks: no measure") for s, e in asker]
    met += asker
    for metric, hit in parsed.group("metric"):
        if any(s <= hit.start < e for s, e in met):
            continue
        if any(s <= hit.start < e for s, e in told):
            continue  # "My pension is tied to core inflation. How much did core CPI rise …"
        if metric == "mean" and _averages_are_the_values(reading, parsed.text, hit.start):
            # "Brent (monthly avg)": a monthly series' values are its months' averages
            reading.family_spans.append((hit.start, hit.end, "the series' own averages"))
            continue
        if metric == "stats" and _COURSE.match(parsed.text, hit.end):
            continue  # "stats hw:", 统计作业: the course the question is for, not a measure
        if drawdown and metric == "stats" and _RUN_EDGE.fullmatch(hit.text):
            continue  # "its maximum drawdown (peak and trough dates)": the drawdown's own ends
        if metric in ("close", "value") and any(s <= hit.start and hit.end <= e for s, e in gaps):
            continue  # "by how many percentage points": the unit of a difference, not a level
        if names_the_start(hit, parsed.time):
            continue  # "since its IPO day close (May 18 2012)": the day, not the measure
        if metric == "close" and bounds_a_move(hit, parsed.text):
            continue  # "between the 2019 year-end close and the 2021 year-end close": the ends
        if metric == "spread" and _RANKING_ENDS.match(parsed.text[hit.end :]):
            continue  # "the gap between the best and the worst": a ranking's gap, not a spread
        if metric not in metrics:
            metrics.append(metric)
            respelt = next((r.said for r in parsed.respelled if r.read == hit.text), None)
            said = respelt or hit.text  # the user's own words ("Sharp ratio"), not the respelling
            meant = _METRIC_WORDS.get(metric, metric)
            if metric == "close" and reading.bar_field is not None:
                meant = f"each day's {reading.bar_field} (the daily bar's, not its close)"
            reading.trace.append(f'"{said}" → {meant}')
    prices, series = bool(reading.price_entities), bool(reading.series_entities)
    metrics = _drop_qualifiers(metrics, parsed)
    metrics = _change_between_ends(metrics, parsed, reading)
    metrics = _growth_over_a_basis(metrics, parsed, reading)
    # Rates: a factor's returns, a series in percent (a yield, a rate) or a level series asked
    # as its rate of change ("CPI inflation year over year … how many points did it drop");
    # never a level series alone, such as GDP, whose growth over a window is its change.
    of_change = bool(set(metrics) & {"yoy", "qoq", "mom"})
    rates = reading.entities and all(
        (e.kind == "factor" and e.measure == "returns")
        or (e.kind == "macro" and (of_change or e.units.casefold() in ("percent", "%")))
        for e in reading.entities
    )
    compounding = rates and all(e.measure == "returns" for e in reading.entities)
    if compounding and "return" in metrics and not reading.frequency:
        # A factor's return over a window is its monthly returns compounded, one figure.
        metrics = list(dict.fromkeys("cumulative_return" if m == "return" else m for m in metrics))
        reading.trace.append(
            "收益率序列在区间内复利累计：∏(1 + r) − 1"
            if reading.zh
            else "a series of returns over a window → compounded: ∏(1 + r) − 1"
        )
    elif rates and "return" in metrics:
        # A bond yield (收益率) or a factor's monthly returns: its values are what is asked.
        metrics = list(dict.fromkeys("value" if m == "return" else m for m in metrics))
        reading.trace.append("a yield, rate or return series: its values")
    if "value" in metrics and any(m not in _MODIFIERS | {"value", "close"} for m in metrics):
        metrics.remove("value")  # "data", "series": a weak word beside a real measure
    future = parsed.time.future and asks_ahead(parsed.text)
    if (parsed.time.horizon or future) and "forecast" not in metrics:
        metrics.append("forecast")
        reading.trace.append("a future period → forecast")
    if prices and not series and "value" in metrics:
        metrics[metrics.index("value")] = "close"
    if series and not prices and "close" in metrics:
        metrics[metrics.index("close")] = "value"
    ranged = RANGE_ASK.search(parsed.text)
    # "how far did it fall from that high down to that low": the fall is the move between them
    between = ranged is not None and BETWEEN_EXTREMES.fullmatch(ranged.group(0)) is not None
    if between:
        metrics = [m for m in metrics if m != "return"]
    if ranged and not set(metrics) & {"return", "volatility", "volume"}:
        # "the difference between its highest and lowest close": the window's high less its low,
        # never a spread of two series nor the statistics beside it.
        metrics = ["range", *(m for m in metrics if m not in _RANGE_READS)]
        reading.family_spans.append((*ranged.span(), "the high less the low"))
        reading.trace.append("最高与最低之差" if reading.zh else "the high less the low")
        if between:  # "how far did it fall" before it, 涨了百分之多少 after it: the move asked
            start, end = ranged.span()
            asked = _MOVE_ASKED_BEFORE.search(parsed.text[max(0, start - 40) : start])
            if asked is not None:
                reading.family_spans.append((max(0, start - 40) + asked.start(), start, "the move"))
            after = _MOVE_ASKED_AFTER.match(parsed.text[end:])
            if after is not None:
                reading.family_spans.append((end, end + after.end(), "the move"))
    if "yoy" in metrics or "spread" in metrics or "ratio" in metrics:
        metrics = [m for m in metrics if m not in ("value", "close")]
    several = len(reading.entities) >= 2 or reading.members_named  # members: a list
    if reading.chart == "scatter" and several and "correlation" not in metrics:
        metrics.append("correlation")
        reading.trace.append("a scatter of several entities → their correlation")
    if any(m in metrics for m in ("correlation", "volatility")) and qualifying_returns(parsed):
        # "correlated returns", "volatility of returns": the returns are the input, not a chart.
        metrics = [m for m in metrics if m not in ("return", "cumulative_return")]
    # (a number inside a name counts no days: "S&P 500 largest single-day decline")
    named = mask(parsed.text, [m.span for m in parsed.mentions])
    days = read_day_ask(named, vocab.time.numbers)
    if days is not None:
        reading.days = days.n or days.count
        reading.day_span = days.sessions
        length = "daily" if days.sessions == 1 else f"{days.sessions}-session"
        reading.family_spans += [(s, e, f"{days.which} {length} change") for s, e in days.spans]
    metrics, refined = refine(
        metrics,
        parsed,
        annualize=reading.annualize,
        zh=reading.zh,
        days=days,
        amount=reading.amount,
    )
    reading.trace.extend(refined)
    ends = [h for m, h in parsed.group("metric") if m == "stats"]
    if "max_drawdown" in metrics and ends and all(_A_FALLS_END.fullmatch(h.text) for h in ends):
        # "the worst drop from a high to a low, the date of the high and the date of the low":
        # the drawdown's peak and trough, which it dates, never the daily returns' statistics
        metrics = [m for m in metrics if m != "stats"]
    if "stats" in metrics and "return" in metrics and _EXTREMES_OF_CLOSES.search(parsed.text):
        # "its return, and its highest and lowest closes in that period": the closes' extremes
        # beside the return, never the statistics of daily returns alone
        reading.stats_of_levels = True
        reading.trace.append(
            "收益率，另加区间内收盘价的最高与最低"
            if reading.zh
            else "the return, and the closes' highs and lows"
        )
    dispersion = any(m == "stats" and _DISPERSION.search(h.text) for m, h in parsed.group("metric"))
    if dispersion and {"mean", "median"} & set(metrics):
        # "the average and the sample standard deviation": the summary statistics hold both
        metrics = [m for m in metrics if m not in ("mean", "median")]
    doing = _HOW_IS_IT_DOING.search(parsed.text)
    if doing and prices and "return" not in metrics and set(metrics) & _BESIDE_A_RETURN:
        # "how's apple doing ytd? also what was its single best day": its return, and the day
        metrics.insert(0, "return")
        reading.family_spans.append((*doing.span(), "how it did: its return"))
        reading.trace.append("表现如何 → 区间收益率" if reading.zh else "how it did → its return")
    plain = [m for m in metrics if m not in _MODIFIERS]
    if not plain and "forecast" not in metrics:
        if reading.rank and several:
            base, why = "return", "a ranking with no measure named → return"
        elif prices and len(parsed.time.clauses) >= 2 and _BETTER.search(parsed.text):
            # "apple 2019 vs 2020 - which year was better": each window's return
            base, why = "return", "windows compared as better or worse → return"
        elif reading.compare and several and not series and _PERIOD_BY_PERIOD.search(parsed.text):
            # "每年都跑赢辉瑞…逐年核对": each period's return, set side by side
            base, why = "return", "a comparison period by period → each period's return"
        elif reading.compare and several and not series:
            base, why = (
                "cumulative_return",
                "a comparison with no measure named → cumulative return",
            )
        elif reading.annualize:
            # "S&P 500, annualized: from the 3/9/2009 close to the 12/31/2018 close": only a
            # change is annualised, and between two values that is the compound yearly rate.
            base = "annualized_return"
            why = (
                "年化，未指明指标 → 复合年增长率"
                if reading.zh
                else "annualised, no measure named → compound annual growth rate (CAGR)"
            )
        else:
            base = "value" if series and not prices else "close"
            why = f"no measure named → {_METRIC_WORDS[base]}"
        metrics.insert(0, base)
        reading.trace.append(why)
        reading.measure_defaulted = True
    if reading.frequency and metrics == ["return"] and _frequency_names_the_data(parsed):
        # "WTI daily spot: from the 7/3/2008 print to the 12/31/2008 print, how much did it
        # drop": the word says what the data is; one change over the window is asked.
        reading.frequency = None
        reading.trace.append(
            "频率词说明数据，问的是区间涨跌"
            if reading.zh
            else "the frequency word names the data: one change over the window"
        )
    windows = [c for c in parsed.time.clauses if c.start is not None and c.end is not None]
    if reading.rank and not several and len(windows) >= 2 and set(metrics) & _MODIFIERS:
        # "which was bigger, the median rate in the 1970s or in the 1980s": each window's
        # figure, side by side, not the statistics of one window spanning both
        reading.rank = False
        reading.trace.append("windows compared → each window's own figure")
    if reading.rank and not several and any(m in ("close", "value") for m in metrics):
        reading.rank = False
        if "stats" not in metrics:
            metrics.append("stats")
            reading.trace.append("highest/lowest of one entity → summary statistics")
    side_by_side = reading.question_form or _noun_comparison(parsed)
    if (
        several
        and not reading.rank
        and "return" in metrics
        and not reading.plot_asked
        and side_by_side
        and not (reading.frequency and _PERIOD_BY_PERIOD.search(parsed.text))
    ):
        reading.rank = True
        reading.trace.append("returns of several entities side by side → a cross-section")
    if reading.rank and not several:
        reading.rank = False
    if reading.rank:
        order = "lowest first" if reading.ascending else "highest first"
        reading.trace.append(f"ranking → bar chart, {order}")
    reading.metrics = list(dict.fromkeys(metrics))


# What a frequency word names when it describes the data ("WTI daily spot", "monthly closes",
# 日度收盘价), not changes at that frequency ("daily returns", "daily close-to-close moves").
_DATA_NOUN = re.compile(
    r"(?i)\s*(?:spot|closes?|closing|prices?|prints?|data|series|values?|levels?|quotes?|bars?)"
    r"\b(?![-\s]*to[-\s]*close)|(?:现货|收盘价?|价格?|数据|点位|报价)"
)
# Returns said as a series of them: "returns", "changes", 每日涨跌幅 is said by the frequency.
_RETURNS_SAID = re.compile(r"(?i)\b(?:returns|changes|moves|gains|losses)\b")


def _frequency_names_the_data(parsed: Parsed) -> bool:
    """Whether every frequency word said describes the data itself, and no return is said as a
    series of returns: the change asked runs over the whole window."""
    freqs = [hit for _, hit in parsed.group("freq")]
    returns = [h for m, h in parsed.group("metric") if m == "return"]
    return (
        bool(freqs)
        and all(_DATA_NOUN.match(parsed.text, hit.end) for hit in freqs)
        and not any(_RETURNS_SAID.search(h.text) for h in returns)
    )


# Measures a price word can qualify: "股价表现", "price volatility", "股价相关性".
_QUALIFIED = (
    "return",
    "cumulative_return",
    "correlation",
    "volatility",
    "max_drawdown",
    "drawdown",
)


# A sentence that tells about the asker ("My pension is tied to core inflation.", 我的退休金跟
# 通胀挂钩。), not a request: its measure words are the occasion, the question says what to measure.
_TELLS = re.compile(
    r"(?i)^\W*(?:my|our|i|i'm|i've|i'd|we|we're|we've|saw|heard|remember|a\s+(?:[\w-]+\s+)?"
    r"(?:friend|colleague|blog|columnist|headline|article|report|book|paper|newspaper|magazine|"
    r"newsletter|tweet|post|podcast)|everyone|people)\b|^\W*(?:我的|我们的|我|听说|看到)"
)
_ASKS = re.compile(
    r"(?i)\?|\b(?:how|what|which|when|show|plot|chart|draw|give|list|compare|rank|calculate|"
    r"compute|find|tell\s+me|need|needs|want|wants|would\s+like|like\s+to\s+(?:know|see)|"
    r"looking\s+for|please)\b|多少|几|哪|吗|呢|怎么|如何|是否|请|帮我|需要|想知道|想看"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


# An era's or a book's name in quotes, in title case: "the 'Great Inflation'", “Black Monday”.
_QUOTED_NAME = re.compile(r"['\"“‘](?:[A-Z][a-z]+\s+){1,4}[A-Z][a-z]+['\"”’]")


def _quoted_names(parsed: Parsed) -> list[tuple[int, int]]:
    """Quoted names whose words name no measure, when a measure is said outside them."""
    names = [m.span() for m in _QUOTED_NAME.finditer(parsed.text)]
    outside = any(not any(a <= h.start < b for a, b in names) for _, h in parsed.group("metric"))
    return names if names and outside else []


_BRACKETED = re.compile(r"\s{0,2}[(（][^()（）\d]{1,60}[)）]")
_ITS_EDGES = re.compile(
    r"(?i)\b(?:peak|trough|high|low|top|bottom)s?\b|高点|低点|顶部|底部|峰值|谷底"
)
_HOW_MEASURED = re.compile(
    r"(?i)\b(?:returns?|closes?|closing|prices?|yields?|volatility|adjusted|levels?)\b"
    r"|收益|收盘|价格|波动|复权"
)


def _window_described(parsed: Parsed) -> list[tuple[int, int]]:
    """Brackets right after a time phrase, holding words and no figure: a description of the
    window ("(roughly oil's peak to its trough)", （疫情暴跌期间）)."""
    found = (_BRACKETED.match(parsed.text, c.span[1]) for c in parsed.time.clauses)
    # (a bracket saying how to measure, "(return on adjusted closes)", is an ask, never this)
    return [
        m.span()
        for m in found
        if m is not None and _ITS_EDGES.search(m.group(0)) and not _HOW_MEASURED.search(m.group(0))
    ]


def _told_sentences(parsed: Parsed) -> list[tuple[int, int]]:
    """The sentences that tell and ask nothing, when another sentence asks with a measure."""
    text = parsed.text
    spans = [(a, b) for a, b in clauses(text, _SENTENCE_END) if text[a:b].strip()]
    if len(spans) < 2:
        return []
    told = [(a, b) for a, b in spans if _TELLS.search(text[a:b]) and not _ASKS.search(text[a:b])]
    # A claim a later sentence checks ("A tweet says it was up 50% in 2 years … Is that right?")
    # tells the measure the check is of.
    told = [
        (a, b)
        for a, b in told
        if not any(claimed_figure(text, a + f.start()) for f in FIGURE.finditer(text[a:b]))
    ]
    asked = [span for span in spans if span not in told]
    measured = any(any(a <= h.start < b for a, b in asked) for m, h in parsed.group("metric"))
    return told if measured else []


def _drop_qualifiers(metrics: list[str], parsed: Parsed) -> list[str]:
    """In "股价表现" / "price performance" the price word only qualifies the measure after it."""
    levels = [h for m, h in parsed.group("metric") if m in ("close", "value")]
    changes = [h for m, h in parsed.group("metric") if m in _QUALIFIED]
    qualifying = any(
        0 <= c.start - lv.end <= 2 and not parsed.text[lv.end : c.start].strip(" 的")
        for lv in levels
        for c in changes
    )
    if not qualifying:
        return metrics
    said_alone = {m for m, h in parsed.group("metric") if h not in levels}
    return [m for m in metrics if m not in ("close", "value") or m in said_alone]


def _noun_comparison(parsed: Parsed) -> bool:
    """A noun comparison ("收益率对比", "return comparison") compares numbers, not paths."""
    returns = [h for m, h in parsed.group("metric") if m == "return"]
    compares = {h.start for h in parsed.hits if h.has("cue:compare")}
    # A compare cue starting 0-2 characters after a return word (a set: linear, not pairwise).
    return any(
        r.end + gap in compares and not parsed.text[r.end : r.end + gap].strip(" 的")
        for r in returns
        for gap in range(3)
    )


_METRIC_WORDS = {
    "close": "closing prices",
    "value": "the series' values",
    "return": "return over the window",
    "cumulative_return": "cumulative return",
    "volatility": "volatility",
    "max_drawdown": "maximum drawdown",
    "drawdown": "drawdown",
    "correlation": "correlation",
    "macd": "MACD indicator",
    "rsi": "RSI indicator",
    "kdj": "KDJ indicator",
    "boll": "Bollinger bands",
    "cci": "CCI indicator",
    "ma": "moving averages",
    "ema": "exponential moving averages",
    "volume": "trading volume",
    "yoy": "year-over-year change",
    "forecast": "forecast",
    "mean": "mean",
    "median": "median",
    "stats": "summary statistics",
    "company_info": "company profile",
    "fund_managers": "fund managers",
    "market_views": LIVE_ONLY["market_views"],
    "index_weights": LIVE_ONLY["index_weights"],
    "options": LIVE_ONLY["options"],
    "intraday": LIVE_ONLY["intraday"],
    "constituents": "index constituents",
    "sharpe": "Sharpe ratio",
    "beta": "beta against the market",
    "qoq": "quarter-over-quarter change",
    "mom": "month-over-month change",
    "pop": "change on the previous period",
    "annualized_return": "annualised return (CAGR)",
    "worst_day": "worst days",
    "best_day": "best days",
    "investment_growth": "growth of an investment",
    "news": "news",
}
