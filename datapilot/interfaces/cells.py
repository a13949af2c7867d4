"""Table cells of frames: JSON-able values (ISO dates, rounded numbers) for chart specs and
tables."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd


def plain(value: Any, digits: int | None = 6) -> Any:
    """A JSON-able cell: ISO dates, None for missing, numbers rounded to `digits` significant."""
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, pd.Timestamp | datetime):
        stamp = pd.Timestamp(value)
        return stamp.date().isoformat() if stamp == stamp.normalize() else stamp.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer | int):
        return int(value)
    if isinstance(value, np.floating | float):
        number = float(value)
        if not math.isfinite(number):
            return None
        return _round(number, digits) if digits else number
    return str(value) if not isinstance(value, str) else value


def _round(number: float, digits: int) -> float:
    if number == 0:
        return 0.0
    return round(number, max(digits - 1 - math.floor(math.log10(abs(number))), 0))


def table_cell(value: Any) -> Any:
    """Table cells: two decimals from 1 up, four significant digits below 1 (0.8734, 0.0012)."""
    cell = plain(value, digits=None)
    if isinstance(cell, float) and not isinstance(value, bool):
        return _table_number(cell)
    return cell


def _index_label(frame: pd.DataFrame) -> str:
    if frame.index.name:
        return str(frame.index.name)
    return "date" if isinstance(frame.index, pd.DatetimeIndex) else "id"


def frame_rows(frame: pd.DataFrame, cell: Any = plain) -> tuple[list[str], list[list[Any]]]:
    """Columns (index first) and rows of `frame` as JSON-able cells."""
    label = _index_label(frame)
    columns = [label, *map(str, frame.columns)]
    cells = [_column_cells(frame.index, cell)]
    cells.extend(_column_cells(frame.iloc[:, k], cell) for k in range(frame.shape[1]))
    return columns, [list(row) for row in zip(*cells, strict=True)]


def _column_cells(values: pd.Series | pd.Index, cell: Any) -> list[Any]:
    """`cell` of each value, column at a time: the same cells as calling it on every value the
    column yields, without boxing each number (the cost of a chart's or a table's rows)."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and cell in (plain, table_cell):
        if dtype.kind in "iub":  # Python ints and bools: both cell functions keep them as they are
            return values.tolist()
        if dtype.kind == "f":
            numbers = values.tolist()
            if cell is plain:
                return [_round(v, 6) if math.isfinite(v) else None for v in numbers]
            return [_table_number(v) if math.isfinite(v) else None for v in numbers]
        if isinstance(values, pd.DatetimeIndex) and _iso_days(values):
            return np.datetime_as_string(values.to_numpy().astype("datetime64[D]")).tolist()
    return [cell(v) for v in values]


def _table_number(number: float) -> float:
    return round(number, 2) if abs(number) >= 1 else _round(number, 4)


def _iso_days(index: pd.DatetimeIndex) -> bool:
    """Whether every date is a whole day in years 1000-9999 without a time zone (then its cell is
    its ISO date, as `plain` writes it)."""
    if index.tz is not None or len(index) == 0 or index.hasnans:
        return False
    return (
        bool((index == index.normalize()).all())
        and 1000 <= index.year.min() <= (index.year.max()) <= 9999
    )
