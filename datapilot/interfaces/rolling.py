"""Rolling measures between series: the correlation of two series' returns over a moving
window, a time series a question can then take the extremes or the mean of."""

from __future__ import annotations

from typing import Annotated

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, numeric, require_timeseries, simple_returns
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def rolling_correlation(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Two or more series over time (prices, or returns)."],
    window: Annotated[int, "Rolling window in observations (trading days for daily data)."] = 20,
    of_returns: Annotated[bool, "Correlate period returns (for prices) or the levels."] = True,
) -> pd.DataFrame:
    """Rolling Pearson correlation (−1..1) of each column with the first, over the last
    `window` observations: one column per pair, named "A vs B"."""
    require_timeseries(frame)
    if window < 3:
        raise InterfaceError("The correlation window must be at least 3 observations.")
    values = simple_returns(frame) if of_returns else numeric(frame)
    if values.shape[1] < 2:
        raise InterfaceError("A rolling correlation needs at least two columns (entities).")
    first = values.columns[0]
    pairs = {
        f"{first} vs {other}": values[first].rolling(window).corr(values[other])
        for other in values.columns[1:]
    }
    result = pd.DataFrame(pairs).dropna(how="all")
    if result.empty:
        raise InterfaceError(
            f"Fewer than {window} common observations; widen the date window or shorten the "
            "correlation window."
        )
    result.index.name = "date"
    return derive(
        result, frame, kind="timeseries", unit="−1–1", title=f"{window}-period rolling correlation"
    )
