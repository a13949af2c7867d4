"""The data layer: catalog (what exists, by name), warehouse (the data), providers (where from).

A `DataAccess` is the data of one data dir: its warehouse (seeded on first use) and catalog,
the provider router over them, and whether live providers may be asked. Front ends open one with
`open_data(settings)` and hand it to each request in its context; nothing below the front ends
reads process-wide settings to find its data. `get_warehouse()` / `get_catalog()` are the same
for the settings of the environment, for scripts and tests. `reset()` closes every open one.
"""

from __future__ import annotations

from datapilot.data.access import DataAccess, get_catalog, get_warehouse, open_data, reset

__all__ = ["DataAccess", "get_catalog", "get_warehouse", "open_data", "reset"]
