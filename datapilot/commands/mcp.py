"""`datapilot mcp`: Datapilot as an MCP server over stdio, for MCP clients that start it
themselves (Claude Desktop, IDEs, agent frameworks). The same tools are served over HTTP at
`/mcp` by `datapilot serve`."""

from __future__ import annotations

import logging
import os
import sys

from datapilot.commands.ask import OfflineOption, ReaderOption, TodayOption


def mcp(
    offline: OfflineOption = False,
    brain: ReaderOption = None,
    today: TodayOption = None,
) -> None:
    """Serve the tools ask, search_entities, get_prices, get_series and call_interface over
    MCP on stdin/stdout (logs go to stderr)."""
    import anyio

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
    anyio.run(serve_stdio, OperationContext(get_settings()))
