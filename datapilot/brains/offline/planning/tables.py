"""Questions about the tables the client sent, answered from the tables themselves.

Each table the question concerns is read with `get_client_table`, then, by what the question
asks: a summary (`describe_table`), the change between two rows (`table_change`), the highest or
lowest row (`table_extreme`), totals and group aggregates (`table_aggregate`), a cell by row key
and column words (`table_lookup`), statistics, correlation, or a chart with the table's key on x.
A question the table cannot answer gets the table's summary and a note listing its columns.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.client_tables import (
    columns_named,
    counted_column,
    numeric_columns,
    row_keys,
)
from datapilot.brains.offline.client_tables import table_columns as named_columns
from datapilot.core.context import ClientTable
from datapilot.interfaces.client_tables import read_table
from datapilot.interfaces.table_words import english_words

if TYPE_CHECKING:
    from datapilot.brains.offline.planning.base import PlannerBase

_DESCRIBE = re.compile(
    r"(?i)\b(?:summari[sz]e|summary|overview|describe|what(?:'s| is) in)\b|总结|概述|概括|汇总"
)
_MAX = re.compile(
    r"(?i)\b(?:highest|largest|biggest|max|maximum|most|peak|top|best)\b|最高|最大|最多"
)
_MIN = re.compile(
    r"(?i)\b(?:lowest|smallest|min|minimum|least|fewest|worst|bottom)\b|最低|最小|最少"
)
_CHANGE = re.compile(
    r"(?i)\b(?:growth|grow|grew|change|changed|increase|decrease|rise|rose|fall|fell|cagr)\b"
    r"|增长|变化|增速|涨|跌"
)
_AGGREGATES = (
    (re.compile(r"(?i)\b(?:total|sum)\b|合计|总计|总和|总额|总量|总市值|一共|加起来|汇总"), "sum"),
    (re.compile(r"(?i)\b(?:average|avg|mean)\b|平均|均值"), "mean"),
    (re.compile(r"(?i)\bmedian\b|中位数"), "median"),
    (re.compile(r"(?i)\b(?:count|how many)\b|多少个|几个"), "count"),
)
_BY = re.compile(
    r"(?i)\b(?:by|per|for each|across|grouped by|against)\s+(?:the\s+)?([\w ]+)"
    r"|按(\S+?)(?:分组|统计|画|的|$)"
)
# "the latest close", 最新股价: the last row of a dated table ("last" only before a column word,
# so "the last 5 days" stays a window).
_LATEST = re.compile(
    r"(?i)\b(?:latest|most recent|newest|current)\b|\blast\s+(?=clos|pric|valu|quote|row)"
    r"|最新|目前|当前|最近一(?:天|期|个交易日)"
)
# "each year", "every row", 分别, 各年: every value asked for, as a table (not a summary).
_EACH = re.compile(r"(?i)\b(?:each|every|all)\b|分别|各|每")
# Rows of a dated table grouped by calendar period ("by year", 按年, 每年, annual).
_PERIODS = (
    (
        re.compile(
            r"(?i)\b(?:by|per|each|every)\s+(?:calendar\s+)?year\b|\byearly\b|\bannual"
            r"|按年|每年|各年|年度"
        ),
        "year",
    ),
    (re.compile(r"(?i)\b(?:by|per|each|every)\s+quarter\b|按季|每季|各季"), "quarter"),
    (re.compile(r"(?i)\b(?:by|per|each|every)\s+month\b|按月|每月|各月"), "month"),
)
# Measures that add up over a period (a year's revenue is its quarters' sum); others (prices,
# rates, estimates) are read at the period's last row.
_FLOWS = re.compile(
    r"(?i)revenue|sales|income|profit|earning|volume|dividend|cash|turnover|ebitda|eps|amount"
)
_CHARTS = {
    "bar": "plot_bar",
    "area": "plot_area",
    "pie": "plot_pie",
    "line": "plot_line",
    "scatter": "plot_scatter",
}


def plan_client_tables(p: PlannerBase) -> None:
    """Add the calls answering the reading's question from its client tables."""
    for table in p.r.tables[:4]:
        _plan_table(p, table)


