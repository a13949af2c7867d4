"""What exactly was measured: refinements of the metrics a question named.

The vocabulary finds measure words; these rules settle what they add up to, so the planner answers
the measure that was asked and not a neighbour of it: "annualised" turns a return into a CAGR,
"quarter-over-quarter" is not "year-over-year", "$10,000 invested" asks for the value of an
investment, "top 3 and bottom 3" for both ends of a ranking, "the S&P 500 members" for the list of
members, and company figures or news offline for an honest "no data".
"""

from __future__ import annotations

import re

from datapilot.brains.offline.extreme_days import DayAsk, inside
from datapilot.brains.offline.numbers import DIGITS, ZH_NUMERAL, zh_number
from datapilot.brains.offline.parsing import Parsed
from datapilot.data.catalog import Catalog, Entity

# Words that say "growth" without saying against what; beside "quarter-over-quarter" they mean it.
_GENERIC_GROWTH = {"growth", "growth rate", "grew", "增长率", "增速", "增长", "annual growth"}
# "Change" alone is against the previous period; beside a named change it only repeats it.
GENERIC_CHANGE = {"change", "changes", "chg", "chng"}
# Growth against the previous period, each as `pct_change`'s kind.
CHANGE_KINDS = {"yoy": "yoy", "qoq": "qoq", "mom": "mom", "pop": "pop"}
# Measures only company reports or a news feed hold: no bundled data has them.
# A company profile too: the catalog's row (a name and a sector) is not what "describe the business"
# asks for.
LIVE_ONLY = {
    "fundamentals": "company financial figures",
    "news": "news",
    "company_info": "company profiles",
    "fund_managers": "fund-manager data",
    "market_views": "short interest, analyst ratings or price targets",
    "index_weights": "index weights (a member's share of an index)",
    "options": "options data (implied volatility, chains, greeks, smile or skew, open interest)",
    "intraday": "intraday, tick or order-book data",
}
LIVE_ONLY_ZH = {
    "fundamentals": "公司财务数据",
    "news": "新闻",
    "company_info": "公司简介",
    "fund_managers": "基金经理数据",
    "market_views": "做空数据、分析师评级或目标价",
    "index_weights": "指数权重（成分股在指数中的占比）",
    "options": "期权数据（隐含波动率、期权链、希腊字母、波动率微笑或偏斜、未平仓量）",
    "intraday": "日内、逐笔或盘口数据",
}
# Of those, what no provider Datapilot ships holds either: live data does not help, so the advice
# is the user's own file or a model with a tool that has it.
NO_PROVIDER = {"fund_managers", "market_views", "index_weights", "options", "intraday"}
# A measure a list's members each get, then ranked or averaged (Data-Copilot's loop-and-rank).
PER_MEMBER = ("return", "cumulative_return", "annualized_return", "volatility", "max_drawdown")
# Members bundled offline, by index: the bundled large US stocks are all S&P 500 members.
_BUNDLED_MEMBERS = {"^GSPC": "stock"}

