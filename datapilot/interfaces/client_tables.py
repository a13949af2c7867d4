"""Client tables: the tables a request brings with the question (e.g. a dashboard widget's data).

`get_client_table` reads one by name: numbers written for people (`1.2B`, `12%`, `(3.4)`,
`$1,234`) become numbers; a date column makes a time series; a key column (a name, symbol,
fiscal year or period) becomes the row labels; long tables (date or key + category + value)
are pivoted wide, so repeated dates never collide. The warehouse and catalog are not involved.

The `table_*` interfaces answer questions about such a table — a cell, the highest row, the
change between two rows, totals and group aggregates, a summary — and state their answer in
`attrs["answer"]` with the table's numbers quoted exactly as the table holds them.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

import pandas as pd

from datapilot.data.client_data import dollars_written, is_missing, parse_number, percent_written
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import FrameKind, tag
from datapilot.interfaces.registry import Frame, InterfaceError, interface

_SMALL = 20  # rows a whole-table answer quotes
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
            frame.index = pd.Index([_label(v) for v in frame.index], name=key)
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


def _label(value: Any) -> Any:
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


# --- answers from a table -----------------------------------------------------------------------


def exact(value: Any) -> str:
    """A table's number as the table holds it: every digit kept, thousands separated."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,}"


def _rounded(value: float) -> str:
    return f"{value:,.2f}"


def _with_unit(text: str, frame: pd.DataFrame, column: str) -> str:
    unit = (frame.attrs.get("units") or {}).get(column) or ""
    return f"{text}%" if unit == "%" else f"{text} {unit}".strip()


def _row_label(frame: pd.DataFrame, at: Any) -> str:
    if isinstance(at, pd.Timestamp):
        return at.date().isoformat()
    return str(at)


def _column(frame: pd.DataFrame, column: str) -> str:
    if column in frame.columns:
        return column
    folded = {str(c).casefold(): str(c) for c in frame.columns}
    if column.casefold() in folded:
        return folded[column.casefold()]
    raise InterfaceError(
        f"The table has no column {column!r}; its columns are: "
        f"{', '.join(map(str, frame.columns))}."
    )


def _numbers(frame: pd.DataFrame, column: str) -> pd.Series:
    name = _column(frame, column)
    values = pd.to_numeric(frame[name], errors="coerce")
    if values.notna().sum() == 0:
        raise InterfaceError(f"The column {name!r} holds no numbers.")
    return values


def find_row(frame: pd.DataFrame, key: str) -> Any:
    """The row label `key` means: the label itself, `FY2024` ↔ `2024`, a year in a date index
    (its last row), or a label containing the key."""
    wanted = _key_text(key)
    if isinstance(frame.index, pd.DatetimeIndex):
        year = re.search(r"\d{4}", key)
        try:
            stamp = pd.Timestamp(key)
        except (ValueError, TypeError):
            stamp = None
        if stamp is not None and not re.fullmatch(r"\D*\d{4}\D*", key) and stamp in frame.index:
            return stamp
        if year:
            rows = frame.index[frame.index.year == int(year.group(0))]
            if len(rows):
                return rows[-1]
    labels = list(frame.index)
    for label in labels:
        if _key_text(str(label)) == wanted:
            return label
    for label in labels:
        text = _key_text(str(label))
        if wanted and (
            wanted in text.split() or re.search(rf"(?<!\d){re.escape(wanted)}(?!\d)", text)
        ):
            return label
    shown = ", ".join(_row_label(frame, label) for label in labels[:12])
    raise InterfaceError(f"The table has no row {key!r}; its rows are: {shown}.")


def _key_text(text: str) -> str:
    """A row key compared loosely: case, `FY`, punctuation and spaces do not matter."""
    folded = text.casefold().strip()
    folded = re.sub(r"\bfy\s*'?", "", folded)
    folded = re.sub(r"\.0$", "", folded)
    return re.sub(r"[\s_\-/]+", " ", folded).strip()


def _answer(
    frame: pd.DataFrame, lines: list[str], title: str, source: pd.DataFrame
) -> pd.DataFrame:
    return tag(
        frame,
        kind="cross_section",
        title=title,
        sources=source.attrs.get("sources") or [],
        answer=lines,
        units=source.attrs.get("units") or None,
    )


