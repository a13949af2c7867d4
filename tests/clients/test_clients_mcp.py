"""MCP clients no one here wrote, against a live Datapilot: the official `mcp` SDK over stdio
(`datapilot mcp`) and Streamable HTTP (`/mcp`), and the MCP Inspector CLI (npm). A host that
reads only a tool result's text content must get the numbers themselves, at the precision of
`structuredContent`; long tables are capped with a note; `ask` reports its progress."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pandas as pd
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import SecretStr
from support import paths
from support.live_server import LOOPBACK, live_server
from support.mcp_inspector import inspector_cli
from support.numeric_expect import source_frame

from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = LOOPBACK
TEXT_ROWS = 40  # DATAPILOT_MCP_TEXT_ROWS of the servers here: a year of prices is capped


def _env() -> dict[str, str]:
    """The test-wide DATAPILOT_* environment (the seeded data dir) for a server subprocess."""
    env = {name: value for name, value in os.environ.items() if name.startswith("DATAPILOT_")}
    return env | {"DATAPILOT_MCP_TEXT_ROWS": str(TEXT_ROWS), "MPLBACKEND": "Agg"}


STDIO_ARGS = ["-c", "from datapilot.cli import app; app()", "mcp", "--offline", "--brain"]
STDIO_ARGS += ["offline"]


@pytest.fixture(scope="module")
def http_url(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server without keys (it answers its own machine only), `/mcp` on it."""
    folder = tmp_path_factory.mktemp("mcp-clients")
    settings = Settings(
        brain="offline",
        offline=True,
        mcp_text_rows=TEXT_ROWS,
        database_url=SecretStr(f"sqlite:///{folder / 'store.sqlite3'}"),
    )
    with live_server(create_app(settings, warm_up=False)) as url:
        yield f"{url}/mcp"


@asynccontextmanager
async def _client(transport: str, http_url: str):  # type: ignore[no-untyped-def]
    if transport == "stdio":
        env = _env() | {"PYTHONPATH": str(paths.ROOT)}
        params = StdioServerParameters(command=sys.executable, args=STDIO_ARGS, env=env)
        async with Client(params) as client:
            yield client
    else:
        async with (
            httpx2.AsyncClient(timeout=120) as http,
            Client(streamable_http_client(http_url, http_client=http)) as client,
        ):
            yield client


