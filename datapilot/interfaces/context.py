"""What every interface receives first: where the data is and what the request brought."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

import pandas as pd

from datapilot.data.access import DataAccess
from datapilot.data.catalog import Catalog
from datapilot.data.warehouse import Warehouse


@dataclass
class InterfaceContext:
    warehouse: Warehouse
    catalog: Catalog
    today: date
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    # Provenance of the data the interfaces read, collected for citations.
    sources: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    # The request forbids the network: readers use the warehouse as it is, never live providers.
    offline: bool = False
    # The request's data (settings, provider router): live providers are asked only through it;
    # None reads the warehouse as it is.
    data: DataAccess | None = None
    # The question's language: charts word their axes (and colour candles) for it.
    language: Literal["en", "zh"] = "en"
