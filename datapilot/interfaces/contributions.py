"""Regular contributions (dollar-cost averaging, 定投): the same sum bought at the close of the
first (or last) session of every month, quarter or year of the window, and what the holding is
worth at the window's last close."""

from __future__ import annotations

import re
from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface

_PERIODS = {"weekly": "W", "monthly": "M", "quarterly": "Q", "yearly": "Y"}


@interface("processing", "frame")
def periodic_investment(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices over the window the buying runs in (adjusted closes)."],
    amount: Annotated[float, "The sum bought each time."],
    every: Annotated[
        Literal["weekly", "monthly", "quarterly", "yearly"], "How often the sum is bought."
    ] = "monthly",
    on: Annotated[
        Literal["first", "last"], "Bought at the close of each period's first or last session."
    ] = "first",
    value_on: Annotated[
        str | None,
        "Value the holding at the last close on or before this day (YYYY-MM-DD); default the "
        "window's last close.",
    ] = None,
) -> pd.DataFrame:
    """Per column: buys (how many), invested (amount × buys), units, first_buy, last_buy,
    end_date, end_close, value (units × end_close), gain (value − invested), return_pct (gain
    over invested, %)."""
    if amount <= 0:
        raise InterfaceError("The sum bought each time must be positive.")
    levels = values_of(frame)
    rows = []
    for column in levels.columns:
        closes = pd.to_numeric(levels[column], errors="coerce").dropna()
        closes = closes[closes > 0]
        held = closes.loc[: pd.Timestamp(value_on)] if value_on is not None else closes
        if held.empty:
            continue
        groups = held.groupby(held.index.to_period(_PERIODS[every]))
        bought = groups.head(1) if on == "first" else groups.tail(1)
        if bought.empty:
            continue
        held_units = float((amount / bought).sum())
        end_close = float(held.iloc[-1])
        invested = amount * len(bought)
        value = held_units * end_close
        rows.append(
            {
                "id": str(column),
                "buys": len(bought),
                "invested": invested,
                "units": held_units,
                "first_buy": bought.index[0].date(),
                "last_buy": bought.index[-1].date(),
                "end_date": held.index[-1].date(),
                "end_close": end_close,
                "value": value,
                "gain": value - invested,
                "return_pct": (value / invested - 1) * 100,
            }
        )
    if not rows:
        raise InterfaceError("No closes in the window to buy at; widen the date window.")
    units = {str(v) for v in frame.attrs.get("units", {}).values() if v}
    unit = units.pop() if len(units) == 1 else str(frame.attrs.get("unit") or "")
    currency = unit if re.fullmatch(r"[A-Z]{3}", unit) else ""
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit=currency,
        title=f"{amount:,.0f} bought {every}",
        title_zh=f"定投{amount:,.0f}",
        units={
            "invested": currency,
            "value": currency,
            "gain": currency,
            "end_close": unit,
            "units": "",
            "buys": "",
            "return_pct": "%",
        },
        amount=amount,
        every=every,
        on=on,
    )