def _text(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(block.text for block in result.content if block.type == "text")


def _markdown_rows(text: str, first_column: str) -> list[list[str]]:
    """The body rows of the Markdown table whose header starts with `first_column`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_column} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _jpm(start: str, end: str) -> pd.Series:
    return source_frame("skfolio_sp500").loc[start:end, "JPM"]


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_tool_text_holds_the_values_at_full_precision(transport: str, http_url: str) -> None:
    async with _client(transport, http_url) as client:
        prices = await client.call_tool(
            "get_prices", {"ids": ["JPM"], "start": "2021-12-27", "end": "2021-12-31"}
        )
        series = await client.call_tool(
            "get_series", {"ids": ["UNRATE"], "start": "2009-01-01", "end": "2009-12-31"}
        )
        ohlcv = await client.call_tool(
            "call_interface",
            {
                "name": "get_ohlcv",
                "arguments": {"entity": "AAPL", "start": "2012-12-17", "end": "2012-12-21"},
            },
        )
        answer = await client.call_tool(
            "ask",
            {
                "query": "Show a table of JPMorgan's closing prices from 2021-12-27 to 2021-12-31",
                "today": "2022-12-28",
            },
        )

    source = _jpm("2021-12-27", "2021-12-31")
    rows = _markdown_rows(_text(prices), "date")
    assert [row[0] for row in rows] == [day.strftime("%Y-%m-%d") for day in source.index]
    # Six significant digits, as in structuredContent: 150.162, not 150.2.
    assert [float(row[1]) for row in rows] == pytest.approx(source.tolist(), rel=1e-6)
    structured = prices.structured_content["table"]["rows"]
    assert rows == [[str(cell) for cell in row] for row in structured]

    import statsmodels.datasets.macrodata as macrodata

    macro = macrodata.load_pandas().data
    unrate = macro.loc[macro["year"] == 2009, "unemp"].tolist()
    assert [float(row[1]) for row in _markdown_rows(_text(series), "date")] == unrate

    from bokeh_sampledata.stocks import AAPL

    bars = pd.DataFrame(AAPL).set_index("date").loc["2012-12-17":"2012-12-21"]
    ohlcv_rows = _markdown_rows(_text(ohlcv), "date")
    assert [float(row[4]) for row in ohlcv_rows] == pytest.approx(bars["close"].tolist())
    # Volumes are counts: 3739100, not 3739100.0.
    assert [row[5] for row in ohlcv_rows] == [str(int(v)) for v in bars["volume"]]

    # The answer's table as the user sees it (two decimals), not cut to four digits, headed by
    # its display names (changed: the machine name `date`; structuredContent keeps that one).
    asked = _markdown_rows(_text(answer), "Date")
    assert [row[1] for row in asked] == [str(round(value, 2)) for value in source]


async def test_long_tables_are_capped_with_a_note(transport: str, http_url: str) -> None:
    async with _client(transport, http_url) as client:
        year = await client.call_tool(
            "get_prices", {"ids": ["JPM"], "start": "2021-01-01", "end": "2021-12-31"}
        )
    source = _jpm("2021-01-01", "2021-12-31")
    text = _text(year)
    rows = _markdown_rows(text, "date")
    dates = [row[0] for row in rows]
    days = [day.strftime("%Y-%m-%d") for day in source.index]
    half = TEXT_ROWS // 2
    assert dates[:half] == days[:half] and dates[-half:] == days[-half:]
    left_out = len(source) - TEXT_ROWS
    assert f"{left_out} of {len(source)} rows are not shown" in text
    assert len(year.structured_content["table"]["rows"]) == len(source)


async def test_ask_reports_progress(transport: str, http_url: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with _client(transport, http_url) as client:
        result = await client.call_tool(
            "ask",
            {
                "query": "Compare the cumulative returns of JPMorgan and Bank of America in 2021",
                "today": "2022-12-28",
            },
            progress_callback=progress,
        )
    assert not result.is_error
    messages = [message or "" for _, _, message in seen]
    assert any(message.startswith("planned") for message in messages), seen
    assert any("get_prices ok" in message for message in messages), seen
    assert seen[-1][0] == seen[-1][1] and messages[-1] == "answered: ok"
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)


async def test_catalog_resource_and_prompts(transport: str, http_url: str) -> None:
    async with _client(transport, http_url) as client:
        resources = (await client.list_resources()).resources
        catalog = await client.read_resource("datapilot://catalog")
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        kline = await client.get_prompt("kline", {"id": "AAPL", "window": "in 2012"})
        with pytest.raises(MCPError, match="needs id"):
            await client.get_prompt("kline", {})
    uris = [str(resource.uri) for resource in resources]
    # The catalog, then the caller's library documents (whatever the store holds for them).
    assert uris[0] == "datapilot://catalog"
    assert all(uri.startswith("datapilot://libraries/") for uri in uris[1:])
    lines = catalog.contents[0].text.splitlines()
    assert lines[0] == "id,name,kind,available,first,last,frequency,units"
    jpm = next(line.split(",") for line in lines if line.startswith("JPM,"))
    prices = source_frame("skfolio_sp500")["JPM"].dropna()
    assert jpm[3:6] == ["True", f"{prices.index[0]:%Y-%m-%d}", f"{prices.index[-1]:%Y-%m-%d}"]
    assert {"compare_returns", "kline", "macro_trend"} <= set(prompts)
    assert "K-line of AAPL with volume and MACD in 2012" in kline.messages[0].content.text


async def test_the_discovery_document_advertises_the_version_initialize_agrees_to(
    http_url: str,
) -> None:
    """A client that starts with the version `/.well-known/mcp.json` names gets that version back
    from `initialize`, not an older one."""
    base = http_url.removesuffix("/mcp")
    async with httpx2.AsyncClient(timeout=60) as http:
        advertised = (await http.get(f"{base}/.well-known/mcp.json")).json()["protocolVersion"]
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": advertised,
                "capabilities": {},
                "clientInfo": {"name": "discovery-check", "version": "1"},
            },
        }
        headers = {"Accept": "application/json, text/event-stream"}
        reply = await http.post(http_url, json=initialize, headers=headers)
    assert reply.status_code == 200, reply.text
    data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:")]
    result = json.loads(data[0] if data else reply.text)["result"]
    assert result["protocolVersion"] == advertised


# --- the MCP Inspector CLI (npm) ------------------------------------------------------------------


@pytest.fixture(scope="session")
def inspector() -> Path:
    """The MCP Inspector CLI, installed into the user's cache on first use."""
    return inspector_cli()


def _inspect(inspector: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(inspector), "--cli", *args], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def _inspected_series(result: dict[str, Any]) -> list[float]:
    text = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
    return [float(row[1]) for row in _markdown_rows(text, "date")]


GET_SERIES = ["--method", "tools/call", "--tool-name", "get_series", "--tool-arg"]
GET_SERIES += ['ids=["UNRATE"]', "--tool-arg", "start=2009-01-01", "--tool-arg", "end=2009-12-31"]


def _unrate_2009() -> list[float]:
    import statsmodels.datasets.macrodata as macrodata

    macro = macrodata.load_pandas().data
    return macro.loc[macro["year"] == 2009, "unemp"].tolist()


def test_inspector_cli_over_stdio(data, inspector: Path) -> None:
    env = _env() | {"PYTHONPATH": str(paths.ROOT)}
    pairs = [part for name, value in env.items() for part in ("-e", f"{name}={value}")]
    listed = _inspect(inspector, *pairs, sys.executable, *STDIO_ARGS, "--method", "tools/list")
    called = _inspect(inspector, *pairs, sys.executable, *STDIO_ARGS, *GET_SERIES)
    assert [tool["name"] for tool in listed["tools"]][:1] == ["ask"]
    assert _inspected_series(called) == _unrate_2009()
    assert called["structuredContent"]["table"]["columns"] == ["date", "UNRATE"]


def test_inspector_cli_over_streamable_http(http_url: str, inspector: Path) -> None:
    called = _inspect(inspector, http_url, "--transport", "http", *GET_SERIES)
    assert _inspected_series(called) == _unrate_2009()
    read = _inspect(
        inspector,
        http_url,
        "--transport",
        "http",
        "--method",
        "resources/read",
        "--uri",
        "datapilot://catalog",
    )
    assert "UNRATE," in read["contents"][0]["text"]


def test_without_npm_the_inspector_tests_fail_naming_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on it
    with pytest.raises(AssertionError, match="needs npm") as failed:
        inspector_cli(tmp_path / "inspector")
    assert f"npm install --prefix {tmp_path / 'inspector'}" in str(failed.value)
    assert "@modelcontextprotocol/inspector@0.15.0" in str(failed.value)


async def test_a_callers_library_documents_are_resources(data, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Over HTTP with keys, each user lists and reads their own documents, never another's."""
    import base64

    from datapilot.store import Keys, Users, open_store

    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        data_dir=tmp_path / "data",
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.sqlite3'}"),
    )
    with open_store(settings).session(write=True) as session:
        keys = {
            name: Keys(session)
            .create(name, "chat,manage", user=Users(session).create(name).name)
            .key.get_secret_value()
            for name in ("ana", "bo")
        }
    notes = {"ana": "Ana's note: the hedge ratio is 0.42.", "bo": "Bo's note: rebalance in May."}
    with live_server(create_app(settings, warm_up=False)) as url:
        async with httpx2.AsyncClient(timeout=120) as http:
            for name, key in keys.items():
                headers = {"Authorization": f"Bearer {key}"}
                made = await http.post(
                    f"{url}/api/v1/libraries", json={"name": "notes"}, headers=headers
                )
                assert made.status_code == 201, made.text
                upload = {
                    "name": f"{name}.txt",
                    "content_base64": base64.b64encode(notes[name].encode()).decode(),
                }
                added = await http.post(
                    f"{url}/api/v1/libraries/notes/documents", json=upload, headers=headers
                )
                assert added.status_code in (200, 201), added.text
        listed: dict[str, list[str]] = {}
        for name, key in keys.items():
            headers = {"Authorization": f"Bearer {key}"}
            async with (
                httpx2.AsyncClient(timeout=120, headers=headers) as http,
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
            ):
                resources = (await client.list_resources()).resources
                listed[name] = [str(r.uri) for r in resources if "libraries" in str(r.uri)]
                own = await client.read_resource(listed[name][0])
                assert own.contents[0].text == notes[name]
                if name == "bo":  # ana's document, asked for by bo
                    with pytest.raises(MCPError, match="no resource"):
                        await client.read_resource(listed["ana"][0])
    assert len(listed["ana"]) == len(listed["bo"]) == 1 and listed["ana"] != listed["bo"]
