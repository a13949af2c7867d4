"""The tools a question asked from this terminal may fall back on when the brain could not answer
it: the local user's imported tools (the ones `datapilot tools call` finds) and the interfaces
the user added (designed by `datapilot design` and accepted, or from an installed plugin).

Read only when needed (`tools.offline.try_user_tools` calls `local_tools` after a no_data or
out_of_scope answer): a question the brain answers never opens the store.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.data import DataAccess
    from datapilot.engine.context import RequestContext
    from datapilot.settings import Settings
    from datapilot.store import Store
    from datapilot.tools import Tool

log = logging.getLogger(__name__)


def local_tools(request: RequestContext) -> dict[str, Tool]:
    """The added interfaces, then the local user's imported tools (`tools.offline.user_tools`)."""
    from datapilot.tools.offline import user_tools

    store, user = local_user(request.settings)
    return user_tools(store, request.settings, user, request)


def local_data(settings: Settings) -> DataAccess:
    """The data as this terminal reads it: everyone's, and what the local user imported."""
    from datapilot.data import open_data

    return open_data(settings).for_owner(local_data_owner(settings))


def open_data_in_background(settings: Settings) -> threading.Thread:
    """Open the warehouse and read who imported data on another thread, while the caller loads
    the modules that will answer: DuckDB opens its file without holding Python's lock, so the
    two overlap. A failure there is left for the caller's own opening to meet and report."""

    def opening() -> None:
        with contextlib.suppress(Exception):
            from datapilot.data import open_data

            open_data(settings).warehouse.owners()

    # Not a daemon: a first opening seeds the warehouse, a write never cut short by the exit.
    thread = threading.Thread(target=opening, name="datapilot-open-data")
    thread.start()
    return thread


def local_data_owner(settings: Settings) -> str | None:
    """The local user when they imported data through the server (the page of a keyless
    server): a question from this terminal reads it too. The store is opened only when some
    user owns imports."""
    from datapilot.data import open_data

    owners = open_data(settings).warehouse.owners()
    if not owners:
        return None
    _store, user = local_user(settings)
    return user if user in owners else None


def local_user(settings: Settings) -> tuple[Store | None, str]:
    """The store and its first user (the local user, as `datapilot tools` acts for by default);
    none when there is no store yet (nothing is created to find out)."""
    if settings.database_url is None and not settings.database_path.exists():
        return None, ""  # checked before importing the store: most questions of a new user end here
    from datapilot.assistants.repo import first_user
    from datapilot.store import open_store
    from datapilot.store.database import database_url

    url = database_url(settings)
    if url.get_backend_name() == "sqlite" and not Path(url.database or ":memory:").exists():
        return None, ""
    store = open_store(settings)
    with store.session() as session:
        user = first_user(session)
    return store, user or ""
