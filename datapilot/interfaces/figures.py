"""The gap between two figures, each the one value of its own window: "the spread in December
2018 — how much wider than in January 2018?", 比2018年1月扩大了多少个百分点. A window holding
several values has no one figure, so it is refused rather than one of its values picked; a
statistic of each window (its mean: "the 2000 average, how much lower than the 1990 average") is
that window's one figure.
"""

from __future__ import annotations

from typing import Annotated

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def figure_difference(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A series whose window holds one value (the figure)."],
    minus: Annotated[Frame, "The series whose one value is subtracted (same column names)."],
) -> pd.DataFrame:
    """Per column: the figure (with its date), the other figure (with its date) and the
    difference, in the series' unit (percentage points of a rate)."""
    rows = []
    first, second = _figures(frame, "frame"), _figures(minus, "minus")
    for column, (day, value) in first.items():
        if column not in second:
            continue
        other_day, other = second[column]
        rows.append(
            {
                "id": column,
                "date": day,
                "value": value,
                "other_date": other_day,
                "other_value": other,
                "difference": value - other,
            }
        )
    if not rows:
        raise InterfaceError("The two series share no column to take a difference of.")
    unit = str(frame.attrs.get("unit") or "")
    gap_unit = "percentage points" if unit in ("%", "percent") else unit
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit=unit,
        title="Difference between the two figures",
        title_zh="两个数值之差",
        units={"value": unit, "other_value": unit, "difference": gap_unit},
        of=str(frame.attrs.get("title") or ""),
        statistic=_statistic(frame),
    )


def _statistic(frame: pd.DataFrame) -> str | None:
    """The statistic a cross-section holds (its one column: "mean"), None for a series."""
    if frame.attrs.get("kind") != "cross_section":
        return None
    # (how many returns a figure was taken from is no figure of its own)
    numbers = [c for c in frame.select_dtypes("number").columns if c != "observations"]
    if len(numbers) == 1:
        return str(numbers[0])
    # A window's change (a period return): its figure beside the window's two ends.
    return next((c for c in _WINDOW_FIGURES if c in numbers), None)


# The figure of a cross-section that also holds its window's ends (start_value, end_value).
_WINDOW_FIGURES = ("return_pct", "annualized_return_pct", "change")


def _figures(frame: pd.DataFrame, what: str) -> dict[str, tuple[object, float]]:
    """Per column (or row of a statistic): its one figure and when it is of — the day of a
    series' one value, or the window a statistic was taken over ("2000-01-01 to 2000-12-01")."""
    stat = _statistic(frame)
    if frame.attrs.get("kind") == "cross_section":
        if stat is None:
            raise InterfaceError(f"The {what} must hold one statistic per row to take a gap.")
        first, last = frame.attrs.get("first_date"), frame.attrs.get("last_date")
        span = f"{first} to {last}" if first and last else None
        column = frame[stat].dropna()
        if {"start_date", "end_date"} <= set(frame.columns):
            return {  # each row's own window: "2019-12-31 to 2020-12-31"
                str(i): (f"{frame.at[i, 'start_date']} to {frame.at[i, 'end_date']}", float(v))
                for i, v in column.items()
            }
        return {str(i): (span, float(v)) for i, v in column.items()}
    found = {}
    values = values_of(frame, what)
    for column in values.columns:
        a = values[column].dropna()
        if len(a) != 1:
            raise InterfaceError(
                f"Each window must hold one value of {column} to take a difference; it holds "
                f"{len(a)}."
            )
        found[str(column)] = (a.index[0].date(), float(a.iloc[0]))
    return found