_AMOUNT_EN = re.compile(
    r"(?i)(?:\$|usd\s*|us\$)\s*(\d[\d,]*(?:\.\d+)?)\s*(k|m|bn|thousand|million|billion)?(?![a-z])"
    r"|(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s*(k|m|bn|thousand|million|billion)?\s*"
    r"(?:dollars|usd|bucks)(?![a-z])"
)
# 一万五千刀, 1万5千美元, 两万五: ten thousands and the thousands after them
_AMOUNT_ZH_TWO_PARTS = re.compile(
    rf"({DIGITS}|{ZH_NUMERAL})\s*万\s*({DIGITS}|{ZH_NUMERAL})\s*(千)?"
    r"(?:\s*(?:元|块|美元|美金|人民币|刀)|(?=\s*(?:本钱|本金|的|$|[，。？！,?!])))"
)
_AMOUNT_ZH = re.compile(
    rf"({DIGITS}(?:\.\d+)?|{ZH_NUMERAL})\s*(亿|万|千|百)?\s*(?:元|块|美元|美金|人民币|刀)"
    rf"|({DIGITS}(?:\.\d+)?|{ZH_NUMERAL})\s*(亿|万|千)(?![元块美人\d])"
)
# Verbs that put money into something, or an amount held "in" a name ("$5,000 in P&G"); beside
# an amount they ask what it grew to.
_PUT_IN = re.compile(
    r"(?i)\b(?:invest\w*|put|putting|bought|buy|buying|placed|parked|plough\w*|plow\w*|"
    r"dropped\s+into|poured|sunk|sank\s+into|stuck|dumped|threw|thrown)\b"
    r"|(?:\$\s*[\d,.]+\s*(?:k|m|bn|thousand|million|billion)?|\b(?:usd|dollars|bucks)"
    r"|(?<![\w.])\d+(?:\.\d+)?\s*(?:k|m|bn|thousand|million|billion))\s+(?:(?:worth|of\s+cash)\s+)?"
    r"(?:(?:went|goes|go|was\s+put|were\s+put|sitting|sat|held|parked|"
    r"(?:was|were)\s+split(?:\s+[\d/.\-]+)?)\s+)?"
    r"(?:in|into|of|between)\s+(?![\d'’])"  # "$5,000 in P&G", "$80k went into the S&P 500"
    r"|投资|投入|投了|投进|投到|放进|砸进|买入|买进|买了|买|入手|本金|本钱|持有"
    # 放3万美金在…: a sum "put" somewhere
    # (摆 as Cantonese says it: 擺咗8萬美金落嬌生, "put $80k into J&J")
    r"|[放砸押摆]了?(?=\s*[\d一二两三四五六七八九十几]+\s*[万千百亿]?\s*(?:美元|美金|块|元|刀))"
)
# An average yearly growth said to compound: "the average annual growth rate it implies
# (compounded)", "average annual return, compounded", 年均复合增长率.
_AVERAGE_ANNUAL_COMPOUNDED = re.compile(
    r"(?i)\baverage\s+(?:annual|yearly)\s+(?:growth\s+rate|growth|rate\s+of\s+(?:growth|return)|"
    # (the compounding said in brackets after it, which the parser blanks as a formula: the
    # average "it implies" over two ends is compounded all the same)
    r"returns?)\b(?=[^.?!]{0,60}\bcompound|\s+(?:that\s+|this\s+)?(?:it\s+)?implie[sd]\b)"
    r"|\bcompound(?:ed)?\s+average\s+(?:annual|yearly)\s+(?:growth\s+rate|growth|returns?)\b"
    r"|(?:年均|每年平均|平均每年)的?复合(?:增长率|增速|回报率?|收益率|报酬率?)"
)
# What a sum put in is worth, said with a company figure's word: 市值, "market value".
_HOLDING_VALUE = re.compile(r"(?i)市值|市场价值|market\s+value")
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "万": 1e4, "千": 1e3, "百": 1e2}
_SCALE |= {"bn": 1e9, "billion": 1e9, "亿": 1e8}
# A bare amount with a scale put into something: "5k into UNH", "2.5m in Apple".
_AMOUNT_SCALED = re.compile(
    r"(?i)(?<![\w.$])(\d+(?:\.\d+)?)(k|m|bn|\s*thousand|\s*million|\s*billion)\b"
    r"(?=\s+(?:(?:went|goes|go|was\s+put|were\s+put|sitting|sat|held|parked)\s+)?"
    r"(?:in|into|on|of)\b)"  # "10k went in", "5 million sitting in"
)
# A bare number right after the verb that puts it in: "invested 10000 in Apple", "put 2,500 into".
_AMOUNT_PUT = re.compile(
    r"(?i)\b(?:invest(?:ed|ing|s)?|put(?:ting)?|placed|parked)\s+(\d[\d,]*(?:\.\d+)?)"
    r"(?![\d.,%])(?:\s*(k|m|bn|thousand|million|billion)\b)?"
)
_BOTH_ENDS = re.compile(
    r"(?i)\b(?:top|best|highest|strongest|gainers)\b[^.;?]{0,30}?\b(?:and|&|plus|vs\.?|versus)"
    r"\s+(?:the\s+)?(?:(?:\d+|[a-z]+)\s+){0,4}?(?:bottom|worst|lowest|weakest|losers)\b"
    r"|\b(?:bottom|worst|lowest|weakest)\b[^,.;?]{0,30}?\b(?:and|&|plus)\s+(?:the\s+)?"
    r"(?:\d+\s+|[a-z]+\s+)?(?:top|best|highest|strongest)\b"
    r"|前\s*(?:\d+|[一二三四五六七八九十两]+)\s*(?:名|只|个)?[^，,。？?]{0,6}?(?:和|与|及|、|以及)\s*"
    r"(?:后|倒数)"
    r"|(?:最好|最佳|最高|最强|最大|最多|领涨)[^，,。？?]{0,6}?(?:和|与|及|、|以及|跟)\s*"
    r"(?:最差|最低|最弱|最小|最少|领跌)"
    # 哪个最抗跌？最差的那个跌了多少: the other end asked in the next clause
    r"|(?:最好|最佳|最强|最抗跌|领涨)[^。？?]{0,8}?[，,？?]\s*(?:那么|而|那)?(?:最差|最弱|领跌)"
)


