"""Running watches: the scheduler (APScheduler 3, claims per due time), a report's answer or an
alert's evaluation for the watch's owner, and the deliveries (the page's inbox, a signed
webhook, email).

Importing this package is cheap: APScheduler, the pipeline and the channels load when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.settings import Settings
    from datapilot.store import Store
    from datapilot.watching.scheduler import WatchScheduler


def start_watching(settings: Settings, store: Store) -> WatchScheduler:
    """The scheduler of `store`'s watches (not started: `await scheduler.start()`)."""
    from datapilot.watching.running import Runner
    from datapilot.watching.scheduler import WatchScheduler

    return WatchScheduler(settings, store, Runner(settings, store))