def _plan_table(p: PlannerBase, table: ClientTable) -> None:
    r = p.r
    text = r.text
    data = p.builder.add(
        "get_client_table",
        {"name": table.name},
        name="client_table",
        description=p._say(
            f'Read the table "{table.name}" you sent', f"读取您发送的表格“{table.name}”"
        ),
        task="data",
    )
    if p.primary is None:
        p.primary = data
    shape = _shape(table)
    # Columns as read (a long table's symbols once pivoted) first, else as sent.
    columns = columns_named(text, shape.columns) or [
        c for c in named_columns(text, table) if c in shape.numeric or c in shape.columns
    ]
    # "how many analysts": the column counting them, not a count of rows.
    counted = counted_column(text, shape.numeric)
    if counted is not None:
        p.trace.append(f'"how many" reads the column {counted} of "{table.name}"')
    measures = [c for c in columns if c in shape.numeric and c != counted]
    keys = row_keys(_without_columns(text, columns), shape.labels)
    if not keys and shape.labels and _LATEST.search(text) and (shape.dated or _yearly(shape)):
        keys = [str(shape.labels[-1])]
        p.trace.append(f'latest → the last row of "{table.name}", {keys[0]}')
    by = _by_column(text, shape, columns)
    period = _period(text) if shape.dated and by is None else None
    charted = r.plot_asked and not r.table_only
    each = bool(_EACH.search(text)) and not charted
    if _DESCRIBE.search(text) and not charted and not (by and _aggregate(text)):
        # "按行业汇总" totals by group; "汇总这些数据" alone summarises the table.
        _describe(p, data, table)
        return
    if _CHANGE.search(text) and len(keys) >= 2:
        for column in measures or shape.numeric[:1]:
            p._table(
                _call(p, "table_change", data, column=column, start=keys[0], end=keys[-1]),
                f"{table.name}: change in {column}, {keys[0]} to {keys[-1]}",
            )
        return
    how = _aggregate(text)
    if how == "count" and (keys or counted):
        how = None  # "how many shares of MSFT": a cell of the row named, not a count of rows
    if how and any(c.casefold() in _AGGREGATE_NAMES[how] for c in measures):
        how = None  # "the mean estimate for each year": the table's column named mean
    which = [w for w, pattern in (("max", _MAX), ("min", _MIN)) if pattern.search(text)]
    if which and not charted and not how:
        ranked = measures[:1] or [_default_column(shape)]
        also = [c for c in [counted, *measures[1:]] if c and c not in ranked]
        for column in ranked:
            for extreme in which:
                extra = {"also": also} if also else {}
                result = _call(p, "table_extreme", data, column=column, which=extreme, **extra)
                p._table(result, f"{table.name}: {extreme} {column}")
        return
    if period and (measures or how):
        _by_period(p, data, table, measures, how, period)
        return
    if counted and not keys and not measures and not each:
        measures = [counted]
    if how:
        args: dict[str, Any] = {"columns": measures or None, "how": how, "by": by}
        result = _call(p, "table_aggregate", data, **args)
        title = f"{table.name}: {how} of {', '.join(measures) or 'every column'}"
        if by:
            title += f" by {by}"
            if not r.table_only:
                _draw(p, result, title, bar=True)
        if r.table or not (by and r.plot_asked):
            p._table(result, title)
        return
    if keys and not charted:
        asked = [c for c in [counted, *measures] if c] or columns
        if not asked and _LATEST.search(text) and shape.numeric:
            asked = [_default_column(shape)]  # "the latest price" of a table of prices
        p._table(
            _call(p, "table_lookup", data, rows=keys, columns=asked or None),
            f"{table.name}: {', '.join(keys)}",
        )
        return
    if each and (measures or counted) and not shape.dated and len(shape.labels) <= 20:
        # Every value asked for, each row's exactly as the table has it.
        asked = [c for c in [*measures, counted] if c]
        p._table(_call(p, "table_lookup", data, columns=asked), f"{table.name}: {', '.join(asked)}")
        return
    if columns:
        data = p.builder.add(
            "select_columns",
            {"frame": frame(data), "columns": measures or columns},
            name="columns",
            description=p._say(
                f"Keep {', '.join(measures or columns)}", f"保留列{'、'.join(measures or columns)}"
            ),
            task="processing",
        )
    title = table.name if not measures else f"{table.name}: {', '.join(measures)}"
    if _statistics(p, data, title):
        return
    if shape.numeric and r.question_form and not (columns or keys or r.plot_asked or r.table):
        p._table(_call(p, "describe_table", data, unanswered=True), f"summary of {table.name}")
        p.trace.append(f'nothing the question asks for is a column of "{table.name}"')
        return
    if not shape.numeric:
        _call(p, "describe_table", data)  # its answer quotes the text; the table is shown below
    chartable = bool(numeric_columns(table, measures)) and not r.table_only and not each
    if chartable:
        _draw(p, data, title, bar=not shape.dated)
    if r.table or not r.plot_asked or not chartable:
        small = not shape.dated and len(shape.labels) <= 20 and 0 < len(shape.numeric) <= 4
        # A small table is read out in full, its numbers exactly as sent.
        shown = _call(p, "table_lookup", data) if small and not r.plot_asked else data
        p._table(shown, title)


