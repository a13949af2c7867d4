"""How far a window's extreme is from the close of a given day (by default the first one, the
IPO day of a name whose data starts at its listing): "its lowest close of 2012, and how far below
its IPO-day close was that?"."""

from __future__ import annotations

from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def extreme_from_day(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices or levels over the window the extreme is sought in."],
    side: Annotated[Literal["high", "low"], "The highest value, or the lowest."] = "low",
    day: Annotated[str | None, "The reference day (its value on or before it); the first."] = None,
) -> pd.DataFrame:
    """Each column's highest (lowest) value with its date, and how far it is from the value on
    `day`: from_day_pct = (extreme / reference − 1) × 100, with reference_value and
    reference_date."""
    levels = values_of(frame)
    rows = []
    for column in levels.columns:
        series = pd.to_numeric(levels[column], errors="coerce").dropna()
        if day is not None:
            on_or_before = series.index[series.index <= pd.Timestamp(day)]
            if on_or_before.empty:
                continue
            series = series[series.index >= on_or_before.max()]
        if series.empty:
            continue
        when = series.idxmax() if side == "high" else series.idxmin()
        extreme, reference = float(series.loc[when]), float(series.iloc[0])
        if reference == 0:
            continue
        rows.append(
            {
                "id": str(column),
                "extreme_value": extreme,
                "extreme_date": pd.Timestamp(when).date(),
                "reference_value": reference,
                "reference_date": series.index[0].date(),
                "from_day_pct": (extreme / reference - 1) * 100,
            }
        )
    if not rows:
        raise InterfaceError("No values on or after the reference day; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="%",
        title="Extreme from the first day" if day is None else f"Extreme from {day}",
        title_zh="极值与首日收盘的距离" if day is None else f"极值与{day}收盘的距离",
        units={"extreme_value": unit, "reference_value": unit, "from_day_pct": "%"},
        side=side,
        from_first=day is None,
    )
