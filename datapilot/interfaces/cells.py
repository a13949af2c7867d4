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
        return round(cell, 2) if abs(cell) >= 1 else _round(cell, 4)
    return cell


def _index_label(frame: pd.DataFrame) -> str:
    if frame.index.name:
        return str(frame.index.name)
    return "date" if isinstance(frame.index, pd.DatetimeIndex) else "id"


def frame_rows(frame: pd.DataFrame, cell: Any = plain) -> tuple[list[str], list[list[Any]]]:
    """Columns (index first) and rows of `frame` as JSON-able cells."""
    label = _index_label(frame)
    columns = [label, *map(str, frame.columns)]
    rows = [
        [cell(index), *(cell(v) for v in values)]
        for index, values in zip(frame.index, frame.itertuples(index=False, name=None), strict=True)
    ]
    return columns, rows
