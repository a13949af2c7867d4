"""Display names, in English and Chinese: what a table's columns, the measures a question asks for
and the kinds of entity are called on every face (terminal, page, `/v1` text, MCP text, the
summary). The machine names (`return_pct`, `max_drawdown`) stay in JSON; these are what a person
reads. One table for columns and measures, so that each face says them the same way."""

from __future__ import annotations

import re

# A result's column (or a measure of a result) → (English, Chinese). The English name is written
# as inside a sentence ("maximum drawdown"); a header capitalises it.
COLUMNS: dict[str, tuple[str, str]] = {
    "id": ("id", "代码"),
    "date": ("date", "日期"),
    "group": ("group", "组别"),
    "rank": ("rank", "排名"),
    "period": ("period", "时段"),
    "gap": ("gap", "差距"),
    "times": ("times", "倍数"),
    "level": ("level", "价位"),
    "level_date": ("level's day", "基准日"),
    "level_close": ("that day's close", "基准日收盘价"),
    "sessions_searched": ("sessions searched", "查找的交易日数"),
    "extreme_value": ("extreme", "极值"),
    "extreme_date": ("extreme date", "极值日"),
    "reference_value": ("first close", "首日收盘"),
    "reference_date": ("first day", "首日"),
    "from_day_pct": ("from the first close", "距首日收盘"),
    "denominator": ("divided by", "除以"),
    "denominator_value": ("its value", "其数值"),
    "name": ("name", "名称"),
    "kind": ("kind", "类别"),
    "start_date": ("start date", "起始日"),
    "end_date": ("end date", "截止日"),
    "start_value": ("start value", "起始值"),
    "end_value": ("end value", "期末值"),
    "first": ("first", "首日"),
    "last": ("last", "末日"),
    "return_pct": ("return", "收益率"),
    "cumulative_return_pct": ("cumulative return", "累计收益率"),
    "max_drawdown_pct": ("maximum drawdown", "最大回撤"),
    "drawdown_pct": ("drawdown", "回撤"),
    "peak_date": ("peak date", "峰值日"),
    "high_date": ("date of the high", "最高日"),
    "low_date": ("date of the low", "最低日"),
    "range": ("range (high − low)", "极差（最高−最低）"),
    "range_pct": ("high above low (%)", "最高比最低高（%）"),
    "move_pct": ("move from the first extreme to the second (%)", "从先到的极值到后到的极值（%）"),
    "trough_date": ("trough date", "谷底日"),
    "distance_pct": ("distance from the peak", "距峰值"),
    "peak_value": ("peak value", "峰值"),
    "best_less_worst": ("best less worst", "最好减最差"),
    "excess": ("over the benchmark", "相对基准"),
    "buys": ("purchases", "买入次数"),
    "invested": ("invested", "投入本金"),
    "units": ("units held", "持有份额"),
    "first_buy": ("first purchase", "首次买入"),
    "last_buy": ("last purchase", "最后一次买入"),
    "end_close": ("closing price at the end", "期末收盘价"),
    "gain": ("gain", "盈亏"),
    "after_date": ("date after", "其后日期"),
    "after_value": ("value after", "其后数值"),
    "after_change": ("change since the extreme", "较极值的变化"),
    "trough_value": ("trough value", "谷底值"),
    "last_value": ("last value", "最新值"),
    "last_date": ("last date", "最新日"),
    "sessions": ("sessions", "交易日数"),
    "share_pct": ("share of sessions", "占交易日比例"),
    "recovery_date": ("recovery date", "恢复日"),
    "recovery_sessions": ("sessions to recovery", "收复所用交易日"),
    "recovery_value": ("recovery value", "收复时的值"),
    "forecast": ("forecast", "预测值"),
    "lower": ("lower bound", "下限"),
    "upper": ("upper bound", "上限"),
    "observations": ("observations", "样本数"),
    "mean": ("mean", "均值"),
    "median": ("median", "中位数"),
    "std": ("standard deviation", "标准差"),
    "min": ("minimum", "最小值"),
    "max": ("maximum", "最大值"),
    "count": ("count", "样本数"),
    "sum": ("sum", "合计"),
    "correlation": ("correlation", "相关系数"),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "annual_return_pct": ("annual return", "年化收益率"),
    "annual_volatility_pct": ("annual volatility", "年化波动率"),
    "annualized_return_pct": ("annualised return", "年化收益率"),
    "annualized_volatility_pct": ("annualised volatility", "年化波动率"),
    "volatility_pct": ("volatility", "波动率"),
    "cagr_pct": ("compound annual growth rate", "年复合增长率"),
    "beta": ("beta", "贝塔"),
    "alpha": ("alpha", "阿尔法"),
    "r2": ("R²", "R²"),
    "open": ("open", "开盘价"),
    "high": ("high", "最高价"),
    "low": ("low", "最低价"),
    "close": ("close", "收盘价"),
    "adj_close": ("adjusted close", "复权收盘价"),
    "volume": ("volume", "成交量"),
    "value": ("value", "数值"),
    "change": ("change", "变化"),
    "change_pct": ("change", "变化率"),
    "multiple": ("multiple of the start", "期末/期初倍数"),
    "weight": ("weight", "权重"),
    # A table answer's columns (a change between two rows, a summary of each column).
    "column": ("column", "列"),
    "from": ("from", "起点"),
    "to": ("to", "终点"),
    "from_value": ("from value", "起点值"),
    "to_value": ("to value", "终点值"),
    "latest": ("latest", "最新值"),
    "latest_at": ("latest at", "最新值时点"),
    "year": ("year", "年份"),
    "quarter": ("quarter", "季度"),
    "month": ("month", "月份"),
    "from_date": ("from date", "起算日"),
    "from_close": ("close at the start", "起算日收盘"),
    "ties": ("ties", "并列数"),
    "up": ("up", "上涨"),
    "down": ("down", "下跌"),
    "flat": ("flat", "持平"),
    "periods": ("periods", "时段数"),
}

