"""Reading the forms a question asks for: chart, table, frequency, ranking."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from datapilot.brains.offline.advice import occasion_only
from datapilot.brains.offline.clauses import PHRASE_END, clause_around, clauses
from datapilot.brains.offline.honour import GAP
from datapilot.brains.offline.measures import (
    LIVE_ONLY,
    asks_both_ends,
    read_amount,
)
from datapilot.brains.offline.numbers import (
    DIGITS,
    ZH_NUMERAL,
    digits_for_words,
    en_number_pattern,
    read_number,
)
from datapilot.brains.offline.parsing import Parsed
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.phrases import mask
from datapilot.brains.offline.scales import read_scale
from datapilot.brains.offline.vocab import Vocab

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading

# How the trace names a chart option (`options.*` in vocab/charts.toml).
CHART_OPTION_WORDS = {"log_y": "a logarithmic value axis", "donut": "a donut chart"}


# The periods a ranking keeps, said in Chinese: 跌得最多的三个月, 涨幅最大的两个季度, 最差的五周.
_TOP_PERIODS_ZH = re.compile(
    r"(?:最(?:好|佳|差|高|低|强|弱|多|少|大|小)|(?:涨|跌)得?最(?:多|猛|凶|狠|厉害|少))的?\s*"
    rf"(?P<n>\d+|{ZH_NUMERAL})\s*个?(?P<unit>月|季度|季|年|周|星期|天|交易日)"
)


@lru_cache(maxsize=4)
def _top_k(numbers: tuple[tuple[str, int], ...]) -> re.Pattern[str]:
    """The count in "top 5", "the 3 best", 前三名, 最好的五只."""
    count = en_number_pattern(dict(numbers))
    best = r"(?:best|worst|top|biggest|largest|strongest|weakest)"
    ranked_zh = r"(?:最好|最佳|最差|最高|最低|最强|最弱|最多|最少|领涨|领跌)的?"
    return re.compile(
        # "the worst one" is a pronoun, not a count of one: the ranking stays whole
        rf"(?i)(?<![a-z])(?:top|best|worst|bottom)\s+(?!one\b)({count})(?![a-z])"
        rf"|(?<![a-z0-9])({count})\s+{best}(?![a-z])"
        # "which 2 did best", "which three performed worst"; "which one did best" picks the
        # top of a ranking kept whole, as "the best one" does
        rf"|(?<![a-z])which\s+(?!one\b)({count})\s+(?:[a-z]+\s+){{0,2}}?{best}(?![a-z])"
        rf"|前\s*(\d+|{ZH_NUMERAL})\s*(?:名|只|个|位|家|支)"
        # 前二和后二: a count with no measure word, never a time (前三季度, 前两个月)
        rf"|前\s*(\d+|{ZH_NUMERAL})(?=\s*(?:和|与|及|、|以及)\s*(?:后|倒数))"
        rf"|{ranked_zh}\s*(\d+|{ZH_NUMERAL})\s*(?:名|只|个|位|家|支)"
    )


# The top side of a ranking said in words: "which had the best 2021 … beat the worst one" leads
# with the best, so the ranking is listed from the top.
_BEST_SIDE = re.compile(
    r"(?i)^(?:best|top|highest|most|strongest|leaders?|winners?|best[-\s]performing|"
    r"best\s+performers?|top\s+performers?|outperformer)$|^(?:最好|最佳|最强|最高|最多|领涨|涨得最多)$"
)


def _worst_first(parsed: Parsed) -> bool:
    """A ranking listed from the bottom: a worst-side word said before any best-side one."""
    # (a worst-side word inside a gap asked between the two ends, "how far the laggard
    # trailed the leader", orders nothing)
    gaps = [found.span() for found in GAP.finditer(parsed.text)]
    worst = [
        h.start
        for h in parsed.hits
        if h.has("cue:worst") and not any(s <= h.start < e for s, e in gaps)
    ]
    if not worst:
        return False
    best = [h.start for h in parsed.hits if h.has("cue:rank") and _BEST_SIDE.match(h.text)]
    return not best or min(worst) < min(best)


_LENGTH_LIST = re.compile(
    # from the list's first number (never from each one: a long list is read once)
    r"(?i)(?<![0-9,、，&])(?<![0-9,、，&]\s)((?:\d{1,3}\s*(?:,|、|，|和|与|及|and|&)\s*)+\d{1,3})\s*[-\s]?(?:day|days|日|天)(?![a-z])"
)
# Words that ask for every value of a list or a period rather than the latest one.
# An absolute value of returns: "average absolute daily move", "absolute value of the daily
# returns", 涨跌幅的绝对值, 涨跌幅（取绝对值）. "In absolute terms" (in points, not percent) is not.
_ABSOLUTE = re.compile(
    r"(?i)\babsolute\s+(?:value\s+of\s+(?:the\s+|its\s+)?)?(?:daily\s+|day'?s?\s+|weekly\s+|"
    r"monthly\s+|one-day\s+|single-day\s+)?(?:returns?|moves?|changes?|percent(?:age)?\s+"
    r"changes?|swings?|gains?\s+or\s+loss(?:es)?)\b"
    r"|(?:涨跌幅|涨跌|波动|收益率?|变动|变化)[^，,。？?]{0,6}?绝对值"
)
# "CAGR for each", "each one", "each of them" name the members (a figure per name), not every
# value; "for each month" still asks every value.
_MEMBERS = r"(?:one|of|name|stock|company|fund|ticker|index|etf|member|side|leg)s?\b"
_EVERY = re.compile(
    rf"(?i)(?<!\bfor\s)\beach\b(?!\s+{_MEMBERS})|\bfor\s+each(?=\s+(?!{_MEMBERS})\w)|\bevery\b"
    r"|分别|各(?=[月年季天日只个位家])|每个|每一个|每只"
    # "the four quarterly prints", "all 12 monthly readings": each value counted out
    r"|\b(?:the|all(?:\s+the)?|its)\s+(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\s+(?:(?:weekly|monthly|quarterly|annual|yearly)\s+)?(?:prints|readings|"
    r"values|observations|figures|data\s+points)\b"
)
_MA_WINDOW = re.compile(r"(?i)(?<![A-Za-z])(?:MA|SMA|EMA)\s*\(?(\d{1,3})\)?(?!\d)")
# An indicator's length written as its argument: "CCI(20)", "RSI (9)".
_INDICATOR_LENGTH = re.compile(r"(?i)(?<![A-Za-z])(?:RSI|KDJ|BOLL|CCI)\s*\(\s*(\d{1,3})\s*\)")
_PERIODS = re.compile(r"(?i)(?<![0-9])(\d{1,3})\s*[-\s]?(?:period|periods|周期|期)(?![a-z])")
_OBSERVATIONS = {"trading_day": 1, "day": 1, "week": 5, "month": 21, "quarter": 63, "year": 252}


# A daily bar's field named by a price word ("intraday high", 盘中最低价, "opening price").
_BAR_FIELDS: tuple[tuple[Literal["high", "low", "open"], re.Pattern[str]], ...] = (
    ("high", re.compile(r"(?i)\bhighs?\b|最高")),
    ("low", re.compile(r"(?i)\blows?\b|最低")),
    ("open", re.compile(r"(?i)\bopen(?:ing)?\b|开盘")),
)


_BAR_FIELDS_SAID = re.compile(
    "|".join(p.pattern.removeprefix("(?i)") for _, p in _BAR_FIELDS), re.I
)
_ZH_FIELDS = {"high": "最高价", "low": "最低价", "open": "开盘价"}


def bar_fields(parsed: Parsed) -> list[Literal["high", "low", "open"]]:
    """The daily bar fields the question's price words name ([] for the close), with a field
    said beside one ("its intraday high and low": the low is the day's low too)."""
    said: list[Literal["high", "low", "open"]] = []
    for metric, hit in parsed.group("metric"):
        for field, pattern in _BAR_FIELDS if metric == "close" else ():
            if pattern.search(hit.text) and field not in said:
                said.append(field)
    if said:
        for _, hit in parsed.group("metric"):
            for field, pattern in _BAR_FIELDS:
                if _BESIDE.fullmatch(hit.text) and pattern.search(hit.text) and field not in said:
                    said.append(field)
    return said


# A bare field word beside a bar field ("high and low", 最高和最低): "highest" is an extreme.
_BESIDE = re.compile(r"(?i)highs?|lows?|open|最高价?|最低价?|开盘价?")


# --- forms: chart, table, frequency, ranking -------------------------------------------------


def read_forms(reading: Reading, parsed: Parsed, vocab: Vocab) -> None:
    charts = parsed.group("chart")
    if charts:
        reading.chart = charts[0][0]  # type: ignore[assignment]
        reading.trace.append(f'"{charts[0][1].text}" → {reading.chart} chart')
    reading.plot_asked = bool(charts) or parsed.has("plot")
    for option, hit in parsed.group("chart_option"):
        if option not in reading.chart_options:
            reading.chart_options.append(option)
            reading.trace.append(f'"{hit.text}" → {CHART_OPTION_WORDS.get(option, option)}')
    table_hit = parsed.first("table") or parsed.first("table_only")
    if table_hit is not None:
        reading.table = True
        only = parsed.first("table_only")
        reading.table_only = (
            only is not None
            and not reading.plot_asked
            and not _ADDED_CLAUSE.search(parsed.text[: only.start])
        )
        form = "a table only" if reading.table_only else "a table as well"
        reading.trace.append(f'"{table_hit.text}" → {form}')
    if not reading.table and (every := _EVERY.search(parsed.text)):
        # "each month of 2005", 分别是多少: every value is asked for, not the latest and a range.
        reading.table = True
        reading.trace.append(
            f"“{every.group(0)}” → 每个值，列成表格"
            if reading.zh
            else f'"{every.group(0)}" → every value, in a table'
        )
    freqs = parsed.group("freq")
    if freqs:
        reading.frequency = freqs[0][0]  # type: ignore[assignment]
        reading.trace.append(f'"{freqs[0][1].text}" → {reading.frequency} data')
    reading.compare = parsed.has("cue:compare")
    reading.rank = parsed.has("cue:rank") or parsed.has("cue:worst")
    reading.ascending = _worst_first(parsed)
    reading.question_form = parsed.has("cue:question") or bool(_HOW.search(parsed.text))
    reading.annualize = parsed.has("cue:annualize")
    # "the average absolute daily move", 涨跌幅（取绝对值）: returns by their size.
    reading.absolute = parsed.has("cue:absolute") and bool(_ABSOLUTE.search(parsed.text))
    reading.normalize = parsed.has("cue:normalize")
    reading.adjusted = parsed.has("cue:adjusted")
    fields = bar_fields(parsed)
    if len(fields) == 1:
        reading.bar_field = fields[0]
        for metric, hit in parsed.group("metric"):
            if metric == "close" and _BAR_FIELDS_SAID.search(hit.text):
                reading.family_spans.append((hit.start, hit.end, f"the daily {fields[0]}"))
    elif fields:  # "its intraday high and low": one field per figure, which no plan fetches here
        reading.status = "no_data"
        reading.message = (
            f"我还不能在一个回答里同时取日线的{'和'.join(_ZH_FIELDS[f] for f in fields)}。"
            "请每次只问一个（例如只问盘中最高价）。"
            if reading.zh
            else f"I can't yet fetch a day's {' and '.join(fields)} in one answer, and won't "
            "give the closes instead. Ask for one of them at a time (for example the intraday "
            "high)."
        )
    scale = read_scale(parsed.text)
    if scale is not None:  # "in millions of shares", （百万股）: the headline restated in it
        reading.scale = (scale.factor, scale.word)
        reading.family_spans.append((*scale.span, f"scale {scale.word}"))
    # "ten thousand dollars": a sum said in words is the same sum
    reading.amount = read_amount(digits_for_words(parsed.text, vocab.time.numbers))
    # "rolling" said alone or inside a measure's phrase ("rolling volatility", 滚动波动率)
    rolling_words = re.compile(r"(?i)rolling|滚动")
    reading.rolling = parsed.has("cue:rolling") or any(
        rolling_words.search(h.text) for _, h in parsed.group("metric")
    )
    if parsed.has("cue:model_ets"):
        reading.model = "ets"
    elif parsed.has("cue:model_naive"):
        reading.model = "naive"
    counts = {w: n for w, n in vocab.time.numbers.items() if w not in ("a", "an")}
    pattern = _top_k(tuple(sorted(counts.items())))
    # A number inside a name ("S&P 500 best month") counts nothing.
    named = [m.span for m in parsed.mentions]
    for top in pattern.finditer(mask(parsed.text, [*parsed.time.spans, *named])):
        said = next(g for g in top.groups() if g)
        count = read_number(said, vocab.time.numbers)
        if count and count >= 1:
            reading.top_k = int(count)
            reading.rank = True  # "top 5", 前三名: a ranking even without a ranking word
            reading.trace.append(f'"{top.group(0).strip()}" → keep the top {reading.top_k}')
            break
    periods = _TOP_PERIODS_ZH.search(parsed.text)
    counted = read_number(periods.group("n"), vocab.time.numbers) if periods else None
    if periods is not None and counted and counted >= 1 and reading.top_k is None:
        # 跌得最多的三个月, 涨幅最大的两个季度: that many periods ranked, never a length
        reading.top_k = int(counted)
        reading.family_spans.append((*periods.span(), f"the top {reading.top_k} periods"))
        reading.trace.append(
            f"“{periods.group(0)}” → 取前{reading.top_k}个"
            if reading.zh
            else f'"{periods.group(0)}" → keep the top {reading.top_k}'
        )
        said = periods.group("unit")
        unit = next((u for u, words in vocab.time.units.items() if said in words.zh), None)
        parsed.time.durations = [
            d for d in parsed.time.durations if (d.count, d.unit) != (counted, unit)
        ]
    # After the count: "前三名和后三名" is a ranking because of its count alone.
    # A few names ranked whole ("the cumulative returns of Mkt-RF, SMB and HML, and which did
    # best and which worst") show every name's figure, the best and the worst named first.
    few = len(reading.entities) <= _FEW_RANKED and (reading.top_k or 1) == 1
    few = few and not reading.universe and not reading.members_of
    reading.both_ends = reading.rank and asks_both_ends(parsed.text) and not few
    if reading.both_ends:
        reading.trace.append("首尾排名" if reading.zh else "the top and the bottom of the ranking")
    lengths = [
        int(n) for m in _LENGTH_LIST.finditer(parsed.text) for n in re.findall(r"\d+", m.group(1))
    ]
    lengths += [_observations(d) for d in parsed.time.durations]
    lengths += [int(m.group(1)) for m in _MA_WINDOW.finditer(parsed.text)]
    lengths += [int(m.group(1)) for m in _PERIODS.finditer(parsed.text)]
    lengths += [int(m.group(1)) for m in _INDICATOR_LENGTH.finditer(parsed.text)]
    lengths = [n for n in dict.fromkeys(lengths) if n and n >= 2]
    if lengths:
        reading.window = lengths[0]
        reading.ma_windows = lengths
        reading.trace.append(f"window length: {', '.join(map(str, lengths))} observations")


# As many names as a ranking shows whole rather than by its two ends.
_FEW_RANKED = 5

_RATE = rf"({DIGITS}(?:\.\d+)?|zero|零)\s*(%|个百分点|percent)?"
_RISK_FREE = re.compile(
    rf"(?i)(?:risk[-\s]?free(?:\s+(?:rate|return))?|\brfr?\b)"
    rf"\s*(?:of|at|=|is|:|equal to|as|to\s+be)?\s*{_RATE}"
    rf"|{_RATE}\s*(?:annual\s+|a\s+year\s+)?(?:risk[-\s]?free|rfr?\b)"
    # (当作0就好, 以零计, 算0: the rate said as what it is taken for)
    rf"|无风险(?:利率|收益率|利息)?\s*(?:就|都|先|暂且|姑且|可以)?\s*"
    r"(?:按|为|是|取|设为|设|用|当作|当成|当|视为|算作|算|以|=|:)?\s*"
    rf"{_RATE}"
    rf"|{_RATE}\s*的?无风险"
)


def read_risk_free(reading: Reading) -> None:
    """A Sharpe ratio's stated risk-free rate ("at a 1.5% risk-free rate", 无风险利率按2%计算), an
    annual rate in %. The words are then a rate, not the Fama–French RF series."""
    if "sharpe" not in reading.metrics:
        return
    match = _RISK_FREE.search(reading.text)
    if match is None:
        return
    number = next(g for g in match.groups()[::2] if g is not None)
    reading.risk_free = 0.0 if number in ("zero", "零") else float(number)
    reading.entities = [e for e in reading.entities if e.id != RISK_FREE_SERIES]
    reading.trace.append(
        f'"{match.group(0).strip()}" → 年化无风险利率 {reading.risk_free:g}%'
        if reading.zh
        else f'"{match.group(0).strip()}" → an annual risk-free rate of {reading.risk_free:g}%'
    )


# The catalog's risk-free series, which "risk-free rate" names when no rate is given.
RISK_FREE_SERIES = "FF_RF"


def asks_data_too(reading: Reading, parsed: Parsed, advice: str = "") -> bool:
    """Beside advice, a data request of its own: dates, a chart or table, or a measure (a price or
    "buy" alone only restates the advice). A chart word inside the `advice` words ("should I
    move") asks for no chart. What a clause tells rather than asks ("MSFT is down a lot in 2022 -
    should I buy more?", 苹果今年跌了不少，现在值得买吗) and the advice's own clause (推荐三只明年会
    涨的美股) ask for no figure: their measures and dates are the advice's occasion."""
    text = parsed.text
    charts = [h for _, h in parsed.group("chart")]
    at = text.find(advice) if advice else -1
    # (a chart word in the advice's own sentence: "should I sell … and move everything into …")
    said = clause_around(text, at, at + len(advice)) if at >= 0 else (0, 0)
    plot = reading.plot_asked and not (
        charts and all(h.text in advice or said[0] <= h.start < said[1] for h in charts)
    )
    # The words around the advice, between commas or clause ends: "推荐三只明年会涨的美股" of
    # 推荐三只明年会涨的美股，标普500成分股里挑.
    quiet = [clause_around(text, at, at + len(advice), PHRASE_END)] if at >= 0 else []
    # A clause before the advice that tells, or one after it that asks nothing ("推荐三只2023年能涨
    # 的股票，最好像礼来今年这样"), is the advice's own context.
    around = [c for c in clauses(text) if at >= 0 and not (c[0] <= at < c[1])]
    quiet += [c for c in around if not _ASKS.search(text[c[0] : c[1]])]
    # Within the advice's sentence, a phrase that tells a move ("AMD drop so much this year
    # already, now can 抄底 or not?") is its occasion too; a bare pair of names and a year
    # ("Apple vs Microsoft in 2021, should I buy?") still asks for their figures.
    sentence = clause_around(text, at, at + len(advice)) if at >= 0 else (0, 0)
    quiet += [
        c
        for c in clauses(text[: sentence[1]], PHRASE_END)
        if sentence[0] <= c[0]
        and not (c[0] <= at < c[1])
        and _TOLD_MOVE.search(text[c[0] : c[1]])
        and not _ASKS.search(text[c[0] : c[1]])
    ]

    def heard(start: int) -> bool:
        return not any(lo <= start < hi for lo, hi in quiet)

    # Company figures beside advice ("sell before earnings") or the list to pick from (成分股里挑)
    # only restate the advice's context.
    weak = {"value", "close", "investment_growth", "constituents", *LIVE_ONLY}
    # A move said as the advice's occasion ("after the drop", 跌了这么多) asks no figure.
    measures = [
        m
        for m, h in parsed.group("metric")
        if m not in weak and not occasion_only(text, h) and heard(h.start)
    ]
    dated = parsed.time.explicit and any(heard(c.span[0]) for c in parsed.time.clauses)
    return bool(dated or plot or reading.table or measures)


# A move told, not asked: "drop so much", "is down a lot", "rallied hard", 跌了这么多.
_TOLD_MOVE = re.compile(
    r"(?i)\b(?:drop(?:ped|s)?|f[ae]ll(?:en|s)?|rose|rise[ns]?|rall(?:y|ied)|crash(?:ed)?|tank(?:ed)?|"
    r"(?:is|was|are|were)\s+(?:up|down))\b[^,]{0,30}?\b(?:so\s+much|this\s+much|a\s+lot|already|"
    r"hard|big)\b|(?:跌|涨)了?(?:这么|那么)(?:多|狠)"
)


# A clause that asks (a question word, a request), not one that tells.
_ASKS = re.compile(
    r"(?i)^\W*(?:what|how|which|when|who|where|why|did|does|do|is|are|was|were|can|could|show|"
    r"plot|chart|draw|give|list|compare|tell|rank|find|get)\b|\bhow\s+(?:much|many|far)\b|"
    r"\bwhat\b|多少|几|吗|什么|哪|怎么|如何|是否|画|展示|列出|比较|给我|看看|查"
)


# "How volatile was …", "how risky is …": a number is asked for.
_HOW = re.compile(r"(?i)\bhow\s+[a-z]+\s+(?:was|is|were|are|has been|have been)\b")

# "show X … and list the data in a table": the table comes on top of what was asked first.
_ADDED_CLAUSE = re.compile(
    r"(?i)^\s*\S.*(?:\band(?:\s+then|\s+also)?|\bthen|\balso|并且?|然后|再|同时)\s*[,，]?\s*$"
)


def _observations(duration: Duration) -> int:
    return round(duration.count * _OBSERVATIONS.get(duration.unit, 1))