def read_amount(text: str) -> float | None:
    """A sum of money in the question: "$10,000", "10k dollars", "1万元", "五千块"."""
    for match in _AMOUNT_EN.finditer(text):
        number = match.group(1) or match.group(3)
        unit = (match.group(2) or match.group(4) or "").lower()
        return float(number.replace(",", "")) * _SCALE.get(unit, 1.0)
    for match in _AMOUNT_SCALED.finditer(text):
        return float(match.group(1)) * _SCALE[match.group(2).strip().lower()]
    for match in _AMOUNT_PUT.finditer(text):
        put = float(match.group(1).replace(",", ""))
        unit = (match.group(2) or "").strip().lower()
        if unit or not (1900 <= put <= 2100):  # "invested 2021" is a year, not a sum
            return put * _SCALE.get(unit, 1.0)
    for match in _AMOUNT_ZH_TWO_PARTS.finditer(text):
        tens, rest = (
            float(g) if g[0].isdigit() else float(zh_number(g) or 0) for g in match.group(1, 2)
        )
        # 一万五 is 15,000 (its thousands said without 千), 一万五千 the same
        return tens * 10_000 + (rest * 1_000 if rest < 10 or match.group(3) else rest)
    for match in _AMOUNT_ZH.finditer(text):
        said = match.group(1) or match.group(3)
        unit = match.group(2) or match.group(4) or ""
        value = float(said) if said[0].isdigit() else zh_number(said)
        if value:
            return float(value) * _SCALE.get(unit, 1.0)
    return None


def amount_span(text: str) -> tuple[int, int] | None:
    """Where `read_amount` found its sum of money in `text`."""
    for pattern in (_AMOUNT_EN, _AMOUNT_SCALED, _AMOUNT_PUT, _AMOUNT_ZH_TWO_PARTS, _AMOUNT_ZH):
        found = pattern.search(text)
        if found is not None:
            return found.span()
    return None


# The levels themselves, or a change said in (percentage) points: a difference of levels.
# (basis points too: "the change over 2001 in basis points", "how many bp did it move")
_LEVELS_AND_POINTS = re.compile(
    r"(?i)\blevels?\b|percentage\s+points?|\bpp\b|\bbasis\s+points?\b|\bbps?\b|百分点|基点|水平"
)


_RETURNS = ("return", "cumulative_return", "annualized_return")


# Company-figure words that, beside a sum put in, say what the sum made or when it is marked.
_MONEY_MADE = {"profit", "profits", "the profit", "valued", "value", "利润", "盈利"}