class _Shape:
    """What the table looks like once read: row labels, columns, numeric columns."""

    def __init__(
        self, labels: list[Any], columns: list[str], numeric: list[str], key: str, dated: bool
    ):
        self.labels, self.columns, self.numeric, self.key = labels, columns, numeric, key
        self.dated = dated


def _shape(table: ClientTable) -> _Shape:
    try:
        read = read_table(table.to_frame(), table.name)
    except (ValueError, TypeError, KeyError):
        read = table.to_frame()
    numeric = [str(c) for c in read.columns if pd.api.types.is_numeric_dtype(read[c])]
    labels = [v.date().isoformat() if isinstance(v, pd.Timestamp) else v for v in read.index]
    dated = isinstance(read.index, pd.DatetimeIndex)
    columns = [str(c) for c in read.columns]
    return _Shape(labels, columns, numeric, str(read.index.name or ""), dated)


def _without_columns(text: str, columns: list[str]) -> str:
    """The text with column names blanked, so "year_2" is not read as the row 2."""
    for column in columns:
        text = re.sub(re.escape(column), " ", text, flags=re.IGNORECASE)
    return text


def _by_column(text: str, shape: _Shape, columns: list[str]) -> str | None:
    """The column after "by" / "per" / 按 naming groups: the key or another text column."""
    match = _BY.search(text)
    if match is None:
        return None
    words = english_words(match.group(1) or match.group(2) or "").casefold().strip()
    if not words:
        return None
    candidates = [shape.key, *(c for c in shape.columns if c not in shape.numeric)]
    for column in candidates:
        spoken = column.casefold().replace("_", " ")
        if column and (spoken in words.replace("_", " ") or words.split()[:1] == [spoken]):
            return column
    for column in candidates:
        parts = [w for w in column.casefold().split("_") if w]
        if column and parts and any(w in words.split() for w in parts):
            return column
    return None


# The column names an aggregate word may stand for: a table's own "mean" column is read, not
# averaged again.
_AGGREGATE_NAMES = {
    "sum": {"sum", "total"},
    "mean": {"mean", "average", "avg"},
    "median": {"median"},
    "count": {"count"},
}


def _default_column(shape: _Shape) -> str:
    """The column a question names no column of means: the consensus of an estimates table
    (mean, avg, consensus), the close of a price table, else the first numeric column."""
    central = [
        c
        for c in shape.numeric
        if set(re.findall(r"[a-z]+", c.casefold())) & {"mean", "avg", "average", "consensus"}
    ]
    if central:
        return central[0]
    closes = [c for c in shape.numeric if c.casefold() in {"close", "adj_close", "adj close"}]
    return (closes or shape.numeric)[0]


