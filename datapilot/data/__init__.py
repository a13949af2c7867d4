"""The data layer: catalog (what exists, by name), warehouse (the data), providers (where from).

`get_warehouse()` and `get_catalog()` are the process-wide accessors; the first call seeds the
warehouse from the bundled provider when needed. `reset()` forgets both (tests, reseeding).
`live_fetching()` says whether readers should ask live providers first (settings only, cheap).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.data.catalog import Catalog
    from datapilot.data.warehouse import Warehouse

__all__ = ["get_catalog", "get_warehouse", "live_fetching", "reset"]

_lock = threading.Lock()
_warehouse: Warehouse | None = None
_catalog: Catalog | None = None


def get_warehouse() -> Warehouse:
    """The warehouse in `settings.data_dir`, seeded on first use."""
    global _warehouse
    from datapilot.data.seeding import is_seeded, seed
    from datapilot.data.warehouse import Warehouse
    from datapilot.settings import get_settings

    with _lock:
        if _warehouse is None:
            path = get_settings().warehouse_path
            if not is_seeded(path):
                seed(path)
            _warehouse = Warehouse(path)
        return _warehouse


def get_catalog() -> Catalog:
    """The catalog: shipped and user vocabulary, with availability from the warehouse."""
    global _catalog
    from datapilot.data.catalog import Catalog
    from datapilot.settings import get_settings

    warehouse = get_warehouse()
    with _lock:
        if _catalog is None:
            _catalog = Catalog.load(warehouse, get_settings().data_dir)
        return _catalog


def reset() -> None:
    """Forget the accessors' objects and close open warehouse files."""
    global _warehouse, _catalog
    from datapilot.data.warehouse import close_all

    with _lock:
        _warehouse = None
        _catalog = None
        close_all()


def live_fetching(offline: bool = False) -> bool:
    """Whether a live provider is configured and neither the settings nor the caller (`offline`,
    e.g. a request's own flag) forbid the network. Reads settings only: nothing is imported or
    opened, so readers can ask before every read."""
    from datapilot.settings import get_settings

    settings = get_settings()
    if offline or settings.offline:
        return False
    return any(name.strip().lower() not in ("", "bundled") for name in settings.providers)
