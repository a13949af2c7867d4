"""The gap between two figures, each the one value of its own window: "the spread in December
2018 — how much wider than in January 2018?", 比2018年1月扩大了多少个百分点. A window holding
several values has no one figure, so it is refused rather than one of its values picked.
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
    first, second = values_of(frame), values_of(minus, "minus")
    for column in first.columns:
        if column not in second.columns:
            continue
        a, b = first[column].dropna(), second[column].dropna()
        if len(a) != 1 or len(b) != 1:
            raise InterfaceError(
                f"Each window must hold one value of {column} to take a difference; they hold "
                f"{len(a)} and {len(b)}."
            )
        rows.append(
            {
                "id": str(column),
                "date": a.index[0].date(),
                "value": float(a.iloc[0]),
                "other_date": b.index[0].date(),
                "other_value": float(b.iloc[0]),
                "difference": float(a.iloc[0] - b.iloc[0]),
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
    )
