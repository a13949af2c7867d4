"""The warehouse: one embedded DuckDB file read through one query API (to be implemented)."""

from __future__ import annotations

from datetime import date
from typing import Literal

import pandas as pd

PriceFreq = Literal["daily", "weekly", "monthly"]


class Warehouse:
    def prices(
        self,
        ids: list[str],
        start: date | None = None,
        end: date | None = None,
        freq: PriceFreq = "daily",
    ) -> pd.DataFrame: ...

    def series(
        self, ids: list[str], start: date | None = None, end: date | None = None
    ) -> pd.DataFrame: ...
