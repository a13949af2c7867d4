"""Moving-average crossovers: "when did the 50-day cross above the 200-day", golden and death
crosses, 金叉/死叉.

Convention (docs/asking.md, "Counts, best periods and distances"): simple moving averages of
the closes; a cross above happens on the first session the fast average is above the slow one
after a session at or below it (a cross below, the reverse). The averages are warmed on the
rows before `start`; only crosses from `start` on are listed.
"""

from __future__ import annotations

from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def ma_crosses(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily closes, with enough sessions before the window to warm up."],
    fast: Annotated[int, "Sessions in the fast average, e.g. 50."] = 50,
    slow: Annotated[int, "Sessions in the slow average, e.g. 200."] = 200,
    direction: Annotated[
        Literal["above", "below", "both"], "Fast crossing above (golden), below (death), or both."
    ] = "above",
    start: Annotated[str | None, "List crosses from this date; earlier rows warm up."] = None,
) -> pd.DataFrame:
    """Each session the fast simple moving average crossed the slow one: rows by id with date,
    direction (above/below), close, fast_ma, slow_ma and crosses (how many in the window; 0
    and no date when none)."""
    if fast < 1 or slow < 1 or fast == slow:
        raise InterfaceError("ma_crosses needs two different positive lengths.")
    rows: list[dict[str, object]] = []
    searched: list[pd.Timestamp] = []  # the sessions looked at, for the answer to state
    for column in values_of(frame).columns:
        closes = pd.to_numeric(values_of(frame)[column], errors="coerce").dropna()
        window = closes.index[closes.index >= pd.Timestamp(start)] if start else closes.index
        searched += [window.min(), window.max()] if len(window) else []
        quick, steady = closes.rolling(fast).mean(), closes.rolling(slow).mean()
        over = (quick > steady).where(quick.notna() & steady.notna())
        known = over.dropna().astype(bool)
        before = known.shift(1)
        ups = known[(known) & (before == False)].index  # noqa: E712 (a missing day is no cross)
        downs = known[(~known) & (before == True)].index  # noqa: E712
        found = [(d, "above") for d in ups] + [(d, "below") for d in downs]
        if start is not None:
            found = [(d, s) for d, s in found if d >= pd.Timestamp(start)]
        found = sorted(f for f in found if direction in ("both", f[1]))
        if not found:
            empty = {"date": None, "close": None, "fast_ma": None, "slow_ma": None}
            rows.append({"id": str(column), **empty, "direction": direction, "crosses": 0})
        for day, side in found:
            rows.append(
                {
                    "id": str(column),
                    "date": pd.Timestamp(day).date(),
                    "direction": side,
                    "close": float(closes.loc[day]),
                    "fast_ma": float(quick.loc[day]),
                    "slow_ma": float(steady.loc[day]),
                    "crosses": len(found),
                }
            )
    if not rows:
        raise InterfaceError("No closes to average; widen the date window.")
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit=unit,
        title=f"{fast}-day average crossing the {slow}-day",
        title_zh=f"{fast}日均线与{slow}日均线交叉",
        units={"close": unit, "fast_ma": unit, "slow_ma": unit, "crosses": ""},
        fast=fast,
        slow=slow,
        direction=direction,
        searched_from=str(min(searched).date()) if searched else None,
        searched_to=str(max(searched).date()) if searched else None,
    )
