"""Chinese phrase tables for answers and charts: the interfaces' English titles, units, measures,
chart types and task kinds said in Chinese, and the small functions that translate them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from datapilot.data.display import COLUMNS

if TYPE_CHECKING:
    from datapilot.data.catalog import Entity

# Chart types, task kinds and an indicator's lines (MACD, Bollinger, KDJ …), as the summary says
# them in Chinese.
CHART_ZH: dict[str, str] = {
    "line": "折线图",
    "bar": "柱状图",
    "candlestick": "K线图",
    "scatter": "散点图",
    "area": "面积图",
    "pie": "饼图",
}
TASK_ZH: dict[str, str] = {
    "data": "数据",
    "processing": "处理",
    "prediction": "预测",
    "visualization": "展示",
}
LINE_ZH: dict[str, str] = {"macd": "DIF", "signal": "DEA", "hist": "DIF−DEA", "rsi": "RSI"}
LINE_ZH |= {"upper": "上轨", "middle": "中轨", "lower": "下轨", "close": "收盘价", "cci": "CCI"}
LINE_ZH |= {"k": "K", "d": "D", "j": "J"}
# The measures of a result's columns: the display names' Chinese (`data.display`).
MEASURE_ZH: dict[str, str] = {column: names[1] for column, names in COLUMNS.items()}

# Titles the interfaces write as they are; `title_zh` also knows the patterns below.
_TITLE_ZH = {
    "Close": "收盘价",
    "Close (adjusted)": "复权收盘价",
    "Adjusted close": "复权收盘价",
    "Open": "开盘价",
    "High": "最高价",
    "Low": "最低价",
    "Volume": "成交量",
    "Cumulative return": "累计收益率",
    "Daily return": "日收益率",
    "Daily absolute return": "日收益率绝对值",
    "Weekly return": "周收益率",
    "Monthly return": "月收益率",
    "Quarterly return": "季度收益率",
    "Annual return": "年收益率",
    "Drawdown": "回撤",
    "Maximum drawdown": "最大回撤",
    "Period return": "区间收益率",
    "Spread": "价差",
    "Ratio": "比值",
    "High-low range": "最高与最低之差",
    "Series values": "序列数值",
    "Annualised return": "年化收益率",
    "Annualised volatility": "年化波动率",
    "Sharpe ratio": "夏普比率",
    "Available entities": "可用数据",
    "Price": "价格",
}

# A title pattern renders its match, translating inner titles with the function it is given.
_Render = Callable[[re.Match[str], Callable[[str], str]], str]
_STAT_ZH = {"mean": "均值", "median": "中位数", "std": "标准差", "min": "最小值", "max": "最大值"}
_STAT_ZH |= {"count": "样本数", "sum": "合计", "last": "最新值", "first": "首个值"}
_PERIOD_ZH = {"daily": "日", "weekly": "周", "monthly": "月", "quarterly": "季度", "annual": "年"}
_METHOD_ZH = {"pearson": "皮尔逊", "spearman": "斯皮尔曼", "kendall": "肯德尔"}
_CHANGE_ZH = {
    "year-over-year": "同比",
    "quarter-over-quarter": "环比",
    "month-over-month": "月环比",
    "period-over-period": "逐期",
}
_TITLE_PATTERNS: list[tuple[re.Pattern[str], _Render]] = [
    (re.compile(r"(?P<x>.+) OHLCV"), lambda m, zh: "开高低收和成交量"),
    (
        re.compile(r"(?P<x>.+) at (?P<n>[\d.]+)x daily leverage"),
        lambda m, zh: f"{zh(m['x'])}（{m['n']}倍每日杠杆）",
    ),
    (re.compile(r"Close \(adjusted for (?P<x>.+)\)"), lambda m, zh: f"收盘价（{m['x']}为复权价）"),
    (
        re.compile(r"Adjusted close \(close for (?P<x>.+)\)"),
        lambda m, zh: f"复权收盘价（{m['x']}为收盘价）",
    ),
    (
        re.compile(r"(?P<ind>[A-Z]+(?:\([^)]*\))?) of (?P<x>\S+)"),
        lambda m, zh: f"{m['x']}的{m['ind']}",
    ),
    (
        re.compile(r"(?P<n>\d+)-period rolling volatility(?P<a> \(annualised\))?"),
        lambda m, zh: f"{m['n']}期滚动波动率" + ("（年化）" if m["a"] else ""),
    ),
    (re.compile(r"(?P<n>\d+)-period rolling correlation"), lambda m, zh: f"{m['n']}期滚动相关系数"),
    (
        re.compile(r"Correlation \((?P<m>\w+)\)"),
        lambda m, zh: f"相关系数（{_METHOD_ZH.get(m['m'], m['m'])}）",
    ),
    (
        re.compile(r"(?i)(?P<s>mean|median|std|min|max|count|sum|last|first) of (?P<x>.+)"),
        lambda m, zh: f"{zh(m['x'])}{_STAT_ZH[m['s'].lower()]}",
    ),
    (re.compile(r"Statistics of (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}统计量"),
    (
        re.compile(r"(?i)(?P<p>daily|weekly|monthly|quarterly|annual) (?P<log>log )?return"),
        lambda m, zh: f"{_PERIOD_ZH[m['p'].lower()]}{'对数' if m['log'] else ''}收益率",
    ),
    (
        re.compile(r"(?P<x>.+) volatility forecast \((?P<m>.+)\)"),
        lambda m, zh: f"{zh(m['x'])}波动率预测（{model_zh(m['m'])}）",
    ),
    (
        re.compile(r"(?P<x>.+) forecast \((?P<m>.+)\)"),
        lambda m, zh: f"{zh(m['x'])}预测（{model_zh(m['m'])}）",
    ),
    (
        re.compile(
            r"(?i)(?P<a>annualised )?"
            r"(?P<c>year-over-year|quarter-over-quarter|month-over-month|period-over-period) change"
        ),
        lambda m, zh: f"{_CHANGE_ZH[m['c'].lower()]}变化" + ("（年化）" if m["a"] else ""),
    ),
    (
        re.compile(r"(?P<n>\d+)-period moving average of (?P<x>.+)"),
        lambda m, zh: f"{zh(m['x'])}的{m['n']}期移动平均",
    ),
    (re.compile(r"Normalised to (?P<b>.+)"), lambda m, zh: f"归一化（基期={m['b']}）"),
    (re.compile(r"Beta vs (?P<x>.+)"), lambda m, zh: f"相对{zh(m['x'])}的贝塔"),
    (re.compile(r"Members of (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}成分股"),
    (re.compile(r"(?P<x>.+) fundamentals \((?P<p>.+)\)"), lambda m, zh: f"{zh(m['x'])}财务数据"),
    (re.compile(r"News about (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}相关新闻"),
    (re.compile(r"(?P<x>.+) NAV"), lambda m, zh: f"{zh(m['x'])}净值"),
    (
        re.compile(r"Top and bottom (?P<n>\d+) by (?P<c>\w+)"),
        lambda m, zh: f"按{MEASURE_ZH.get(m['c'], m['c'])}的前{m['n']}名和后{m['n']}名",
    ),
    (
        re.compile(r"(?P<w>Best and worst|Best|Worst) daily returns"),
        lambda m, zh: {"Best": "涨幅最大的交易日", "Worst": "跌幅最大的交易日"}.get(
            m["w"], "涨跌幅最大的交易日"
        ),
    ),
    (re.compile(r"Growth of (?P<a>[\d,]+) invested"), lambda m, zh: f"投入{m['a']}的价值走势"),
    (
        re.compile(r"Sharpe ratio \(risk-free rate (?P<r>.+) a year\)"),
        lambda m, zh: f"夏普比率（无风险利率每年{m['r']}）",
    ),
    (re.compile(r"Annualised volatility.*"), lambda m, zh: "年化波动率"),
]


def title_zh(title: str, by_name: Mapping[str, str]) -> str:
    """An English title from the interfaces in Chinese: known words, entity names, and the
    patterns the interfaces write ("KDJ(9, 3, 3) of IBM", "30-period rolling volatility")."""
    title = title.strip()
    if " & " in title:
        return "、".join(title_zh(part, by_name) for part in title.split(" & "))
    if title in _TITLE_ZH:
        return _TITLE_ZH[title]
    if title in by_name:
        return by_name[title]
    for pattern, render in _TITLE_PATTERNS:
        if found := pattern.fullmatch(title):
            return render(found, lambda part: title_zh(part, by_name))
    return title


_MODEL_ZH = (
    (" with drift", "，含漂移项"),
    (" on log values", "，对数尺度"),
    (", annualised", "，年化"),
)


def model_zh(model: str) -> str:
    """A forecast model's description in Chinese ("ARIMA(1,1,1) with drift" → …，含漂移项)."""
    for english, chinese in _MODEL_ZH:
        model = model.replace(english, chinese)
    return model