def _annualizes_another(parsed: Parsed, also: tuple[str, ...] = ()) -> bool:
    """Whether every 年化 / "annualised" said belongs to another measure than a return (or the
    measures `also` named) (谷歌2008年跌了多少，年化波动率多大: the volatility is annualised,
    the fall is the year's return). A plain "rate" or "figure" is no other measure: "growth at
    an annualized rate" annualises the growth."""
    cues = [h for h in parsed.hits if h.has("cue:annualize")]
    others = [h for m, h in parsed.group("metric") if m not in (*_RETURNS, *also, "value")]
    return bool(cues) and all(
        any(c.start <= o.start <= c.end + 1 or o.start <= c.start < o.end for o in others)
        for c in cues
    )


def _sizes_the_named_change(parsed: Parsed) -> bool:
    """Whether every return said sits right beside a year-over-year word (within a few
    characters: 同比跌了多少, "fall year over year", "year-over-year % change")."""
    named = [h for m, h in parsed.group("metric") if m == "yoy"]
    returns = [h for m, h in parsed.group("metric") if m == "return"]
    return bool(named) and all(
        any(-1 <= r.start - y.end <= 6 or -1 <= y.start - r.end <= 6 for y in named)
        for r in returns
    )


def asks_both_ends(text: str) -> bool:
    """ "top 3 and bottom 3", "best and worst five", 前三名和后三名, 最好和最差的三只."""
    return bool(_BOTH_ENDS.search(text))


