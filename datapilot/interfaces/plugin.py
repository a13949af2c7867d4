"""The built-in interface library, registered through the `register_interfaces` hook."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from datapilot.interfaces.registry import Registry

# In this order: the order of the catalog a model reads.
LIBRARY = (
    "frame",
    "prices",
    "indicators",
    "reference",
    "client_tables",
    "table_answers",
    "report_answers",
    "prediction",
    "processing",
    "baskets",
    "performance",
    "contributions",
    "periods",
    "conditions",
    "rolling",
    "streaks",
    "first_past",
    "figures",
    "crosses",
    "ratios",
    "anchored",
    "visualization",
)


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_interfaces(registry: Registry) -> None:
    for name in LIBRARY:
        registry.collect(importlib.import_module(f"datapilot.interfaces.{name}"))
