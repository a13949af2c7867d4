"""`datapilot mcp` (stdio) without a model: `ask` tries the local user's imported tools when the
data cannot answer; the rate comes from the service (the currency asserted on its side), in
English and Chinese."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support import paths
from support.live_server import LOOPBACK, live_server
from support.mcp_ask import EUR_QUESTION, JPY_QUESTION, ask, import_sources, tool_settings
from support.platform_app import app_for
from support.tool_servers import RATES, tool_app

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def rates_server() -> Iterator[tuple[str, Any]]:
    rates = tool_app()
    with live_server(rates) as base:
        yield base, rates


async def test_datapilot_mcp_asks_the_local_users_tools(
    tmp_path: Path, data: Any, rates_server: tuple[str, Any]
) -> None:
    rates_base, rates = rates_server
    settings = tool_settings(tmp_path, (rates_base,))
    await import_sources(app_for(settings), None, [f"{rates_base}/spec.json"])  # the local user's
    assert settings.database_url is not None and settings.secret_key is not None
    # The subprocess reads the seeded data dir (the test-wide DATAPILOT_* environment).
    env = {name: value for name, value in os.environ.items() if name.startswith("DATAPILOT_")}
    env |= {
        "PYTHONPATH": str(paths.ROOT),
        "MPLBACKEND": "Agg",
        "DATAPILOT_DATABASE_URL": settings.database_url.get_secret_value(),
        "DATAPILOT_OUTBOUND_ALLOW": rates_base.removeprefix("http://"),
        "DATAPILOT_SECRET_KEY": settings.secret_key.get_secret_value(),
    }
    command = "from datapilot.cli import app; app()"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", command, "mcp", "--offline", "--brain", "offline"],
        env=env,
    )
    async with Client(params) as client:
        english = await ask(client, EUR_QUESTION)
        chinese = await ask(client, JPY_QUESTION)
    assert rates.state.seen == [("/fx", {"currency": "EUR"}), ("/fx", {"currency": "JPY"})]
    assert english["status"] == "ok" and str(RATES["EUR"]) in english["answer"]
    assert chinese["status"] == "ok" and str(RATES["JPY"]) in chinese["answer"]