def refine(
    metrics: list[str],
    parsed: Parsed,
    *,
    annualize: bool,
    zh: bool = False,
    days: DayAsk | None = None,
    amount: float | None = None,
) -> tuple[list[str], list[str]]:
    """The metrics after the rules that make them exact, and a trace line for each rule used:
    `days` is the best/worst-days request read from the question, `amount` a sum of money."""
    trace: list[str] = []
    if "mean" in metrics and _AVERAGE_ANNUAL_COMPOUNDED.search(parsed.text):
        # "the average annual growth rate it implies (compounded)": the CAGR, which states the
        # growth in all beside it — never the mean of the values or of year-over-year changes
        growths = ("mean", "yoy", "return", "cumulative_return", "annualized_return", "value")
        metrics = ["annualized_return", *(m for m in metrics if m not in growths)]
        trace.append(
            "年均复合增长 → 复合年增长率" if zh else "average annual growth, compounded → CAGR"
        )
    said = {m: [h.text.casefold() for mm, h in parsed.group("metric") if mm == m] for m in metrics}
    named = [m for m in ("yoy", "qoq", "mom") if m in metrics]
    if named and "pop" in metrics and all(w in GENERIC_CHANGE for w in said.get("pop", [])):
        # "month-over-month change": the word "change" only repeats the change named.
        metrics = [m for m in metrics if m != "pop"]
    generic_pop = "pop" in metrics and all(w in GENERIC_CHANGE for w in said.get("pop", []))
    if generic_pop and _LEVELS_AND_POINTS.search(parsed.text):
        # "the two levels and the change in percentage points", "by how many percentage points
        # did the T-bill rate change in 2001": the difference between levels asked, not each
        # one's change on its previous period.
        metrics = [m for m in metrics if m != "pop"] or ["return"]
    if "yoy" in metrics and "return" in metrics and _sizes_the_named_change(parsed):
        # "同比跌了多少", "how much did it fall year over year", "year-over-year % change": the
        # move words size the year-over-year change; no second return is asked.
        metrics = [m for m in metrics if m != "return"]
    sequential = [m for m in ("qoq", "mom", "pop") if m in metrics]
    if sequential and "yoy" in metrics and all(w in _GENERIC_GROWTH for w in said.get("yoy", [])):
        metrics = [m for m in metrics if m != "yoy"]
        trace.append(
            "环比：相对上一期，不是同比"
            if zh
            else f"growth against the previous period ({sequential[0]}), not year-over-year"
        )
    generic = "yoy" in metrics and all(w in _GENERIC_GROWTH for w in said.get("yoy", []))
    if generic and parsed.has("cue:not_annualized"):
        # "GDP growth in Q2 2009, not annualized", 环比，不年化: only a growth on the previous
        # period is ever annualised, so that is the growth asked, not year-over-year.
        metrics = ["pop" if m == "yoy" else m for m in metrics]
        trace.append(
            "不年化：相对上一期的增长，不是同比"
            if zh
            else "not annualised: growth on the previous period, not year-over-year"
        )
        generic = False
    if annualize and generic and not _annualizes_another(parsed, also=("yoy",)):
        # "GDP growth last quarter, annualized", 年化增长率: the window's growth compounded to a
        # year. A year-over-year change is annual already, so it is not what was asked.
        metrics = ["annualized_return" if m == "yoy" else m for m in metrics]
        trace.append(
            "年化增长 → 窗口增长折成年率"
            if zh
            else "annualised growth → the window's growth as a yearly rate"
        )
    if (
        annualize
        and any(m in metrics for m in ("return", "cumulative_return"))
        and not (_annualizes_another(parsed))
    ):
        metrics = [
            "annualized_return" if m in ("return", "cumulative_return") else m for m in metrics
        ]
        trace.append(
            "年化 → 复合年增长率"
            if zh
            else "annualised return → compound annual growth rate (CAGR)"
        )
    if "annualized_return" in metrics:
        metrics = [m for m in metrics if m not in ("return", "cumulative_return")]
    if amount and _PUT_IN.search(parsed.text) and "fundamentals" in metrics:
        # "拿20萬美金買那斯達克…市值是多少": the holding's market value, never a company's
        held = [h.text for m, h in parsed.group("metric") if m == "fundamentals"]
        if held and all(_HOLDING_VALUE.fullmatch(t) for t in held):
            metrics = [m for m in metrics if m != "fundamentals"]
    if amount and "investment_growth" not in metrics and _PUT_IN.search(parsed.text):
        # A sum of money put into something: 投资10万美元买苹果, "put $5,000 into Apple".
        metrics.append("investment_growth")
        trace.append(
            f"投入{amount:,.0f} → 投资增值" if zh else f"{amount:,.0f} put in → its value over time"
        )
    if "investment_growth" in metrics and all(
        w in _MONEY_MADE for w in said.get("fundamentals", ["?"])
    ):
        # "what's the profit", "valued at the close on …": the money a sum put in made, and
        # the day it is marked, never a company's profit or valuation
        metrics = [m for m in metrics if m != "fundamentals"]
    if "investment_growth" in metrics:
        # The value of the investment is the answer; a price, return or "growth" word only
        # describes it ("growth of $10,000").
        metrics = [m for m in metrics if m not in ("close", "return", "cumulative_return")]
        if all(w in _GENERIC_GROWTH for w in said.get("yoy", [])):
            metrics = [m for m in metrics if m != "yoy"]
    if days is not None:
        asked = {"best": ["best_day"], "worst": ["worst_day"], "both": ["worst_day", "best_day"]}
        added = [m for m in asked[days.which] if m not in metrics]
        metrics += added
        # Measure words inside the phrase only describe the day ("涨幅" in 涨幅最大的5天).
        used_up = {
            m
            for m, h in parsed.group("metric")
            if inside(days.spans, h.start, h.end) and m not in ("worst_day", "best_day")
        }
        said_elsewhere = {
            m for m, h in parsed.group("metric") if not inside(days.spans, h.start, h.end)
        }
        metrics = [m for m in metrics if m not in used_up - said_elsewhere]
        if added:
            zh_side = {"both": "涨跌幅", "best": "涨幅", "worst": "跌幅"}[days.which]
            trace.append(
                f"单日{zh_side}最大的交易日" if zh else f"the {days.which} day(s) by daily return"
            )
    if any(m in metrics for m in ("worst_day", "best_day")):
        # A price level or its statistics are not what a day's ranking asks for.
        metrics = [m for m in metrics if m not in ("close", "stats")]
    return list(dict.fromkeys(metrics)), trace


