"""Fund net asset values: live providers store a fund's unit NAV as its close and its
accumulated NAV (distributions added back) as its adjusted close in the prices table."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse


def fund_nav(
    warehouse: Warehouse, entity_id: str, start: date | None = None, end: date | None = None
) -> pd.DataFrame:
    """A wide time series (`date` index) with columns `nav` and `accumulated_nav`."""
    tidy = warehouse.prices([entity_id], start, end)
    if tidy.empty:
        return pd.DataFrame(columns=["nav", "accumulated_nav"])
    frame = pd.DataFrame(
        {
            "nav": tidy["close"].to_numpy(),
            "accumulated_nav": tidy["adj_close"].fillna(tidy["close"]).to_numpy(),
        },
        index=pd.DatetimeIndex(pd.to_datetime(tidy["date"]), name="date"),
    )
    frame.attrs["sources"] = tidy.attrs.get("sources", [])
    return frame