# What a question measures (the intent's `metrics`) → (English, Chinese).
MEASURES: dict[str, tuple[str, str]] = {
    "close": ("closing price", "收盘价"),
    "return": ("return", "收益率"),
    "cumulative_return": ("cumulative return", "累计收益率"),
    "volatility": ("volatility", "波动率"),
    "max_drawdown": ("maximum drawdown", "最大回撤"),
    "distance": ("distance from the peak", "距高点的距离"),
    "count_days": ("count of sessions", "交易日计数"),
    "period_extremes": ("best and worst periods", "最好与最差的时段"),
    "leveraged": ("leveraged return", "杠杆收益率"),
    "drawdown": ("drawdown", "回撤"),
    "correlation": ("correlation", "相关系数"),
    "value": ("value", "数值"),
    "fundamentals": ("fundamentals", "财务数据"),
    "forecast": ("forecast", "预测"),
    "mean": ("mean", "均值"),
    "median": ("median", "中位数"),
    "stats": ("statistics", "统计量"),
    "yoy": ("year-over-year change", "同比变化"),
    "pop": ("period-over-period change", "环比变化"),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "annualized_return": ("annualised return", "年化收益率"),
    "investment_growth": ("growth of an investment", "投资增值"),
    "constituents": ("constituents", "成分股"),
    "company_info": ("company profile", "公司概况"),
    "news": ("news", "新闻"),
    "fund_managers": ("fund managers", "基金经理"),
    "market_views": ("short interest, ratings or price targets", "做空数据、评级或目标价"),
    "index_weights": ("index weights", "指数权重"),
    "options": ("options data", "期权数据"),
    "intraday": ("intraday data", "日内数据"),
    "best_day": ("best day", "涨幅最大的交易日"),
    "worst_day": ("worst day", "跌幅最大的交易日"),
    "volume": ("volume", "成交量"),
    "spread": ("spread", "利差"),
    "beta": ("beta", "贝塔"),
    "macd": ("MACD", "MACD"),
    "rsi": ("RSI", "RSI"),
    "kdj": ("KDJ", "KDJ"),
    "boll": ("Bollinger bands", "布林带"),
    "cci": ("CCI", "CCI"),
    "ma": ("moving average", "移动平均"),
    "kline": ("K-line", "K线"),
}

