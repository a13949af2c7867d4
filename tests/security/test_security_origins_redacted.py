"""Where an imported tool's answer comes from is shown without the credentials its address may
carry: an imported spec's server URL with `user:password@` and `?api_key=` is shown to a
public assistant's guests (and kept in their history) as scheme, host, port and path only; the
same in a consequential call's confirmation; an MCP server started by a command is named by
its program, never its arguments."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from pydantic import SecretStr
from support.dead_endpoint import refused_url
from support.live_server import LOOPBACK, live_server
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.settings import Settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.mcp_client import MCPTool
from datapilot.tools.offline_results import origin_of
from datapilot.tools.openapi import base_url, operations

pytestmark = LOOPBACK
SECRETS = ("svcuser", "URLPASSWORD", "QUERYSECRET", "CMDSECRET")
RATE = 0.9213


def rates_app() -> FastAPI:
    app = FastAPI()

    @app.get("/api")
    @app.get("/api/fx")
    def fx(request: Request) -> dict[str, Any]:
        currency = request.query_params.get("currency", "EUR")
        return {"currency": currency, "per": "USD", "rate": RATE}

    return app


@pytest.fixture(scope="module")
def rates() -> Iterator[str]:
    with live_server(rates_app()) as base:
        yield base


def spec_of(base: str) -> dict[str, Any]:
    host = base.removeprefix("http://")
    currency = {"type": "string", "enum": ["EUR", "JPY"]}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Cred", "version": "1"},
        "servers": [{"url": f"http://svcuser:URLPASSWORD@{host}/api?api_key=QUERYSECRET"}],
        "paths": {
            "/fx": {
                "get": {
                    "operationId": "getRate",
                    "summary": "Exchange rate of a currency per US dollar",
                    "parameters": [
                        {"name": "currency", "in": "query", "required": True, "schema": currency}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/orders": {
                "post": {
                    "operationId": "placeOrder",
                    "summary": "Place an order",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"currency": currency},
                                }
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            },
        },
    }


def assert_hidden(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, (secret, text)


async def test_a_guest_sees_the_origin_without_its_credentials(store_url: str, rates: str) -> None:
    settings = platform_settings(store_url).model_copy(
        update={"outbound_allow": [rates.removeprefix("http://")]}
    )
    app = app_for(settings)
    owner = key_for(app.state.store, "cred-owner")
    async with client_of(app, owner) as client:
        added = await client.post(
            "/api/v1/tools/sources", json={"name": "Cred", "document": json.dumps(spec_of(rates))}
        )
        assert added.status_code == 201, added.text
        made = await client.post(
            "/api/v1/assistants",
            json={"name": "CredPublic", "public": True, "tools": ["Cred_getRate"]},
        )
        assert made.status_code == 201, made.text
    async with client_of(app) as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{made.json()['id']}/chats", json={})
        headers = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
        chat = opened.json()["id"]
        question = {"content": "What is the EUR exchange rate per USD?", "stream": False}
        sent = await guest.post(
            f"/api/v1/guest/chats/{chat}/messages", json=question, headers=headers
        )
        assert sent.status_code == 200, sent.text
        history = await guest.get(f"/api/v1/guest/chats/{chat}/messages", headers=headers)
    answer = sent.json()["answer"]
    assert answer["status"] == "ok" and str(RATE) in answer["summary"], answer
    shown = f"the imported API Cred ({rates}/api)"
    assert shown in answer["summary"] and shown in history.text
    assert_hidden(sent.text)
    assert_hidden(history.text)


def test_a_confirmation_names_the_address_without_its_credentials() -> None:
    spec = spec_of("http://127.0.0.1:9")
    found = operations(spec, "Cred", base_url(spec, None), [])
    order = next(op for op in found if op.name.endswith("placeOrder"))
    tool = OpenAPITool(spec=order, settings=Settings())
    asked = tool.confirmation({"currency": "EUR"})
    assert asked is not None and "POST http://127.0.0.1:9/api/orders" in asked, asked
    assert_hidden(asked)


def test_an_mcp_servers_origin_names_no_argument_or_credential() -> None:
    tool = {"name": "quote", "description": "A quote", "parameters": {"type": "object"}}
    command = ["/opt/tools/quotes-server", "--token", "CMDSECRET"]
    stdio = MCPTool(
        server={"transport": "stdio", "command": command},
        tool=tool,
        source_name="Quotes",
        settings=Settings(),
    )
    over_http = MCPTool(
        server={
            "transport": "http",
            "url": "https://svcuser:URLPASSWORD@mcp.example/mcp?key=QUERYSECRET",
        },
        tool=tool,
        source_name="Remote",
        settings=Settings(),
    )
    for zh in (False, True):
        local = origin_of(stdio, zh)
        assert "quotes-server" in local, local
        assert_hidden(local)
        remote = origin_of(over_http, zh)
        assert "https://mcp.example/mcp" in remote, remote
        assert_hidden(remote)


def test_features_name_the_model_endpoint_without_its_credentials(tmp_path: Path) -> None:
    host = refused_url().removeprefix("http://").removesuffix("/v1")
    settings = Settings(
        brain="offline",
        offline=False,
        llm_base_url=f"http://svcuser:URLPASSWORD@{host}/v1?api_key=QUERYSECRET",
        llm_model="m",
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.db'}"),
    )
    app = app_for(settings)
    chat_key = key_for(app.state.store, "reader", "chat")
    client = TestClient(app, headers={"Authorization": f"Bearer {chat_key}"})
    deadline = time.monotonic() + 10
    while True:
        answered = client.get("/api/v1/features")
        assert answered.status_code == 200, answered.text
        part = answered.json()["parts"]["model"]
        if not part["checking"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert f"the model endpoint http://{host}/v1 cannot be reached" in part["reason"], part
    assert_hidden(answered.text)