# Units as the catalog and interfaces write them, in Chinese (longest phrases first).
_UNIT_WORDS_ZH = (
    ("percentage points", "个百分点"),
    ("basis points", "个基点"),
    ("index points", "点"),
    ("billions of", "十亿"),
    ("millions of", "百万"),
    ("thousands of", "千"),
    ("per troy ounce", "/盎司"),
    ("per million BTU", "/百万英热单位"),
    ("per barrel", "/桶"),
    ("per pound", "/磅"),
    ("per ", "/"),
    ("(SAAR)", "（季调年率）"),
    ("persons", "人"),
    ("units", "套"),
    ("shares", "股"),
    ("USD", "美元"),
    ("CNY", "元"),
    ("HKD", "港元"),
    ("JPY", "日元"),
    ("EUR", "欧元"),
)
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
_CHAINED = re.compile(r"chained (?P<y>\d{4}) (?P<c>\S+)")
_INDEX_BASE = re.compile(r"^index (?P<b>.+=100)$")
_REBASED = re.compile(r"^index, start = (?P<b>.+)$")  # `normalize`'s unit


def unit_zh(unit: str) -> str:
    """A unit in Chinese ("USD per barrel" → 美元/桶); parts it does not know stay as written."""
    parts = []
    for part in unit.split("; "):
        if based := _INDEX_BASE.match(part):
            parts.append(f"（指数，{based['b']}）")
            continue
        if rebased := _REBASED.match(part):
            parts.append(f"指数，起点 = {rebased['b']}")
            continue
        chained = _CHAINED.search(part)
        if chained:
            part = _CHAINED.sub(chained["c"], part) + f"（{chained['y']}年不变价）"
        for english, chinese in _UNIT_WORDS_ZH:
            part = part.replace(english, chinese)
        part = re.sub(r"\s*([（/])\s*", r"\1", part).replace("）（", "，")
        parts.append(_CJK_GAP.sub("", part).strip())
    return "；".join(parts)


def chinese_name(entity: Entity) -> str:
    """苹果 for Apple, 标普500 for S&P 500; IBM and AMD stay as they are; the English name when
    no Chinese one exists."""
    if re.fullmatch(r"[A-Z0-9.&^-]+", entity.name):
        return entity.name  # IBM, AMD: one upper-case word, written the same way in Chinese
    chinese = [a for a in entity.aliases if any("\u3400" <= ch <= "\u9fff" for ch in a)]
    # The alias keeping the name's numbers and acronyms: 标普500 rather than 美股大盘 for S&P
    # 500, WTI原油 rather than 原油 for WTI crude oil.
    digits = re.findall(r"\d+", entity.name)
    for kept in (digits + re.findall(r"\b[A-Z]{2,}\b", entity.name), digits):
        for alias in chinese:
            if kept and all(k in alias for k in kept):
                return alias
    return chinese[0] if chinese else entity.name
