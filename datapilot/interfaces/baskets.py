"""A basket of names held as one position: "60/40 AAPL/MSFT bought at end-2019", "an equally
weighted pair of XOM and CVX". Each member is bought at its base close with its weight of the
money and never rebalanced, so the basket is worth 100 × Σ wᵢ × Pᵢ(t) / Pᵢ(base): a level like any
price, whose returns, drawdowns and volatility the other interfaces measure."""

from __future__ import annotations

from typing import Annotated

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import Frame, derive, growth, require_timeseries
from datapilot.interfaces.registry import InterfaceError, interface


@interface("processing", "frame")
def basket(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Prices of the members (with the base before the window)."],
    members: Annotated[list[str], "The columns held in the basket, in the order of `weights`."],
    weights: Annotated[list[float], "Each member's share of the money put in (summing to 1)."],
    name: Annotated[str, "The basket's column name, e.g. '60/40 AAPL/MSFT'."] = "basket",
) -> pd.DataFrame:
    """The value of a buy-and-hold basket, 100 at the base close (no rebalancing, fees or
    dividends beyond the adjusted closes'), beside the frame's other columns unchanged."""
    require_timeseries(frame)
    if len(members) != len(weights) or len(members) < 2:
        raise InterfaceError("A basket needs two or more members, each with one weight.")
    if any(w <= 0 for w in weights) or abs(sum(weights) - 1) > 0.01:
        raise InterfaceError(f"The weights {weights} must be positive and sum to 1.")
    missing = [m for m in members if m not in frame.columns]
    if missing:
        raise InterfaceError(f"No prices of {', '.join(missing)} to put in the basket.")
    held = frame[members].copy()
    held.attrs = dict(frame.attrs)
    wealth = growth(held).ffill()
    # Every member must be priced from the same base day: one bought later is no basket.
    started = wealth.dropna()
    if started.empty:
        raise InterfaceError("The members share no day with a price; pick another window.")
    value = sum(wealth[m] * w for m, w in zip(members, weights, strict=True)) * 100
    out = pd.DataFrame({name: value.loc[started.index[0] :]})
    others = [c for c in frame.columns if c not in members]
    if others:
        out = out.join(frame[others], how="outer")
    out.index = pd.DatetimeIndex(out.index, name="date")
    bases = {c: e for c, e in (frame.attrs.get("base") or {}).items() if c in others}
    title = f"{name} (buy and hold, 100 at the start)"
    result = derive(
        out,
        frame,
        kind="timeseries",
        unit="",
        title=title,
        title_zh=f"{name}（买入持有，期初为100）",
        base=bases or None,
        basket={"members": members, "weights": weights},
    )
    if others:  # a benchmark beside the basket is its own prices, not the basket's value
        source = str(frame.attrs.get("title") or "")
        result.attrs["column_titles"] = {name: title} | {str(c): source for c in others}
    return result
