"""MCP servers imported as tools, against the SDK's own server: over stdio (a subprocess) and
Streamable HTTP on loopback (through the SSRF-pinned transport), from the terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import paths
from support.live_server import LOOPBACK, live_server
from support.mcp_quotes_server import CLOSES, NOTES, quotes_server
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.settings import get_settings

pytestmark = LOOPBACK
SCRIPT = paths.SUPPORT / "mcp_quotes_server.py"


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    server = quotes_server()
    with live_server(server.streamable_http_app(), lifespan="on") as base:
        yield base


@pytest.fixture()
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, http_server: str) -> Iterator[CliRunner]:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", http_server.removeprefix("http://"))
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def run(cli: CliRunner, *args: str) -> str:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_stdio_server_tools_round_trip(cli: CliRunner) -> None:
    added = run(
        cli, "tools", "add", "--kind", "mcp", "--name", "Quotes", sys.executable, str(SCRIPT)
    )
    assert "Quotes.closes" in added and "Quotes.add_note" in added
    # The read-only tool runs without asking; the other one asks first in chats.
    lines = {line.split()[1]: line for line in added.splitlines() if line.startswith("  - ")}
    assert "asks first" not in lines["Quotes.closes"]
    assert "asks first" in lines["Quotes.add_note"]
    out = json.loads(run(cli, "tools", "call", "Quotes.closes", '{"symbol": "ACME", "limit": 3}'))
    assert [row["close"] for row in out["result"]] == CLOSES[:3]
    wrong = cli.invoke(app, ["tools", "call", "Quotes.closes", '{"symbol": 5}'])
    assert wrong.exit_code != 0 and "symbol" in wrong.output


def test_http_server_tools_round_trip(cli: CliRunner, http_server: str) -> None:
    run(cli, "tools", "add", "--kind", "mcp", "--name", "QuotesWeb", f"{http_server}/mcp")
    out = json.loads(run(cli, "tools", "call", "QuotesWeb.closes", '{"symbol": "ACME"}'))
    assert [row["close"] for row in out["result"]] == CLOSES
    before = len(NOTES)
    noted = json.loads(run(cli, "tools", "call", "QuotesWeb.add_note", '{"text": "hello"}'))
    assert noted == {"result": f"{before + 1} notes"}
    assert NOTES[before:] == ["hello"]


def test_mcp_server_on_a_private_address_is_refused(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, http_server: str
) -> None:
    monkeypatch.delenv("DATAPILOT_OUTBOUND_ALLOW")
    get_settings.cache_clear()
    refused = cli.invoke(app, ["tools", "add", "--kind", "mcp", f"{http_server}/mcp"])
    assert refused.exit_code != 0
    assert "loopback" in refused.output and "DATAPILOT_OUTBOUND_ALLOW" in refused.output