# The kinds of entity the catalog holds → (English, Chinese).
KINDS: dict[str, tuple[str, str]] = {
    "stock": ("stock", "股票"),
    "etf": ("ETF", "ETF"),
    "index": ("index", "指数"),
    "fund": ("fund", "基金"),
    "macro": ("macro series", "宏观序列"),
    "commodity": ("commodity", "商品"),
    "factor": ("factor", "因子"),
    "table": ("table", "表格"),
}

# Words an interface writes as cell values (the summary reads them): how a table shows them.
VALUES: dict[str, tuple[str, str]] = {
    "top": ("top", "前列"),
    "bottom": ("bottom", "后列"),
    # The highest and lowest values of what was ranked (a return, a close, a volatility): "涨幅
    # 最大" would call the year's highest oil price a gain.
    "best": ("best", "最高"),
    "worst": ("worst", "最低"),
}

_TWIN = re.compile(r"(.+)_(\d+)")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+")


def column_name(column: str, zh: bool) -> str:
    """A column as a sentence says it: `max_drawdown_pct` → "maximum drawdown" / 最大回撤; an
    entity's column (AAPL, ^GSPC) and a name the table lacks as written, an English snake_case
    name in words."""
    if column in COLUMNS:
        return COLUMNS[column][1 if zh else 0]
    twin = _TWIN.fullmatch(column)
    if twin and twin[1] in COLUMNS:  # a second mean beside the first is mean_2
        return COLUMNS[twin[1]][1 if zh else 0]
    if not zh and _SNAKE.fullmatch(column):
        return column.removesuffix("_pct").replace("_", " ")
    return column


def measure_name(metric: str, zh: bool) -> str:
    """A measure a question asks for, by its display name; one the table lacks as a column."""
    if metric in MEASURES:
        return MEASURES[metric][1 if zh else 0]
    return column_name(metric, zh)


def kind_name(kind: str, zh: bool) -> str:
    """A kind of entity: "stock" / 股票."""
    return KINDS[kind][1 if zh else 0] if kind in KINDS else kind


def column_header(column: str, unit: str | None, zh: bool) -> str:
    """A table's header: the column's display name, capitalised, with its unit in the language
    ("Maximum drawdown (%)", 最大回撤（%）, 起始值（美元）). A `_pct` column is in % unless told."""
    from datapilot.data.phrases_zh import unit_zh

    name = column_name(column, zh)
    if not zh and (column in COLUMNS or name != column):
        name = name[:1].upper() + name[1:]
    if not unit and column.endswith("_pct"):
        unit = "%"
    if not unit:
        return name
    return f"{name}（{unit_zh(unit)}）" if zh else f"{name} ({unit})"


def column_headers(columns: list[str], units: dict[str, str], zh: bool) -> list[str]:
    """The headers of a table's columns, in order (see `column_header`)."""
    return [column_header(column, units.get(column), zh) for column in columns]


# What a blank cell of a column means, where it means something: (English, Chinese).
BLANKS: dict[str, tuple[str, str]] = {
    "recovery_date": ("not recovered", "未收复"),
}


def cell_word(value: object, zh: bool, column: str = "") -> object:
    """A cell as a table shows it: an interface's word (top, bottom) in the language, a blank
    that means something said (a recovery date: "not recovered"); any other value as it is."""
    if isinstance(value, str) and value in VALUES:
        return VALUES[value][1 if zh else 0]
    if value is None and column in BLANKS:
        return BLANKS[column][1 if zh else 0]
    if zh and isinstance(value, str):
        # The interfaces' English joins inside a cell: a week (2020-03-16 to 2020-03-20
        # (2020-W12)), a pair of series (AAPL vs MSFT).
        if found := _WEEK.fullmatch(value):
            return f"{found['first']}至{found['last']}（{found['iso']}）"
        if " vs " in value:
            return value.replace(" vs ", "与")
    return value


_WEEK = re.compile(r"(?P<first>\S+) to (?P<last>\S+) \((?P<iso>\d{4}-W\d{2})\)")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun: "1 chunk", "12 chunks", "1,234 rows"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
