"""How many times one figure is another: "exxon's gain is how many times chevron's?",
苹果的涨幅是微软的几倍 — the ratio of two rows of a cross-section, with both figures."""

from __future__ import annotations

from typing import Annotated

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, require_column
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def figure_ratio(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A cross-section (one row per entity), e.g. from period_return."],
    numerator: Annotated[str, "The id whose figure is divided."],
    denominator: Annotated[str, "The id whose figure it is divided by."],
    by: Annotated[str, "The column compared."] = "return_pct",
) -> pd.DataFrame:
    """One row for `numerator`: its figure (`value`), the `denominator` id and figure
    (`denominator_value`), and `times` = value / denominator_value (how many times it is)."""
    column = require_column(frame, by)
    values = pd.to_numeric(frame[column], errors="coerce")
    missing = [i for i in (numerator, denominator) if i not in values.index]
    if missing:
        raise InterfaceError(f"No {column} for {', '.join(missing)} in the frame.")
    over, under = float(values[numerator]), float(values[denominator])
    if under == 0 or pd.isna(under) or pd.isna(over):
        raise InterfaceError(f"{denominator}'s {column} is zero or missing: no ratio to give.")
    table = pd.DataFrame(
        {
            "value": [over],
            "denominator": [denominator],
            "denominator_value": [under],
            "times": [over / under],
        },
        index=pd.Index([numerator], name="id"),
    )
    unit = str((frame.attrs.get("units") or {}).get(column) or frame.attrs.get("unit") or "")
    if column.endswith("_pct"):
        unit = "%"
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="",
        title="Ratio of the two figures",
        title_zh="倍数",
        units={"value": unit, "denominator_value": unit, "times": ""},
        measure=column,
    )
