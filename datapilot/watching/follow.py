"""Alerts in a command's own process: `datapilot data import` and `data fetch` write rows with no
server listening in-process, so they evaluate the alerts on those rows themselves when the write
is done (claims and the store's lock keep a server that also sees the rows from firing twice)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from datapilot.core.watches import WatchEvent
from datapilot.data.changes import DataChange, listen
from datapilot.settings import Settings


@contextmanager
def alerts_follow(settings: Settings) -> Iterator[list[WatchEvent]]:
    """Within the block, note the warehouse's changes; after it, evaluate the alerts on them and
    fill the list yielded with what fired (delivered like any firing)."""
    changes: list[DataChange] = []
    fired: list[WatchEvent] = []
    stop = listen(settings.warehouse_path, changes.append)
    try:
        yield fired
    finally:
        stop()
    if changes:
        fired += asyncio.run(_evaluate(settings, changes))


async def _evaluate(settings: Settings, changes: list[DataChange]) -> list[WatchEvent]:
    from datapilot.store import open_store
    from datapilot.watching.running import Runner

    runner = Runner(settings, open_store(settings))
    fired: list[WatchEvent] = []
    for change in changes:
        fired += await runner.data_changed(change)
    return fired