def qualifying_returns(parsed: Parsed) -> bool:
    """Whether a return word only says what a volatility or correlation is of ("volatility of
    returns", 收益率的相关性), rather than being a measure asked for on its own."""
    returns = [h for m, h in parsed.group("metric") if m in ("return", "cumulative_return")]
    heads = [h for m, h in parsed.group("metric") if m in ("volatility", "correlation")]
    if not returns:
        return False
    joins = re.compile(r"(?i)^(?:\s|of|the|in|daily|weekly|monthly|their|its|的|日)*$")
    for r in returns:
        gaps = [parsed.text[r.end : h.start] for h in heads if r.end <= h.start]
        gaps += [parsed.text[h.end : r.start] for h in heads if h.end <= r.start]
        near = any(joins.match(gap) for gap in gaps)
        if not near:
            return False
    return True


def members(index: Entity, catalog: Catalog) -> list[Entity]:
    """The index's members with bundled data (empty when no member list is bundled)."""
    kind = _BUNDLED_MEMBERS.get(index.id)
    if kind is None:
        return []
    found = catalog.entities(kind=kind, available=True)  # type: ignore[arg-type]
    return sorted(found, key=lambda e: e.id)


def live_only_message(
    metrics: list[str], entities: list[Entity], zh: bool, said: list[str] | None = None
) -> str | None:
    """Why a measure only a live provider has cannot be answered offline, and how it could be;
    `said` are the user's words for it ("valuations", 北上资金), named in the message."""
    wanted = list(dict.fromkeys(m for m in metrics if m in LIVE_ONLY))
    if not wanted:
        return None
    what = _measures_said(wanted, list(dict.fromkeys(said or [])), zh)
    if set(wanted) <= NO_PROVIDER:  # fund managers: live data is no help either
        if zh:
            return (
                f"内置数据和可配置的实时数据源都没有{what}，所以无法回答，也不会用别的数据代替。"
                "可以用 `datapilot data import` 导入您自己的文件，或配置一个带有相应工具的大模型。"
            )
        return (
            f"Neither the bundled data nor the live providers Datapilot ships hold {what}, so I "
            "can't answer this and won't show other data instead. Import a file of your own "
            "(`datapilot data import`) or configure an LLM endpoint with a tool that has it."
        )
    if zh:
        return (
            f"内置的离线数据只有价格和宏观序列，没有{what}，所以无法回答，也不会用股价代替。"
            "配置实时数据源后即可回答（例如 DATAPILOT_PROVIDERS=bundled,yahoo,sec，"
            "或 `datapilot data fetch <代码> --what fundamentals`/`news`），也可以配置一个大模型。"
        )
    names = ", ".join(e.name for e in entities[:5]) or "these companies"
    return (
        f"The bundled offline data hold prices and macro series only, not {what} for {names}, so "
        "I can't answer this and won't show prices instead. Configure a live provider "
        "(e.g. DATAPILOT_PROVIDERS=bundled,yahoo,sec, or `datapilot data fetch <TICKER> "
        "--what fundamentals|news|info`) or an LLM endpoint to answer it."
    )


def _measures_said(wanted: list[str], words: list[str], zh: bool) -> str:
    """The measures' names, with the user's own words beside them — not the measure's word
    again (新闻（公告）, never 新闻（新闻、公告）)."""
    if wanted == ["market_views"] and words:  # "short interest", 目标价: the measure asked
        return ("、" if zh else " and ").join(words)
    labels = [LIVE_ONLY_ZH[m] if zh else LIVE_ONLY[m] for m in wanted]
    own = [w for w in words if (w if zh else w.casefold()) not in labels]
    if zh:
        return "和".join(labels) + (f"（{'、'.join(own)}）" if own else "")
    return " and ".join(labels) + (f" ({', '.join(own)})" if own else "")