def _yearly(shape: _Shape) -> bool:
    """Rows keyed by years (fiscal years), in order: their last row is the latest."""
    years = [str(v) for v in shape.labels]
    return bool(years) and all(re.fullmatch(r"(?:FY)?\d{4}", y) for y in years)


def _period(text: str) -> str | None:
    return next((period for pattern, period in _PERIODS if pattern.search(text)), None)


def _by_period(
    p: PlannerBase,
    data: str,
    table: ClientTable,
    measures: list[str],
    how: str | None,
    period: str,
) -> None:
    """A dated table's rows by calendar period: flows summed ("revenue by year"), levels read
    at the period's last row, or the aggregate the question names; a bar chart when asked."""
    columns = measures or None
    if how is None:
        how = "sum" if measures and all(_FLOWS.search(c) for c in measures) else "last"
    result = _call(p, "table_aggregate", data, columns=columns, how=how, by=period)
    title = f"{table.name}: {how} of {', '.join(measures) or 'every column'} by {period}"
    p.trace.append(f"rows by {period}: {how} of each {period}")
    if p.r.plot_asked and not p.r.table_only:
        _draw(p, result, title, bar=True)
    if p.r.table or not p.r.plot_asked:
        p._table(result, title)


def _aggregate(text: str) -> str | None:
    return next((how for pattern, how in _AGGREGATES if pattern.search(text)), None)


def _call(p: PlannerBase, interface: str, data: str, **args: Any) -> str:
    words = {
        "table_change": ("Compute the change between the rows", "计算两行之间的变化"),
        "table_extreme": ("Find the row with the extreme value", "找出最高或最低的行"),
        "table_aggregate": ("Aggregate the columns", "汇总各列"),
        "table_lookup": ("Look up the cells asked for", "查找所问的单元格"),
        "describe_table": ("Summarise the table", "概括表格"),
    }[interface]
    return p.builder.add(
        interface,
        {"frame": frame(data), **args},
        name=interface.removeprefix("table_"),
        description=p._say(*words),
        task="processing",
    )


def _describe(p: PlannerBase, data: str, table: ClientTable) -> None:
    p._table(_call(p, "describe_table", data), f"summary of {table.name}")


def _statistics(p: PlannerBase, data: str, title: str) -> bool:
    from datapilot.brains.offline.planning.base import STAT_INTERFACES, STATS, ZH_STAT

    r = p.r
    stats = [m for m in r.metrics if m in STATS]
    for metric in stats:
        interface = STAT_INTERFACES.get(metric, metric)
        result = p.builder.add(
            interface,
            {"frame": frame(data)},
            name=metric,
            description=p._say(f"Compute the {metric}", f"计算{ZH_STAT[metric]}"),
            task="processing",
        )
        p._table(result, f"{metric}: {title}")
    if stats:
        return True
    if "correlation" in r.metrics:
        matrix = p.builder.add(
            "correlation",
            {"frame": frame(data)},
            name="correlation",
            description=p._say("Compute the correlation matrix", "计算相关系数矩阵"),
            task="processing",
        )
        p._table(matrix, f"correlation: {title}")
        return True
    return False


def _draw(p: PlannerBase, data: str, title: str, *, bar: bool) -> None:
    chart = _CHARTS.get(p.r.chart or "", "plot_bar" if bar else "plot_line")
    if bar and chart in ("plot_line", "plot_area"):
        # Lines and areas are drawn over dates; rows keyed by fiscal year or name get bars.
        chart = "plot_bar"
        p.r.notes.append(
            p._say(
                "A line chart needs dated rows; the table's rows are drawn as bars.",
                "折线图需要按日期排列的行；表格的各行以柱状图画出。",
            )
        )
        p.trace.append("a line over rows that are not dates → bars")
    options = p._form(chart)[1] if chart in ("plot_pie", "plot_line") else {}
    p._chart(chart, data, title, **options)
    p.trace.append(f"your table → {chart}, its key on the x axis")
