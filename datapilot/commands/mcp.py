"""`datapilot mcp`: Datapilot as an MCP server over stdio, for MCP clients that start it
themselves (Claude Desktop, IDEs, agent frameworks). The same tools are served over HTTP at
`/mcp` by `datapilot serve`."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

from datapilot.commands.ask import OfflineOption, ReaderOption, TodayOption

if TYPE_CHECKING:  # loaded when the server starts, not with the command line
    from datapilot.settings import Settings
    from datapilot.tools.published.shelf import LibraryShelf


def mcp(
    offline: OfflineOption = False,
    brain: ReaderOption = None,
    today: TodayOption = None,
) -> None:
    """Serve the tools ask, search_entities, get_prices, get_series and call_interface over
    MCP on stdin/stdout (logs go to stderr)."""
    import anyio

    from datapilot.commands.local_tools import local_tools
    from datapilot.settings import get_settings
    from datapilot.tools.published.mcp_server import serve_stdio
    from datapilot.tools.published.operations import OperationContext

    # stdout carries the protocol: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    overrides = {
        "DATAPILOT_OFFLINE": "true" if offline else None,
        "DATAPILOT_BRAIN": brain.value if brain else None,
        "DATAPILOT_TODAY": today.date().isoformat() if today else None,
    }
    os.environ.update({key: value for key, value in overrides.items() if value is not None})
    get_settings.cache_clear()
    settings = get_settings()
    # `ask` tries the local user's tools (those `datapilot tools` imported) and added interfaces.
    context = OperationContext(settings, asker_tools=local_tools)
    anyio.run(serve_stdio, context, _local_shelf(settings))


def _local_shelf(settings: Settings) -> LibraryShelf:
    """The local user's knowledge libraries (the user `datapilot kb` works with)."""
    import anyio

    from datapilot.assistants.repo import local_user
    from datapilot.store import open_store
    from datapilot.tools.published.shelf import LibraryShelf

    store = open_store(settings)

    def local() -> str:
        with store.session(write=True) as session:
            return local_user(session)

    async def user_of(caller: object) -> str:
        return await anyio.to_thread.run_sync(local)

    return LibraryShelf(store, settings, user_of)