@interface("processing", "frame")
def table_lookup(
    ctx: InterfaceContext,
    frame: Frame,
    rows: Annotated[
        list[str] | None, "Row keys as the question says them (FY2024, 2024, AAPL); default all."
    ] = None,
    columns: Annotated[list[str] | None, "Columns to read; default every column."] = None,
) -> pd.DataFrame:
    """The cells of a client table at the rows (and columns) named, quoted exactly."""
    names = [_column(frame, c) for c in columns] if columns else [str(c) for c in frame.columns]
    if rows:
        found = list(dict.fromkeys(find_row(frame, key) for key in rows))
    elif len(frame) <= _SMALL:
        found = list(frame.index)
    else:
        raise InterfaceError(
            f"The table has {len(frame)} rows; name the rows to read (at most {_SMALL} at once)."
        )
    result = frame.loc[found, names]
    if len(names) == 1:
        (only,) = names
        cells = "; ".join(
            f"{_row_label(frame, at)} {_with_unit(exact(frame.loc[at, only]), frame, only)}"
            for at in found
        )
        lines = [f"{only}: {cells}."]
    else:
        lines = [
            f"{_row_label(frame, at)}: "
            + ", ".join(f"{c} {_with_unit(exact(frame.loc[at, c]), frame, c)}" for c in names)
            + "."
            for at in found
        ]
    title = f"{frame.attrs.get('title', 'table')}: {', '.join(names)}"
    return _answer(result.copy(), lines, title, frame)


@interface("processing", "frame")
def table_extreme(
    ctx: InterfaceContext,
    frame: Frame,
    column: Annotated[str, "The column to rank by."],
    which: Annotated[Literal["max", "min"], "The highest or the lowest value."] = "max",
    n: Annotated[int, "How many rows."] = 1,
) -> pd.DataFrame:
    """The row(s) of a client table with the highest (or lowest) value in a column, with the
    row's key and its other columns."""
    values = _numbers(frame, column).dropna()
    name = _column(frame, column)
    order = values.sort_values(ascending=which == "min", kind="stable").index[: max(n, 1)]
    result = frame.loc[order].copy()
    result.insert(0, "rank", range(1, len(result) + 1))
    word = "highest" if which == "max" else "lowest"
    lines = []
    for at in order:
        others = [
            f"{c} {_with_unit(exact(frame.loc[at, c]), frame, str(c))}"
            for c in frame.columns
            if c != name and not is_missing(frame.loc[at, c])
        ][:6]
        line = f"The {word} {name} is {_with_unit(exact(frame.loc[at, name]), frame, name)}"
        line += f", in {_row_label(frame, at)}"
        lines.append(line + (f" ({'; '.join(others)})" if others else "") + ".")
    return _answer(result, lines, f"{word} {name}", frame)


@interface("processing", "frame")
def table_change(
    ctx: InterfaceContext,
    frame: Frame,
    column: Annotated[str, "The column whose change is measured."],
    start: Annotated[str, "The row the change starts from (a key: 2023, FY2023, a date)."],
    end: Annotated[str, "The row the change ends at."],
) -> pd.DataFrame:
    """The change of a column between two rows of a client table: both values (exact), the change,
    the change in % and, between years, the compound annual growth rate."""
    values = _numbers(frame, column)
    name = _column(frame, column)
    first_at, last_at = find_row(frame, start), find_row(frame, end)
    first, last = float(values.loc[first_at]), float(values.loc[last_at])
    row: dict[str, Any] = {
        "from": _row_label(frame, first_at),
        "from_value": first,
        "to": _row_label(frame, last_at),
        "to_value": last,
        "change": last - first,
    }
    a, b = _row_label(frame, first_at), _row_label(frame, last_at)
    line = (
        f"{name} went from {_with_unit(exact(first), frame, name)} in {a} to "
        f"{_with_unit(exact(last), frame, name)} in {b}: a change of {_rounded(last - first)}"
    )
    if first > 0 and last > 0:
        row["change_pct"] = (last / first - 1) * 100
        line += f" ({_rounded(row['change_pct'])}%)"
        years = [re.search(r"\d{4}", x) for x in (a, b)]
        if all(years) and years[0] and years[1]:
            span = int(years[1].group(0)) - int(years[0].group(0))
            if span > 1:
                row["cagr_pct"] = ((last / first) ** (1 / span) - 1) * 100
                line += f", {_rounded(row['cagr_pct'])}% a year over {span} years"
    result = pd.DataFrame([row], index=pd.Index([name], name="column"))
    return _answer(result, [line + "."], f"change in {name}, {a} to {b}", frame)


