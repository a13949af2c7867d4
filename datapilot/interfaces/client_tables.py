"""Client tables: the tables a request brings with the question (e.g. a dashboard widget's data).

`get_client_table` reads one by name: numbers written for people (`1.2B`, `12%`, `(3.4)`,
`$1,234`) become numbers; a date column makes a time series; a key column (a name, symbol,
fiscal year or period) becomes the row labels; long tables (date or key + category + value)
are pivoted wide, so repeated dates never collide. The warehouse and catalog are not involved.

The `table_*` interfaces answering questions about such a table are in `table_answers`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import pandas as pd

from datapilot.data.client_data import dollars_written, is_missing, parse_number, percent_written
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import FrameKind, tag
from datapilot.interfaces.registry import InterfaceError, interface

_DATE_NAMES = {"date", "datetime", "time", "timestamp", "day", "month", "日期", "时间"}
# Columns that name rows rather than measure them, even when their values are numbers.
_KEY_WORDS = re.compile(
    r"(?i)(^|_|\s)(year|fy|fiscal|period|quarter|name|symbol|ticker|label|category|maturity|"
    r"item|segment|sector|country|region|id|年|季度|名称|代码)($|_|\s)"
)


@interface("acquisition", "frame")
def get_client_table(
    ctx: InterfaceContext,
    name: Annotated[str, "The name of a table the client sent (widget data)."],
) -> pd.DataFrame:
    """A table sent with the question (e.g. a dashboard widget's data): dated rows become a time
    series, a key column (name, symbol, fiscal year) the row labels, long tables are pivoted wide
    and numbers written as text (1.2B, 12%, (3.4), $1,234) become numbers."""
    found = _find_table(ctx, name)
    return read_table(ctx.tables[found], found, ctx)


def read_table(raw: pd.DataFrame, name: str, ctx: InterfaceContext | None = None) -> pd.DataFrame:
    """`raw` as `get_client_table` returns it (tagged, sources recorded in `ctx`)."""
    frame = raw.copy()
    frame.columns = [str(c) for c in frame.columns]
    units: dict[str, str] = {}
    for column in frame.columns:
        before = frame[column]
        parsed = _as_number(before)
        if parsed is not before and percent_written(before):
            units[column] = "%"
        elif parsed is not before and dollars_written(before):
            units[column] = "USD"
        frame[column] = parsed
    sources = [f"client table: {name}"]
    if ctx is not None:
        ctx.sources.add(sources[0])
    date_column = _date_column(frame)
    kind: FrameKind
    extra: dict[str, Any] = {}
    if date_column is not None:
        frame[date_column] = pd.to_datetime(frame[date_column], errors="coerce", format="mixed")
        frame = frame.dropna(subset=[date_column])
        if frame[date_column].nunique() == 1 and len(frame) > 1:
            # One date for every row (a yield curve, a snapshot): a cross-section as of that day.
            extra["as_of"] = frame[date_column].iloc[0].date().isoformat()
            frame = frame.drop(columns=[date_column])
            date_column = None
    if date_column is not None:
        frame = _long_to_wide(frame, date_column).sort_index()
        frame.index = pd.DatetimeIndex(frame.index, name="date")
        kind = "timeseries"
    else:
        key = key_column(frame)
        if key is not None and len(frame.columns) > 1:  # a lone column is the data itself
            frame = _long_to_wide(frame, key)
            frame.index = pd.Index([table_label(v) for v in frame.index], name=key)
        kind = "cross_section"
    return tag(frame, kind=kind, title=name, sources=sources, units=units or None, **extra)


def key_column(frame: pd.DataFrame) -> str | None:
    """The column naming the rows: a text column (one named like a key first), else a numeric
    column named like a year or period (fiscal_year)."""
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    named = [c for c in frame.columns if _KEY_WORDS.search(str(c))]
    for column in [*(c for c in named if c in text), *text]:
        return str(column)
    for column in named:
        values = pd.to_numeric(frame[column], errors="coerce").dropna()
        if not values.empty and (values == values.round()).all():
            return str(column)
    return None


def _long_to_wide(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows keyed by `key`; a long table (key repeated, one category column) becomes one column
    per category. Repeated keys that remain keep their last row."""
    if not frame[key].duplicated().any():
        return frame.set_index(key)
    categories = [
        c for c in frame.columns if c != key and not pd.api.types.is_numeric_dtype(frame[c])
    ]
    values = [c for c in frame.columns if c != key and c not in categories]
    if len(categories) == 1 and values:
        category = categories[0]
        wide = frame.pivot_table(
            index=key, columns=category, values=values, aggfunc="last", sort=False
        )
        if len(values) == 1:
            wide.columns = [str(c) for c in wide.columns.get_level_values(-1)]
        else:
            wide.columns = [f"{cat} {value}" for value, cat in wide.columns]
        wide.columns.name = None
        return wide
    return frame.drop_duplicates(subset=[key], keep="last").set_index(key)


def table_label(value: Any) -> Any:
    """Row labels as the table writes them: 2024, not 2024.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, pd.Timestamp):
        return value.date().isoformat()
    return value


def _find_table(ctx: InterfaceContext, name: str) -> str:
    if name in ctx.tables:
        return name
    folded = {key.lower(): key for key in ctx.tables}
    if name.lower() in folded:
        return folded[name.lower()]
    if not ctx.tables:
        raise InterfaceError(
            f"No client table named {name!r}: the request carried no tables. Send the widget's "
            "data with the question."
        )
    raise InterfaceError(
        f"No client table named {name!r}; the request carried: {', '.join(ctx.tables)}."
    )


def _as_number(values: pd.Series) -> pd.Series:
    """Numbers written as text become floats when nearly all present cells parse."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    present = ~values.map(is_missing).astype(bool)
    if not present.any():
        return values
    parsed = values.map(parse_number)
    if parsed[present].notna().mean() >= 0.9:
        return pd.to_numeric(parsed, errors="coerce").astype(float)
    return values


def _date_column(frame: pd.DataFrame) -> str | None:
    """A column holding dates: by name first, else the first text column that parses as dates."""
    candidates = sorted(
        (c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])),
        key=lambda c: str(c).strip().lower() not in _DATE_NAMES,
    )
    for column in candidates:
        values = frame[column].dropna().astype(str)
        # Fiscal periods ("FY2024", "Q1 2024") are keys, not dates.
        if values.empty or values.str.contains(r"(?i)fy|q[1-4]|h[12]").mean() > 0.5:
            continue
        parsed = pd.to_datetime(values, errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.9 and values.str.contains(r"\d{4}").all():
            return str(column)
    return None
