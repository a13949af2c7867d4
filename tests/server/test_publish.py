"""Datapilot published as a plugin: the manifest, the OpenAPI spec, `POST /run` and the MCP
server (stdio via `datapilot mcp`, Streamable HTTP at `/mcp`), all from one registry.

Everything runs against real servers on loopback and a real `datapilot mcp` subprocess, talked
to with the MCP SDK's own client; expected figures come from the source datasets with pandas.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import jsonschema
import pandas as pd
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from openapi_spec_validator import validate
from pydantic import SecretStr
from support import paths
from support.live_server import LOOPBACK, live_server
from support.numeric_expect import source_frame

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, open_store

pytestmark = LOOPBACK
FIXTURES = paths.FIXTURES / "published"
OPERATIONS = ["ask", "search_entities", "get_prices", "get_series", "call_interface"]
QUESTION = "Compare the cumulative returns of JPMorgan and Bank of America in 2021 and show a table"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _settings(tmp: Path) -> Settings:
    # The seeded test data dir (charts are written there); a store of the module's own.
    return Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp / 'store.sqlite3'}"),
        plugin_contact_email="data@example.org",
    )


@pytest.fixture(scope="module")
def open_server(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server without keys: it answers its own machine only."""
    app = create_app(_settings(tmp_path_factory.mktemp("open")), warm_up=False)
    with live_server(app) as url:
        yield url


