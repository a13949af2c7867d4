"""Client tables: the tables a request brings with the question (e.g. a dashboard widget's data).

`get_client_table` reads one by name, turning dated rows into a time series and numeric text into
numbers; the warehouse and catalog are not involved.
"""

from __future__ import annotations

from typing import Annotated

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import FrameKind, tag
from datapilot.interfaces.registry import InterfaceError, interface

_DATE_NAMES = {"date", "datetime", "time", "timestamp", "day", "period", "month", "日期", "时间"}


@interface("acquisition", "frame")
def get_client_table(
    ctx: InterfaceContext,
    name: Annotated[str, "The name of a table the client sent (widget data)."],
) -> pd.DataFrame:
    """A table sent with the question (e.g. a dashboard widget's data): dated rows become a time
    series, numeric text becomes numbers."""
    found = _find_table(ctx, name)
    frame = ctx.tables[found].copy()
    for column in frame.columns:
        frame[column] = _as_number(frame[column])
    date_column = _date_column(frame)
    kind: FrameKind
    if date_column is not None:
        frame[date_column] = pd.to_datetime(frame[date_column], errors="coerce", format="mixed")
        frame = frame.dropna(subset=[date_column]).set_index(date_column).sort_index()
        frame.index = pd.DatetimeIndex(frame.index, name="date")
        kind = "timeseries"
    else:
        labels = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        if labels:
            frame = frame.set_index(labels[0])
            frame.index.name = "id"
        kind = "cross_section"
    ctx.sources.add(f"client table: {found}")
    return tag(frame, kind=kind, title=found, sources=[f"client table: {found}"])


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
    """Numbers written as text ('1,234.5', '12%', '$3') become floats when nearly all parse."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    text = values.astype("string").str.strip().str.replace(r"[,$%\s]", "", regex=True)
    parsed = pd.to_numeric(text, errors="coerce")
    present = values.notna() & (values.astype("string").str.strip() != "")
    if present.any() and parsed[present].notna().mean() >= 0.9:
        return parsed.astype(float)
    return values


def _date_column(frame: pd.DataFrame) -> str | None:
    """A column holding dates: by name first, else the first text column that parses as dates."""
    candidates = sorted(
        (c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])),
        key=lambda c: str(c).strip().lower() not in _DATE_NAMES,
    )
    for column in candidates:
        values = frame[column].dropna()
        if values.empty:
            continue
        parsed = pd.to_datetime(values.astype(str), errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.9:
            return str(column)
    return None
