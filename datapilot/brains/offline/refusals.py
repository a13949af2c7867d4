"""What the offline brain says when it cannot answer: unknown names, missing data, coverage.

Every message names what was asked, says what is (or is not) bundled and how to get it, in the
question's language. Nothing is ever substituted for what the user named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date

from datapilot.brains.offline.measures import LIVE_ONLY, LIVE_ONLY_ZH
from datapilot.brains.offline.names import chinese_name
from datapilot.data.catalog import Entity
from datapilot.data.display import measure_name


def foreign_message(names: list[str], zh: bool) -> str:
    if zh:
        return (
            f"我没有{'、'.join(names)}的数据：内置的宏观序列都是美国的，不会拿来代替。"
            "联网时可用 `datapilot data fetch <代码>` 从实时数据源获取，"
            "或用 `datapilot data import` 导入您自己的文件。"
        )
    listed = ", ".join(f'"{n}"' for n in names)
    return (
        f"I have no data for {listed}: the bundled macro series are for the United States, and "
        "I won't substitute them. With a live provider you can fetch it "
        "(`datapilot data fetch <ID>`), or import your own file (`datapilot data import`)."
    )


def unknown_message(names: list[str], zh: bool) -> str:
    if names:
        # Each name quoted, so the words not understood read as words, not as one run of text.
        listed = "、".join(f"“{n}”" for n in names) if zh else ", ".join(f'"{n}"' for n in names)
        if zh:
            return (
                f"我不认识{listed}：数据目录里没有这样的名称，无法回答，也不会用别的数据代替。"
                "联网时可用 `datapilot data fetch <代码>` 从实时数据源获取，"
                "或用 `datapilot data import` 导入您自己的文件。"
            )
        verb = "it is" if len(names) == 1 else "they are"
        return (
            f"I don't know {listed}: {verb} not in my catalog, so I won't substitute anything "
            "else. With a live provider you can fetch it (`datapilot data fetch <TICKER>`), "
            "or import your own file (`datapilot data import`)."
        )
    if zh:
        return "请告诉我您想看哪只股票、哪个指数或哪个宏观序列，例如：苹果、标普500、美国失业率。"
    return (
        "Which company, index or series do you mean? For example: Apple, the S&P 500, "
        "US unemployment."
    )


def left_out_message(names: list[str], zh: bool) -> str:
    """Names the catalog does not know, beside names it does: answered without them."""
    if zh:
        return f"我不认识{'、'.join(f'“{n}”' for n in names)}，回答里没有包含。"
    listed = ", ".join(f'"{n}"' for n in names)
    return f"I don't know {listed}, so the answer leaves it out; check the spelling or the ticker."


def missing_message(missing: list[Entity], zh: bool) -> str:
    ids = " ".join(e.id for e in missing)
    # A default install has no live provider: the advice names the extra that adds one.
    extra = fetch_extra([e.id for e in missing])
    if zh:
        names = "、".join(f"{chinese_name(e)}（{e.id}）" for e in missing)
        them = "它们" if len(missing) > 1 else "它"
        return (
            f"我认识{names}，但本地没有{them}的数据，所以无法回答，也不会用别的数据代替。"
            f"联网时可先安装 `pip install '{extra}'`，再用 `datapilot data fetch {ids}` "
            "从实时数据源获取，或用 `datapilot data import` 导入您自己的文件。"
        )
    names = ", ".join(f"{e.name} ({e.id})" for e in missing)
    them = "them" if len(missing) > 1 else "it"
    return (
        f"I know {names}, but I have no bundled data for {them}, and I won't substitute "
        f"anything else. Fetch {them} with a live provider (`pip install '{extra}'`, then "
        f"`datapilot data fetch {ids}`) or import your own file (`datapilot data import`)."
    )


def fetch_extra(ids: Iterable[str]) -> str:
    """The extra whose provider fetches `ids`: akshare's for A-shares, else yfinance's."""
    china = any(i.upper().endswith((".SH", ".SZ", ".BJ")) for i in ids)
    return "datapilot[china]" if china else "datapilot[live]"


def edge_note(entity: Entity, zh: bool, *, starts: bool, start: date, end: date) -> str:
    """The window reaches past the first (or last) date the entity has data for: the answer
    covers the part that exists."""
    day = entity.first if starts else entity.last
    first, last = (day, end) if starts else (start, day)
    if zh:
        return (
            f"{entity.id} 的数据{'始于' if starts else '止于'} {day}，"
            f"因此只涵盖 {first} 至 {last}。"
        )
    verb = "starts" if starts else "ends"
    return f"{entity.id}'s data {verb} on {day}, so its answer covers {first} to {last} only."


def moved_window_note(
    last: date, said: str, start: date, end: date, zh: bool, *, data: str = "bundled"
) -> str:
    """A relative window moved to end on the data's last date (the summary's first sentence).
    `data` says whose data ends there: `bundled`, `imported` (the user's own file) or `any`."""
    if zh:
        what = f"“{said}”" if said else "默认的过去一年"
        whose = {"bundled": "内置", "imported": "导入的"}.get(data, "")
        return f"{whose}数据截至 {last}，因此{what}按 {start} 至 {end} 计算。"
    what = f"'{said}'" if said else "the past year"
    whose = {"bundled": "bundled ", "imported": "imported "}.get(data, "")
    return f"The {whose}data ends on {last}, so {what} is {start} to {end}."


def left_out_data_note(
    missing: list[Entity],
    outside: list[Entity],
    kept: list[Entity],
    start: date | None,
    end: date | None,
    zh: bool,
) -> str:
    """Some names have no data (or none in the window): the answer covers the others."""
    if zh:
        parts = []
        if missing:
            names = "、".join(f"{chinese_name(e)}（{e.id}）" for e in missing)
            ids = " ".join(e.id for e in missing)
            parts.append(f"本地没有{names}的数据（联网时可用 `datapilot data fetch {ids}` 获取）")
        if outside:
            names = "、".join(f"{chinese_name(e)}（{e.id}）" for e in outside)
            parts.append(f"{names}在 {start} 至 {end} 期间没有数据")
        others = "、".join(chinese_name(e) for e in kept)
        return "；".join(parts) + f"，所以只回答{others}。"
    parts = []
    if missing:
        names = ", ".join(f"{e.name} ({e.id})" for e in missing)
        ids = " ".join(e.id for e in missing)
        parts.append(
            f"I have no bundled data for {names} (fetch it with `datapilot data fetch {ids}`)"
        )
    if outside:
        names = ", ".join(f"{e.name} ({e.id})" for e in outside)
        parts.append(f"{names} has no data between {start} and {end}")
    others = ", ".join(e.name for e in kept)
    return "; ".join(parts) + f", so the answer covers {others} only."


def coverage_message(entity: Entity, start: date, end: date, zh: bool) -> str:
    """An entity with data, but none in the window asked for."""
    if zh:
        return (
            f"{chinese_name(entity)}（{entity.id}）的数据范围是 {entity.first} 至 {entity.last}，"
            f"{start} 至 {end} 期间没有数据。"
        )
    return (
        f"{entity.name} ({entity.id}) has data from {entity.first} to {entity.last}; "
        f"there is none between {start} and {end}."
    )


def short_of_the_end_message(entity: Entity, start: date, end: date, zh: bool) -> str:
    """An entity whose data end before the end of the window asked for a whole-window figure."""
    if zh:
        return (
            f"{chinese_name(entity)}（{entity.id}）的数据只到 {entity.last}，"
            f"不够所问的 {start} 至 {end}；用更短时段算出的数字回答的是另一个问题，所以不给出。"
            f"可以改问 {start} 至 {entity.last}。"
        )
    return (
        f"{entity.name} ({entity.id}) has data only up to {entity.last}, short of the {start} to "
        f"{end} asked; a figure over a shorter window would answer another question, so none is "
        f"given. Ask for {start} to {entity.last} instead."
    )


def latest_offer(start: date, end: date, zh: bool) -> str:
    """The same words read as of the data's last date, offered (never answered in place)."""
    if zh:
        return (
            f"如果按数据的最后日期来算，同样的说法对应 {start} 至 {end}，"
            "可以直接按这个日期范围提问。"
        )
    return (
        f"Read as of the data's last date, the same words would mean {start} to {end}: ask "
        "for those dates to see them."
    )


# --- the decision trace in Chinese --------------------------------------------------------------
#
# The readers and the planner write each trace line in English; a Chinese question gets every line
# restated here, in one table, so the wording lives in one place. A line no rule knows stays as
# written rather than being half translated.

KIND_ZH = {
    "stock": "股票",
    "etf": "ETF",
    "index": "指数",
    "fund": "基金",
    "macro": "宏观序列",
    "commodity": "商品",
    "factor": "因子",
    "table": "表格",
}

CHART_ZH = {
    "line": "折线图",
    "bar": "柱状图",
    "candlestick": "K线图",
    "scatter": "散点图",
    "area": "面积图",
    "histogram": "直方图",
    "heatmap": "热力图",
    "pie": "饼图",
}

# What a phrase of the question was read as (the right-hand side of `"…" → …`).
PHRASE_ZH = {
    "closing prices": "收盘价",
    "the series' values": "序列数值",
    "return over the window": "区间收益率",
    "return": "区间收益率",
    "cumulative return": "累计收益率",
    "volatility": "波动率",
    "maximum drawdown": "最大回撤",
    "drawdown": "回撤",
    "correlation": "相关性",
    "spread": "利差",
    "MACD indicator": "MACD指标",
    "RSI indicator": "RSI指标",
    "KDJ indicator": "KDJ指标",
    "Bollinger bands": "布林带",
    "CCI indicator": "CCI指标",
    "moving averages": "移动平均线",
    "exponential moving averages": "指数移动平均线",
    "trading volume": "成交量",
    "year-over-year change": "同比变化",
    "forecast": "预测",
    "mean": "均值",
    "median": "中位数",
    "summary statistics": "描述性统计",
    "company profile": "公司简介",
    "index constituents": "指数成分股",
    "Sharpe ratio": "夏普比率",
    "beta against the market": "相对市场的贝塔",
    "a table only": "只要表格",
    "a table as well": "另附表格",
    "daily data": "日度数据",
    "weekly data": "周度数据",
    "monthly data": "月度数据",
    "quarterly data": "季度数据",
    "annual data": "年度数据",
    "yearly data": "年度数据",
    "the table you sent": "您发送的表格",
    "a cross-section": "横截面比较",
    "their correlation": "它们的相关性",
    "a table": "表格",
    "chart and table": "图表和表格",
    "quarter-over-quarter change": "季度环比变化",
    "month-over-month change": "月度环比变化",
    "change on the previous period": "环比变化",
    "annualised return (CAGR)": "年化收益率（复合年增长率）",
    "worst days": "单日最大跌幅",
    "best days": "单日最大涨幅",
    "growth of an investment": "投资增值",
    "news": "新闻",
    "a logarithmic value axis": "对数纵轴",
    "a donut chart": "环形图",
    # Measures no bundled data holds, as `measures.LIVE_ONLY` names them.
    **{LIVE_ONLY[key]: LIVE_ONLY_ZH[key] for key in LIVE_ONLY},
}

PERIOD_ZH = {
    "daily": "日",
    "weekly": "周",
    "monthly": "月",
    "quarterly": "季度",
    "annual": "年",
    "yearly": "年",
}

UNIT_ZH = {
    "trading day": "个交易日",
    "day": "天",
    "week": "周",
    "month": "个月",
    "quarter": "个季度",
    "year": "年",
}

_Q = r'(?P<q>"[^"]*"(?: … "[^"]*")?)'  # the question's own words, kept as written
_D = r"(?P<a>\d{4}-\d{2}-\d{2}|start|None)\.\.(?P<b>\d{4}-\d{2}-\d{2}|end|None)"


def _span(m: re.Match[str]) -> str:
    start = {"None": "最早", "start": "最早"}.get(m["a"], m["a"])
    end = {"None": "最新", "end": "最新"}.get(m["b"], m["b"])
    return f"{start} 至 {end}"


def _phrase(words: str) -> str:
    if words in PHRASE_ZH:
        return PHRASE_ZH[words]
    if words.endswith(" chart") and words[:-6] in CHART_ZH:
        return CHART_ZH[words[:-6]]
    parts = words.split(" / ")
    if len(parts) > 1 and all(p in PHRASE_ZH for p in parts):
        return "、".join(PHRASE_ZH[p] for p in parts)
    return measure_name(words, zh=True)  # a measure by its display name; else as written


def _duration(label: str) -> str:
    count, _, unit = label.partition(" ")
    unit = unit.removesuffix("s") if unit.endswith("s") else unit
    return f"{count}{UNIT_ZH.get(unit, unit)}"


def _answer(m: re.Match[str]) -> str:
    form = CHART_ZH.get(m["chart"], m["chart"]) if m["chart"] else "表格"
    return f"回答：{form}" + ("和表格" if m["table"] else "")


def _follow_up(m: re.Match[str]) -> str:
    what = m["what"]
    for english, zh in (
        (" (adding the new ones)", "（并加入新的）"),
        ("entities ", "实体 "),
        ("the measure", "指标"),
        ("the time window", "时间窗口"),
        (", ", "，"),
    ):
        what = what.replace(english, zh)
    return f"追问：沿用上一个问题的{what}"


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

_RULES: list[_Rule] = [
    (re.compile(rf"^{_Q} → {_D}$"), lambda m: f"{m['q']} → {_span(m)}"),
    (re.compile(rf"^{_Q} → a future period {_D}$"), lambda m: f"{m['q']} → 未来时段 {_span(m)}"),
    (
        re.compile(rf"^{_Q} → the first date with data, (?P<d>\S+)$"),
        lambda m: f"{m['q']} → 最早有数据的日期 {m['d']}",
    ),
    (
        re.compile(rf"^{_Q} → forecast horizon (?P<h>.+)$"),
        lambda m: f"{m['q']} → 预测期 {_duration(m['h'])}",
    ),
    (
        re.compile(rf'^{_Q} → the table "(?P<t>[^"]*)" you sent$'),
        lambda m: f"{m['q']} → 您发送的表格“{m['t']}”",
    ),
    (
        re.compile(rf"^{_Q} → (?P<ids>.+) \(a group\)$"),
        lambda m: f"{m['q']} → {m['ids']}（一组）",
    ),
    (
        re.compile(rf"^{_Q} → keep the top (?P<n>\d+)$"),
        lambda m: f"{m['q']} → 保留前 {m['n']} 名",
    ),
    (re.compile(rf"^{_Q} → (?P<w>.+)$"), lambda m: f"{m['q']} → {_phrase(m['w'])}"),
    (re.compile(rf"^{_Q} is not about financial data$"), lambda m: f"{m['q']} 与金融数据无关"),
    (
        re.compile(rf"^{_Q} asks for investment advice, not for data$"),
        lambda m: f"{m['q']} 是在征求投资建议，不是询问数据",
    ),
    (
        re.compile(rf"^{_Q} is part of a date, not (?P<id>\S+)$"),
        lambda m: f"{m['q']} 是日期的一部分，不是 {m['id']}",
    ),
    (
        re.compile(rf"^{_Q} read as a word of the question, not the ticker (?P<id>\S+)$"),
        lambda m: f"{m['q']} 是问题中的普通词，不是代码 {m['id']}",
    ),
    (
        re.compile(rf"^{_Q}: not (?P<id>\S+), which is a US series$"),
        lambda m: f"{m['q']}：不是 {m['id']}，那是美国的序列",
    ),
    (
        re.compile(r"^answer: (?:a (?P<chart>\w+) chart|a table)(?P<table> and a table)?$"),
        _answer,
    ),
    (
        re.compile(r"^no measure named → (?P<w>.+)$"),
        lambda m: f"未指明指标 → {_phrase(m['w'])}",
    ),
    (
        re.compile(rf"^no time words → the past year, {_D}$"),
        lambda m: f"未提时间 → 过去一年，{_span(m)}",
    ),
    (
        re.compile(r"^ranking → bar chart, (?P<order>highest|lowest) first$"),
        lambda m: "排名 → 柱状图，" + ("从高到低" if m["order"] == "highest" else "从低到高"),
    ),
    (
        re.compile(r"^K-line → candlestick chart(?P<panels> with indicator panels)?$"),
        lambda m: "K线 → K线图" + ("，附指标面板" if m["panels"] else ""),
    ),
    (
        re.compile(r"^(?P<p>\w+) returns → (?P<c>line|bar) chart$"),
        lambda m: f"{PERIOD_ZH.get(m['p'], m['p'])}收益率 → {CHART_ZH[m['c']]}",
    ),
    (
        re.compile(r"^(?P<label>.+) → a table$"),
        lambda m: f"{_phrase(m['label'])} → 表格",
    ),
    (
        re.compile(
            rf"^forecast of (?P<id>\S+): (?P<n>\d+) (?P<p>\w+) steps from data {_D}"
            r" → chart and table$"
        ),
        lambda m: (
            f"预测 {m['id']}：基于 {_span(m)} 的数据，向前 {m['n']} 步"
            f"（{PERIOD_ZH.get(m['p'], m['p'])}）→ 图表和表格"
        ),
    ),
    (
        re.compile(r"^correlation → scatter of (?P<y>\S+) against (?P<x>\S+) with a fitted line$"),
        lambda m: f"相关性 → {m['y']} 对 {m['x']} 的散点图，附拟合线",
    ),
    (
        re.compile(r"^window length: (?P<n>[\d, ]+) observations$"),
        lambda m: f"窗口长度：{m['n'].replace(', ', '、')} 个观测值",
    ),
    (re.compile(r"^no bundled data for (?P<ids>.+)$"), lambda m: f"没有 {m['ids']} 的内置数据"),
    (
        re.compile(r"^answering for (?P<ids>.+); left out: (?P<out>.+)$"),
        lambda m: f"回答 {m['ids']}；略去 {m['out']}",
    ),
    (
        re.compile(
            r"^the window (?P<a>\S+)\.\.(?P<b>\S+) lies after the data, which ends on "
            r"(?P<last>\S+): moved to (?P<c>\S+)\.\.(?P<d>\S+)$"
        ),
        lambda m: f"窗口 {_span(m)} 在数据之后（数据截至 {m['last']}）：移至 {m['c']} 至 {m['d']}",
    ),
    (
        re.compile(r"^(?P<id>\S+) has no data in the window$"),
        lambda m: f"{m['id']} 在该时间窗口内没有数据",
    ),
    (
        re.compile(
            r"^a measure of each member of (?P<id>\S+): the (?P<n>\d+) members with bundled "
            r"data, one by one$"
        ),
        lambda m: f"逐一计算 {m['id']} 每个成分股的指标：内置数据中有 {m['n']} 个成分股",
    ),
    (
        re.compile(r"^(?P<n>\d+) of them have data in the window$"),
        lambda m: f"其中 {m['n']} 个在时间窗口内有数据",
    ),
    (
        re.compile(r"^names the catalog does not know, left out: (?P<n>.+)$"),
        lambda m: f"数据目录中没有的名称，已略去：{m['n']}",
    ),
    (
        re.compile(r"^names the catalog does not know: (?P<n>.+)$"),
        lambda m: f"数据目录中没有的名称：{m['n']}",
    ),
    (
        re.compile(
            r"^no entity named: ranking all (?P<n>\d+) bundled stocks with data in the window$"
        ),
        lambda m: f"未指明实体：对窗口内有数据的全部 {m['n']} 只内置股票排名",
    ),
    (
        re.compile(r"^the question is about dashboard data: asking for (?P<w>.+)$"),
        lambda m: f"问题涉及看板数据：请求 {m['w']}",
    ),
    (re.compile(r"^follow-up: reusing (?P<what>.+) from the previous question$"), _follow_up),
    (
        re.compile(r'^"how many" reads the column (?P<c>.+) of "(?P<t>.*)"$'),
        lambda m: f"“多少”读取“{m['t']}”的列 {m['c']}",
    ),
    (
        re.compile(r'^latest → the last row of "(?P<t>.*)", (?P<k>.+)$'),
        lambda m: f"最新 → “{m['t']}”的最后一行，{m['k']}",
    ),
    (
        re.compile(r"^rows by (?P<p>year|quarter|month): (?P<how>\w+) of each \w+$"),
        lambda m: (
            f"按{ {'year': '年', 'quarter': '季度', 'month': '月'}[m['p']] }分组："
            + {"sum": "合计", "last": "取最新值", "mean": "平均"}.get(m["how"], m["how"])
        ),
    ),
    (
        re.compile(r"^your table → (?P<c>\w+), its key on the x axis$"),
        lambda m: f"您的表格 → {m['c']}，以其键为横轴",
    ),
]

_FIXED_ZH = {
    "no entity or financial measure named": "没有提到任何实体或金融指标",
    "no entity named": "没有提到任何实体",
    "a yield, rate or return series: its values": "收益率、利率或回报序列：取其数值",
    "a future period → forecast": "未来时段 → 预测",
    "the window given is the history the forecast is fitted on": (
        "给定的时间窗口是预测所用的历史数据"
    ),
    "a scatter of several entities → their correlation": "多个实体的散点图 → 它们的相关性",
    "highest/lowest of one entity → summary statistics": "单个实体的最高/最低 → 描述性统计",
    "a ranking with no measure named → return": "排名未指明指标 → 区间收益率",
    "a comparison with no measure named → cumulative return": "比较未指明指标 → 累计收益率",
    "a comparison period by period → each period's return": "逐期比较 → 各期收益率",
    "returns of several entities side by side → a cross-section": (
        "多个实体的收益率并列 → 横截面比较"
    ),
    "several time phrases: the window spans all of them": "多个时间短语：窗口覆盖全部",
    "no start given: one year before the end": "未给出起点：取终点前一年",
}


_HOW_ZH = {
    ", a lower-case ticker": "，小写代码",
    ", read as a misspelling": "，按相近拼写识别",
    ", read by its sound (a character of the same sound typed for it)": "，按同音字识别",
    ", read as the start of its name": "，按名称开头识别",
}

_DESCRIBED = re.compile(
    r"(?<![^\s\"(])(?P<id>[^\s\"(]+) \((?P<name>.+?), (?P<kind>" + "|".join(KIND_ZH) + r")\)"
)


def chinese_trace(lines: Iterable[str], lookup: Callable[[str], Entity | None]) -> list[str]:
    """The decision trace restated in Chinese; entities `lookup` finds by id get Chinese names."""
    return [_chinese_line(line, lookup) for line in lines]


def _describe(match: re.Match[str], lookup: Callable[[str], Entity | None]) -> str:
    """`AAPL (Apple Inc., stock)` → `AAPL（苹果，股票）`."""
    entity = lookup(match["id"])
    name = chinese_name(entity) if entity is not None else match["name"]
    return f"{match['id']}（{name}，{KIND_ZH[match['kind']]}）"


def _chinese_line(line: str, lookup: Callable[[str], Entity | None]) -> str:
    if line in _FIXED_ZH:
        return _FIXED_ZH[line]
    described = _DESCRIBED.search(line)
    if described:
        line = _DESCRIBED.sub(lambda m: _describe(m, lookup), line)
        for said, zh in _HOW_ZH.items():
            line = line.replace(said, zh)
        return line
    match = re.match(r"^beta needs a market: (?P<name>.+) \((?P<id>\S+)\)$", line)
    if match:
        return f"贝塔需要市场基准：{match['name']}（{match['id']}）"
    match = re.match(r"^the window ends after today; data can only reach (?P<d>\S+)$", line)
    if match:
        return f"窗口结束于今天之后，数据最多到 {match['d']}"
    for pattern, render in _RULES:
        match = pattern.match(line)
        if match:
            return render(match)
    return line