@pytest.fixture(scope="module")
def keyed_server(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A server with keys: a chat key and a key without the chat scope."""
    settings = _settings(tmp_path_factory.mktemp("keyed"))
    store = open_store(settings)
    with store.session(write=True) as session:
        chat = Keys(session).create("chat key", "chat").key.get_secret_value()
        manage = Keys(session).create("manage key", "manage").key.get_secret_value()
    app = create_app(settings, warm_up=False)
    with live_server(app) as url:
        yield {"url": url, "chat": chat, "manage": manage}


def _cumulative_2021(ticker: str) -> float:
    """The 2021 cumulative return in %, from the 2020 year-end close (the README's rule)."""
    prices = source_frame("skfolio_sp500")[ticker].dropna()
    base = prices[prices.index < "2021-01-01"].iloc[-1]
    end = prices[prices.index <= "2021-12-31"].iloc[-1]
    return (end / base - 1) * 100


def _structured_ok(result: Any, schema: dict[str, Any]) -> dict[str, Any]:
    assert not result.is_error, result.content
    jsonschema.validate(result.structured_content, schema)
    return result.structured_content


# --- the three faces agree ------------------------------------------------------------------------


async def test_manifest_spec_and_mcp_tools_come_from_one_registry(open_server: str) -> None:
    async with httpx.AsyncClient(base_url=open_server) as client:
        manifest = (await client.get("/.well-known/ai-plugin.json")).json()
        spec_yaml = yaml.safe_load((await client.get(manifest["api"]["url"])).text)
        spec_json = (await client.get("/openapi.json")).json()
        discovery = (await client.get("/.well-known/mcp.json")).json()
        logo = await client.get(manifest["logo_url"])
        legal = await client.get(manifest["legal_info_url"])
    async with Client(discovery["transport"]["url"]) as mcp_client:
        listed = (await mcp_client.list_tools()).tools

    # The manifest has every field of the design's sample plugins, in the same shape.
    for sample in ("qianfan-longtext-ai-plugin.json", "qianfan-todo-ai-plugin.json"):
        fields = json.loads((FIXTURES / sample).read_text())
        assert set(fields) <= set(manifest), sample
        assert set(fields["api"]) <= set(manifest["api"])
    assert manifest["schema_version"] == "v1"
    assert manifest["name_for_model"].isascii() and manifest["name_for_model"].isalpha()
    assert manifest["auth"] == {"type": "none"} and manifest["api"]["type"] == "openapi"
    assert manifest["contact_email"] == "data@example.org"
    assert logo.status_code == 200 and logo.content.startswith(PNG_MAGIC)
    assert legal.status_code == 200 and "investment advice" in legal.text

    # The spec is valid OpenAPI, the same in YAML and JSON, and points back at this server.
    validate(spec_json)
    assert spec_yaml == spec_json
    assert spec_json["servers"] == [{"url": open_server}]
    operations = {
        body["post"]["operationId"]: (path, body["post"])
        for path, body in spec_json["paths"].items()
    }
    assert list(operations) == OPERATIONS
    assert operations["ask"][0] == "/run"
    assert discovery["tools"] and [tool["name"] for tool in discovery["tools"]] == OPERATIONS

    # MCP lists the same tools with the same input and output schemas as the spec.
    assert [tool.name for tool in listed] == OPERATIONS
    for tool in listed:
        _, post = operations[tool.name]
        request = post["requestBody"]["content"]["application/json"]["schema"]
        response = post["responses"]["200"]["content"]["application/json"]["schema"]
        assert tool.input_schema == request, tool.name
        assert tool.output_schema == response, tool.name
        assert tool.description == post["description"]
        assert tool.name in manifest["description_for_model"]
        assert "$ref" not in json.dumps(request) + json.dumps(response)


async def test_the_full_api_document_moved_and_docs_follow_it(open_server: str) -> None:
    # Generous: the first request builds the whole API's document (seconds on a busy machine).
    async with httpx.AsyncClient(base_url=open_server, timeout=60) as client:
        full = (await client.get("/api/openapi.json")).json()
        docs = (await client.get("/docs")).text
    assert "/api/v1/ask" in full["paths"] and "/run" in full["paths"]
    assert "/api/openapi.json" in docs


# --- POST /run and the direct operations ----------------------------------------------------------


async def test_run_answers_with_tables_and_chart_pngs_that_download(open_server: str) -> None:
    async with httpx.AsyncClient(base_url=open_server, timeout=120) as client:
        response = await client.post("/run", json={"query": QUESTION, "today": "2022-12-28"})
        assert response.status_code == 200, response.text
        body = response.json()
        images = [await client.get(url) for url in body["images"]]
        missing = await client.get("/charts/" + "A" * 22 + ".png")

    assert body["status"] == "ok" and body["answer"]
    [table] = body["tables"]
    assert table["columns"] == ["date", "JPM", "BAC"]
    last = table["rows"][-1]
    assert last[0] == "2021-12-31"
    assert last[1] == pytest.approx(_cumulative_2021("JPM"), abs=0.01)
    assert last[2] == pytest.approx(_cumulative_2021("BAC"), abs=0.01)
    assert f"{_cumulative_2021('JPM'):.2f}%" in body["answer"]
    assert len(images) == 1 and all(url.startswith(open_server) for url in body["images"])
    assert images[0].status_code == 200 and images[0].headers["content-type"] == "image/png"
    assert images[0].content.startswith(PNG_MAGIC)
    assert missing.status_code == 404 and "ask again" in missing.json()["message"]


async def test_direct_data_operations_return_the_source_numbers(open_server: str) -> None:
    async with httpx.AsyncClient(base_url=open_server, timeout=60) as client:
        prices = await client.post(
            "/run/get_prices",
            json={"ids": ["AAPL", "MSFT"], "start": "2021-03-01", "end": "2021-03-31"},
        )
        series = await client.post(
            "/run/get_series", json={"ids": ["UNRATE"], "start": "1980-01-01", "end": "1981-12-31"}
        )
        found = await client.post("/run/search_entities", json={"query": "微软"})

    table = prices.json()["table"]
    source = source_frame("skfolio_sp500").loc["2021-03-01":"2021-03-31", ["AAPL", "MSFT"]]
    assert table["columns"] == ["date", "AAPL", "MSFT"]
    assert [row[0] for row in table["rows"]] == [d.date().isoformat() for d in source.index]
    got = pd.DataFrame([row[1:] for row in table["rows"]], columns=["AAPL", "MSFT"])
    assert got.to_numpy() == pytest.approx(source.to_numpy(), rel=1e-6)

    unrate = series.json()["table"]
    assert unrate["units"] == {"UNRATE": "%"}
    import statsmodels.datasets.macrodata as macrodata

    macro = macrodata.load_pandas().data
    expected = macro[macro["year"].isin([1980, 1981])]["unemp"].tolist()
    assert [row[1] for row in unrate["rows"]] == pytest.approx(expected)

    assert found.json()["entities"][0]["id"] == "MSFT"


async def test_bad_calls_are_refused_with_what_to_change(open_server: str) -> None:
    async with httpx.AsyncClient(base_url=open_server, timeout=60) as client:
        unknown = await client.post("/run/get_prices", json={"ids": ["NOSUCHTICKER"]})
        misspelt = await client.post("/run/get_prices", json={"idz": ["AAPL"]})
        no_interface = await client.post("/run/call_interface", json={"name": "nope"})
        frames = await client.post(
            "/run/call_interface", json={"name": "plot_line", "arguments": {}}
        )
        empty = await client.post("/run", json={"query": ""})
        too_long = await client.post("/run", json={"query": "plot Apple " * 1000})
        off_topic = await client.post("/run", json={"query": "Write me a poem about the sea"})
        spec = (await client.get("/openapi.json")).json()
        full = (await client.get("/api/openapi.json")).json()
    assert unknown.status_code == 422 and "NOSUCHTICKER" in unknown.json()["message"]
    assert misspelt.status_code == 422 and "idz" in misspelt.json()["message"]
    assert no_interface.status_code == 422 and "'nope'" in no_interface.json()["message"]
    assert frames.status_code == 422 and "ask" in frames.json()["message"]
    assert empty.status_code == 422 and "query" in empty.json()["message"]
    # Every refusal has the shape both documents promise for a 422.
    plugin_422 = spec["paths"]["/run/get_prices"]["post"]["responses"]["422"]
    jsonschema.validate(unknown.json(), plugin_422["content"]["application/json"]["schema"])
    problem = full["components"]["schemas"]["ValidationProblem"]
    for refused in (unknown, misspelt, no_interface, frames, empty):
        # The document's components at the root, so its `#/components/...` references resolve.
        jsonschema.validate(refused.json(), problem | {"components": full["components"]})
    assert too_long.status_code == 422
    assert "DATAPILOT_MAX_QUESTION_CHARS" in too_long.json()["message"]
    # Not a data question: an honest status and a reason, nothing made up.
    assert off_topic.status_code == 200
    assert off_topic.json()["status"] == "out_of_scope" and off_topic.json()["answer"]
    assert off_topic.json()["tables"] == [] and off_topic.json()["images"] == []


async def test_call_interface_draws_a_chart_as_a_png_url(open_server: str) -> None:
    async with httpx.AsyncClient(base_url=open_server, timeout=60) as client:
        response = await client.post(
            "/run/call_interface",
            json={
                "name": "get_ohlcv",
                "arguments": {"entity": "IBM", "start": "2012-01-01", "end": "2012-01-31"},
            },
        )
    body = response.json()
    assert response.status_code == 200 and body["interface"] == "get_ohlcv"
    assert body["tables"][0]["columns"] == ["date", "open", "high", "low", "close", "volume"]
    assert body["tables"][0]["rows"][0][0] == "2012-01-03"


async def test_failures_answer_503_and_undrawable_charts_become_notes(
    data, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.server import publish

    app = create_app(_settings(tmp_path), warm_up=False)
    transport = httpx.ASGITransport(app=app)  # a loopback client
    async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as client:

        def broken(chart: Any) -> bytes:
            raise RuntimeError("no renderer")

        monkeypatch.setattr(publish, "png_bytes", broken)
        drawn = await client.post("/run", json={"query": QUESTION, "today": "2022-12-28"})

        async def down(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("the warehouse is gone")

        monkeypatch.setattr(publish, "invoke", down)
        failed = await client.post("/run/search_entities", json={"query": "Apple"})
    assert drawn.status_code == 200 and drawn.json()["status"] == "ok"
    assert drawn.json()["images"] == [] and drawn.json()["tables"]
    assert any("could not be drawn: no renderer" in note for note in drawn.json()["notes"])
    assert failed.status_code == 503
    assert "the warehouse is gone" in failed.json()["message"]


# --- keys -----------------------------------------------------------------------------------------


async def test_documents_are_public_and_run_needs_a_chat_key(keyed_server: dict[str, str]) -> None:
    chat = {"Authorization": f"Bearer {keyed_server['chat']}"}
    manage = {"Authorization": f"Bearer {keyed_server['manage']}"}
    body = {"ids": ["AAPL"], "start": "2021-01-04", "end": "2021-01-04"}
    async with httpx.AsyncClient(base_url=keyed_server["url"], timeout=60) as client:
        manifest = (await client.get("/.well-known/ai-plugin.json")).json()
        spec = await client.get("/openapi.yaml")
        discovery = await client.get("/.well-known/mcp.json")
        anonymous = await client.post("/run/get_prices", json=body)
        scoped = await client.post("/run/get_prices", json=body, headers=manage)
        allowed = await client.post("/run/get_prices", json=body, headers=chat)
        mcp_anonymous = await client.post("/mcp", json={})
        mcp_scoped = await client.post("/mcp", json={}, headers=manage)
        full_api = await client.get("/api/openapi.json")
    assert manifest["auth"] == {"type": "user_http", "authorization_type": "bearer"}
    assert manifest["api"]["is_user_authenticated"] is True
    assert spec.status_code == 200 and yaml.safe_load(spec.text)["security"] == [{"bearer": []}]
    assert discovery.status_code == 200 and discovery.json()["authentication"]["required"]
    assert anonymous.status_code == 401 and mcp_anonymous.status_code == 401
    assert scoped.status_code == 403 and mcp_scoped.status_code == 403
    assert "chat" in mcp_scoped.json()["message"]
    assert allowed.status_code == 200 and allowed.json()["table"]["rows"][0][0] == "2021-01-04"
    # The whole API's document is public (its /docs page loads it before any key is given), and
    # says that calls need a bearer key.
    assert full_api.status_code == 200 and full_api.json()["security"] == [{"bearer": []}]


# --- MCP: Streamable HTTP at /mcp and stdio via `datapilot mcp` -----------------------------------


async def _round_trip(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert list(tools) == OPERATIONS

    prices = await client.call_tool(
        "get_prices", {"ids": ["JPM"], "start": "2021-12-27", "end": "2021-12-31"}
    )
    table = _structured_ok(prices, tools["get_prices"].output_schema)["table"]
    source = source_frame("skfolio_sp500").loc["2021-12-27":"2021-12-31", "JPM"]
    assert [row[1] for row in table["rows"]] == pytest.approx(source.tolist(), rel=1e-6)
    assert prices.content[0].type == "text" and "5 rows" in prices.content[0].text

    answer = await client.call_tool("ask", {"query": QUESTION, "today": "2022-12-28"})
    structured = _structured_ok(answer, tools["ask"].output_schema)
    assert structured["status"] == "ok"
    assert structured["tables"][0]["rows"][-1][1] == pytest.approx(
        _cumulative_2021("JPM"), abs=0.01
    )
    images = [block for block in answer.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    import base64

    assert base64.b64decode(images[0].data).startswith(PNG_MAGIC)

    bad = await client.call_tool("get_series", {"ids": "UNRATE", "freq": "hourly"})
    assert bad.is_error and "freq" in bad.content[0].text and "ids" in bad.content[0].text


async def test_mcp_over_streamable_http_with_a_key(keyed_server: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {keyed_server['chat']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
        transport = streamable_http_client(f"{keyed_server['url']}/mcp", http_client=http)
        async with Client(transport) as client:
            await _round_trip(client)


async def test_mcp_refuses_a_foreign_host_header(open_server: str) -> None:
    # DNS rebinding: a page on another name that resolves to this machine.
    port = open_server.rsplit(":", 1)[1]
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=open_server) as client:
        foreign = await client.post(
            "/mcp", json=request, headers={**headers, "host": f"attacker.example:{port}"}
        )
        evil_origin = await client.post(
            "/mcp", json=request, headers={**headers, "origin": "https://attacker.example"}
        )
    assert foreign.status_code == 421
    assert evil_origin.status_code == 403


async def test_mcp_over_stdio_with_datapilot_mcp(data) -> None:
    # The subprocess reads the same seeded data dir (the test-wide DATAPILOT_* environment).
    env = {name: value for name, value in os.environ.items() if name.startswith("DATAPILOT_")}
    env["PYTHONPATH"] = str(paths.ROOT)
    env["MPLBACKEND"] = "Agg"
    command = "from datapilot.cli import app; app()"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", command, "mcp", "--offline", "--brain", "offline"],
        env=env,
    )
    async with Client(params) as client:
        await _round_trip(client)
