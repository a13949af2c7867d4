"""Datapilot imports its own full HTTP API document (FastAPI's OpenAPI 3.1, dozens of operations
with `$ref`s and `anyOf`) as tools, and answers a question through the imported `ask` operation.

It also imports its published plugin from the manifest, `/.well-known/ai-plugin.json` (the
Qianfan path: manifest → spec → `POST /run`), and answers through it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.platform_app import QUESTION, TODAY, apple_2021_return_pct

from datapilot.net import OutboundPolicy
from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store.models import ToolSource
from datapilot.tools.schema import has_ref
from datapilot.tools.sources import SourceIn, make_tools, read_source

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("self") / "store.sqlite3"
    settings = Settings(offline=True, brain="offline", database_url=SecretStr(f"sqlite:///{store}"))
    with live_server(create_app(settings, warm_up=False)) as base:
        yield base


def test_datapilot_imports_its_own_api_and_answers_through_it(served: str, data: object) -> None:
    allow = served.removeprefix("http://")
    # The full API document moved to /api/openapi.json: /openapi.json is now the published
    # plugin's spec (imported in test_datapilot_imports_its_published_plugin below).
    spec_url = f"{served}/api/openapi.json"
    name, _, spec, problems = read_source(
        SourceIn(url=spec_url, name="Self"), OutboundPolicy.from_entries([allow])
    )
    paths = {op["path"] for op in spec["operations"]}
    assert {"/api/v1/ask", "/api/v1/tools/sources", "/api/v1/chats/{chat_id}/messages"} <= paths
    assert problems == []  # a valid document reads without a single problem
    assert not any(has_ref(op["parameters"]) for op in spec["operations"])
    assert all(len(op["name"]) <= 64 for op in spec["operations"])
    row = ToolSource(name=name, kind="openapi", spec=spec, auth={}, trusted=[])
    tools = {t.name: t for t in make_tools(row, Settings(outbound_allow=[allow]), None)}
    ask = next(t for t in tools.values() if t.spec.path == "/api/v1/ask")  # type: ignore[attr-defined]
    assert ask.confirmation({"question": QUESTION}) is not None  # a POST: asks in chats
    output = asyncio.run(ask.call({"question": QUESTION, "today": TODAY}))
    answer = json.loads(output.text)
    assert answer["status"] == "ok", answer
    assert f"{apple_2021_return_pct():.2f}%" in answer["summary"]


def test_datapilot_imports_its_published_plugin_and_answers_through_run(
    served: str, data: object
) -> None:
    allow = served.removeprefix("http://")
    name, _, spec, problems = read_source(
        SourceIn(url=f"{served}/.well-known/ai-plugin.json"),
        OutboundPolicy.from_entries([allow]),
    )
    assert name == "Datapilot" and problems == []
    operations = {op["path"]: op for op in spec["operations"]}
    assert set(operations) == {
        "/run",
        "/run/search_entities",
        "/run/get_prices",
        "/run/get_series",
        "/run/call_interface",
    }
    assert not any(has_ref(op["parameters"]) for op in spec["operations"])
    row = ToolSource(name=name, kind="openapi", spec=spec, auth={}, trusted=[])
    tools = {t.spec.path: t for t in make_tools(row, Settings(outbound_allow=[allow]), None)}  # type: ignore[attr-defined]
    output = asyncio.run(tools["/run"].call({"query": QUESTION, "today": TODAY}))
    answer = json.loads(output.text)
    assert answer["status"] == "ok", answer
    assert f"{apple_2021_return_pct():.2f}%" in answer["answer"]
