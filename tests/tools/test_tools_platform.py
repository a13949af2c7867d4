"""Imported tools on the platform: the REST routes under /api/v1/tools, tenants kept apart,
secrets never returned, and a consequential tool waiting for the user's go-ahead in a chat
(run, edited run, cancel, or a newer message declining it), with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.platform_app import app_for, client_of, key_for, lmc_events, platform_settings
from support.plugin_servers import TOKEN, plugin_app

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.store import open_store

pytestmark = LOOPBACK
TOOL = "ToDoList_todo"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    api = plugin_app()
    with live_server(api) as base:
        yield base, api


@pytest.fixture()
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint([Reply(content="hello")]) as served:
        yield served


def tool_results(request: ChatRequest) -> list[dict[str, Any]]:
    return [m for m in request.messages if m.get("role") == "tool"]


def todo_model(arguments: dict[str, Any]) -> Any:
    """Calls the to-do tool once, then repeats what the tool said."""

    def reply(request: ChatRequest) -> Reply:
        results = tool_results(request)
        last_is_human = request.messages[-1].get("role") == "user"
        if not results or last_is_human:
            call = {"id": f"c{len(request.messages)}", "name": TOOL}
            return Reply(tool_calls=[{**call, "arguments": json.dumps(arguments)}])
        return Reply(content=f"tool said: {results[-1]['content']}")

    return reply


def settings_for(store_url: str, endpoint: ScriptedEndpoint, base: str) -> Any:
    settings = platform_settings(store_url, endpoint)
    return settings.model_copy(
        update={
            "outbound_allow": [base.removeprefix("http://")],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
        }
    )


async def test_sources_routes_and_tenants(
    store_url: str, endpoint: ScriptedEndpoint, server: tuple[str, Any]
) -> None:
    base, _ = server
    settings = settings_for(store_url, endpoint, base)
    app = app_for(settings)
    store = open_store(settings)
    mine, theirs = key_for(store, "ana"), key_for(store, "bo")
    async with client_of(app, mine) as client, client_of(app, theirs) as other:
        added = await client.post(
            "/api/v1/tools/sources",
            json={
                "url": f"{base}/research/ai-plugin.json",
                "auth": {"type": "service_http", "secret": TOKEN},
            },
        )
        assert added.status_code == 201, added.text
        source = added.json()
        assert TOKEN not in added.text and source["auth"]["has_secret"] is True
        assert {t["qualified"] for t in source["tools"]} == {
            "Research.getPrices",
            "Research.post_notes",
            "Research.deleteNote",
        }
        listed = (await client.get("/api/v1/tools")).json()
        assert "Research_getPrices" in {t["name"] for t in listed}
        called = await client.post(
            "/api/v1/tools/Research.getPrices/call", json={"arguments": {"symbol": "ACME"}}
        )
        assert called.status_code == 200, called.text
        table = called.json()["outputs"][0]
        assert table["columns"] == ["date", "close", "volume"] and len(table["rows"]) == 4
        bad = await client.post(
            "/api/v1/tools/Research.getPrices/call", json={"arguments": {"limit": 0}}
        )
        assert bad.status_code == 400 and "symbol" in bad.json()["detail"]
        # Another tenant sees none of it.
        assert (await other.get("/api/v1/tools/sources")).json() == []
        assert "Research_getPrices" not in {
            t["name"] for t in (await other.get("/api/v1/tools")).json()
        }
        assert (
            await other.post("/api/v1/tools/Research.getPrices/call", json={"arguments": {}})
        ).status_code == 404
        assert (await other.delete("/api/v1/tools/sources/Research")).status_code == 404
        unreadable = await client.post("/api/v1/tools/sources", json={"document": "openapi: [x"})
        assert unreadable.status_code == 400 and "line" in unreadable.json()["detail"]
        private = await client.post(
            "/api/v1/tools/sources", json={"url": "http://10.0.0.1/openapi.json"}
        )
        assert private.status_code == 400 and "private" in private.json()["detail"]
        stdio = await client.post(
            "/api/v1/tools/sources", json={"kind": "mcp", "command": ["python", "-V"]}
        )
        assert stdio.status_code == 400 and "terminal" in stdio.json()["detail"]
        # Found by the fuzzing run: an MCP server whose secret names an unset variable.
        unset = await client.post(
            "/api/v1/tools/sources",
            json={
                "kind": "mcp",
                "url": f"{base}/mcp",
                "auth": {"type": "service_http", "secret_env": "DATAPILOT_TEST_UNSET_SECRET"},
            },
        )
        assert unset.status_code == 400, unset.text
        assert "DATAPILOT_TEST_UNSET_SECRET" in unset.json()["detail"]
        assert (await client.delete("/api/v1/tools/sources/Research")).status_code == 204
        assert (await client.get("/api/v1/tools/sources")).json() == []


def last_turn(endpoint: ScriptedEndpoint) -> Any:
    """The last request of an assistant turn: memory extraction (a JSON request) follows each."""
    return [r for r in endpoint.requests if r.response_format is None][-1]


async def _chat_with_todo(client: Any) -> str:
    assistant = await client.post("/api/v1/assistants", json={"name": "Helper", "tools": [TOOL]})
    assert assistant.status_code == 201, assistant.text
    chat = await client.post("/api/v1/chats", json={"assistant_id": assistant.json()["id"]})
    return str(chat.json()["id"])


async def test_consequential_call_waits_for_run_or_cancel(
    store_url: str, endpoint: ScriptedEndpoint, server: tuple[str, Any]
) -> None:
    base, api = server
    api.state.todos.clear()
    app = app_for(settings_for(store_url, endpoint, base))
    async with client_of(app) as client:
        added = await client.post(
            "/api/v1/tools/sources", json={"url": f"{base}/plugins/todo/ai-plugin.json"}
        )
        assert added.status_code == 201, added.text
        chat = await _chat_with_todo(client)
        endpoint.load(todo_model({"操作": "插入", "事项": "买牛奶"}))
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "记下买牛奶"})
        chunks = lmc_events(sent.text)
        asked = [c for c in chunks if c.get("type") == "confirmation"]
        assert len(asked) == 1 and asked[0]["role"] == "computer" and asked[0]["format"] == "tool"
        content = asked[0]["content"]
        assert content["tool"] == TOOL and content["arguments"] == {
            "操作": "插入",
            "事项": "买牛奶",
        }
        assert "POST" in content["message"] and content["call_id"]
        assert chunks[-1]["content"] == "complete"
        assert api.state.todos == []  # nothing ran
        # Run it with edited arguments: the tool runs once and the model goes on.
        ran = await client.post(
            f"/api/v1/chats/{chat}/messages",
            json={
                "command": "run",
                "arguments": {"操作": "插入", "事项": "买面包"},
                "stream": False,
            },
        )
        assert ran.status_code == 200, ran.text
        assert api.state.todos == ["买面包"]
        assert "1. 买面包" in ran.json()["answer"]["summary"]
        again = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"command": "run", "stream": False}
        )
        assert again.status_code == 400 and "nothing" in again.json()["detail"]
        # Ask again, then cancel: declined, nothing sent.
        await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "再记一个"})
        cancelled = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"command": "cancel", "stream": False}
        )
        assert cancelled.status_code == 200, cancelled.text
        assert "declined" in cancelled.json()["message"]["content"]
        assert api.state.todos == ["买面包"]
        # Ask again, then just write: the waiting call is closed as declined before it.
        await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "第三个"})
        endpoint.load([Reply(content="ok, not adding it")])
        await client.post(
            f"/api/v1/chats/{chat}/messages", json={"content": "算了", "stream": False}
        )
        declined = tool_results(last_turn(endpoint))
        assert "declined" in declined[-1]["content"]
        assert api.state.todos == ["买面包"]
        messages = (await client.get(f"/api/v1/chats/{chat}/messages")).json()
        waiting = [m for m in messages if m["tool_call"] and m["tool_call"]["confirmation"]]
        answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        assert waiting and all(m["tool_call"]["id"] in answered for m in waiting)


async def test_trusted_tool_runs_without_asking(
    store_url: str, endpoint: ScriptedEndpoint, server: tuple[str, Any]
) -> None:
    base, api = server
    api.state.todos.clear()
    app = app_for(settings_for(store_url, endpoint, base))
    async with client_of(app) as client:
        await client.post(
            "/api/v1/tools/sources", json={"url": f"{base}/plugins/todo/ai-plugin.json"}
        )
        trusted = await client.post("/api/v1/tools/ToDoList.todo/trust", json={})
        assert trusted.status_code == 200 and trusted.json()["trusted"] is True
        chat = await _chat_with_todo(client)
        endpoint.load(todo_model({"操作": "插入", "事项": "交报告"}))
        sent = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"content": "记下交报告", "stream": False}
        )
        assert sent.status_code == 200, sent.text
        assert api.state.todos == ["交报告"]
        assert "1. 交报告" in sent.json()["answer"]["summary"]


async def test_bad_arguments_from_the_model_fail_without_asking_or_sending(
    store_url: str, endpoint: ScriptedEndpoint, server: tuple[str, Any]
) -> None:
    base, api = server
    api.state.todos.clear()
    app = app_for(settings_for(store_url, endpoint, base))
    async with client_of(app) as client:
        await client.post(
            "/api/v1/tools/sources", json={"url": f"{base}/plugins/todo/ai-plugin.json"}
        )
        chat = await _chat_with_todo(client)
        bad = [
            {"id": "b1", "name": TOOL, "arguments": "{not json"},
            {"id": "b2", "name": TOOL, "arguments": json.dumps({"事项": "no action given"})},
        ]
        endpoint.load([Reply(tool_calls=bad), Reply(content="I will fix the call.")])
        calls_before = len(api.state.seen)
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "记一下"})
        assert not [c for c in lmc_events(sent.text) if c.get("type") == "confirmation"]
        results = {m["tool_call_id"]: m["content"] for m in tool_results(last_turn(endpoint))}
        assert "not valid JSON" in results["b1"] and "操作" in results["b2"]
        assert len(api.state.seen) == calls_before  # neither call reached the server
        # Importing the same source again keeps the assistant's binding and the trust.
        assert (await client.post(f"/api/v1/tools/{TOOL}/trust", json={})).status_code == 200
        again = await client.post(
            "/api/v1/tools/sources", json={"url": f"{base}/plugins/todo/ai-plugin.json"}
        )
        assert again.status_code == 201 and again.json()["tools"][0]["trusted"] is True
        helper = (await client.get("/api/v1/assistants/Helper")).json()
        assert helper["tools"] == [TOOL]