_HOW = Literal["sum", "mean", "median", "min", "max", "count"]
_HOW_WORDS = {
    "sum": "total",
    "mean": "average",
    "median": "median",
    "min": "lowest",
    "max": "highest",
    "count": "count",
}


@interface("processing", "frame")
def table_aggregate(
    ctx: InterfaceContext,
    frame: Frame,
    columns: Annotated[list[str] | None, "Columns to aggregate; default every numeric one."],
    how: Annotated[_HOW, "sum, mean, median, min, max or count."] = "sum",
    by: Annotated[str | None, "Group rows by this column (or the row key) first."] = None,
) -> pd.DataFrame:
    """Totals, means … of a client table's columns, over all rows or by group."""
    data = frame.reset_index()
    key = str(data.columns[0])
    numeric = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    names = [_column(frame, c) for c in columns] if columns else numeric
    if not names:
        raise InterfaceError("The table has no numeric column to aggregate.")
    for name in names:
        data[name] = pd.to_numeric(data[name], errors="coerce")
    word = _HOW_WORDS[how]
    if by is not None:
        group = key if by.casefold() in {key.casefold(), "key"} else _column(data, by)
        result = data.groupby(group, sort=False)[names].agg(how)
        lines = [
            f"{word} {name} by {group}: "
            + ", ".join(
                f"{_label(at)} {_with_unit(_agg_text(v, how), frame, name)}"
                for at, v in result[name].items()
            )
            for name in names
        ]
        result.index = pd.Index([_label(v) for v in result.index], name=group)
        title = f"{word} {', '.join(names)} by {group}"
    else:
        totals = data[names].agg(how)
        result = pd.DataFrame({how: totals}, index=pd.Index(names, name="column"))
        rows = len(data)
        lines = [
            f"The {word} of {name} over {rows} rows is "
            f"{_with_unit(_agg_text(float(totals[name]), how), frame, name)}."
            for name in names
        ]
        title = f"{word} of {', '.join(names)}"
    return _answer(result, lines, title, frame)


def _agg_text(value: float, how: str) -> str:
    # A sum, min or max is made of the table's own numbers; a mean or median is computed.
    return exact(value) if how in {"sum", "min", "max", "count"} else _rounded(value)


@interface("processing", "frame")
def describe_table(
    ctx: InterfaceContext,
    frame: Frame,
    unanswered: Annotated[
        bool, "The question asked for something the table lacks: say so and list its columns."
    ] = False,
) -> pd.DataFrame:
    """What a client table holds: rows, the first and last row keys, and per numeric column its
    range and latest value."""
    title = str(frame.attrs.get("title") or "table")
    key = str(frame.index.name or "")
    listed = ", ".join([*([key] if key else []), *map(str, frame.columns)])
    said = [f'I could not find that in "{title}"; its columns are: {listed}.'] if unanswered else []
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    keys = [_row_label(frame, at) for at in frame.index]
    head = f'"{title}" has {len(frame)} rows and {len(frame.columns)} columns'
    if keys:
        head += f", from {keys[0]} to {keys[-1]}"
    as_of = frame.attrs.get("as_of")
    lines = [*said, head + (f" (as of {as_of})" if as_of else "") + "."]
    rows = []
    for column in numeric:
        values = pd.to_numeric(frame[column], errors="coerce").dropna()
        if values.empty:
            continue
        latest_at = values.index[-1]
        rows.append(
            {
                "column": str(column),
                "min": float(values.min()),
                "max": float(values.max()),
                "latest": float(values.iloc[-1]),
                "latest_at": _row_label(frame, latest_at),
            }
        )
        lines.append(
            f"{column}: from {_with_unit(exact(float(values.min())), frame, str(column))} to "
            f"{_with_unit(exact(float(values.max())), frame, str(column))}, latest "
            f"{_with_unit(exact(float(values.iloc[-1])), frame, str(column))} "
            f"({_row_label(frame, latest_at)})."
        )
    others = [str(c) for c in frame.columns if c not in numeric]
    if others and not numeric and len(frame) <= _SMALL:
        # A table of text (headlines, notes) is quoted: its rows are what it says.
        texts = [
            " — ".join(str(v) for v in row if not is_missing(v))
            for row in frame[others].itertuples(index=False, name=None)
        ]
        lines = [f'"{title}" says: ' + "; ".join(t for t in texts if t) + "."]
    elif others:
        lines.append(f"Text columns: {', '.join(others)}.")
    result = pd.DataFrame(rows).set_index("column") if rows else pd.DataFrame()
    return _answer(result, lines, f"summary of {title}", frame)
