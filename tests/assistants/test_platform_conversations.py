"""Conversations with a scripted model: tool loops, malformed and unknown tool calls, a tool
that times out, dangling calls in history, bounded rounds, assistant switching, expiry and
token accounting."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta
from typing import Any

import pytest
from support.llm import LOOPBACK
from support.platform_app import (
    QUESTION,
    TODAY,
    app_for,
    apple_2021_return_pct,
    client_of,
    platform_settings,
)

from datapilot.assistants.conversations import Chats
from datapilot.assistants.models import ChatIn, Tenant, ToolCallRecord
from datapilot.assistants.normalise import TOOL_FAILED, HistoryMessage
from datapilot.assistants.repo import local_user
from datapilot.assistants.runtime import Turn
from datapilot.assistants.service import request_for
from datapilot.assistants.turn_state import MAX_ROUNDS, TurnSetup
from datapilot.model_client import LLMConfig
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.tools import ToolOutput

pytestmark = LOOPBACK


def ask_data(question: str, call_id: str = "call_1") -> dict[str, str]:
    return {"id": call_id, "name": "ask_data", "arguments": json.dumps({"question": question})}


def tool_messages(request: ChatRequest) -> list[dict[str, Any]]:
    return [m for m in request.messages if m.get("role") == "tool"]


def quoting_model(request: ChatRequest) -> Reply:
    """Calls the data workflow once, then quotes the return the tool reported."""
    results = tool_messages(request)
    if not results:
        return Reply(content="", tool_calls=[ask_data(QUESTION)])
    found = re.search(r"returned (-?[\d.]+%)", results[-1]["content"])
    return Reply(content=f"Per the data, Apple returned {found.group(1) if found else 'n/a'}.")


@pytest.fixture()
def endpoint():  # type: ignore[no-untyped-def]
    with ScriptedEndpoint([Reply(content="hello")]) as served:
        yield served


async def test_tool_loop_through_a_chat_with_token_accounting(
    store_url: str, endpoint: ScriptedEndpoint, data: object
) -> None:
    endpoint.load(quoting_model)
    app = app_for(platform_settings(store_url, endpoint))
    async with client_of(app) as client:
        assistant = (
            await client.post("/api/v1/assistants", json={"name": "Analyst", "prompt": "Be exact."})
        ).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": "How did Apple do in 2021?", "today": TODAY, "stream": False},
        )
        body = sent.json()
        usage = (await client.get("/api/v1/usage")).json()
        totals = (await client.get(f"/api/v1/assistants/{assistant['id']}")).json()

    expected = f"{apple_2021_return_pct():.2f}%"
    assert [m["role"] for m in body["replies"]] == ["tool_call", "tool", "assistant"]
    assert expected in body["replies"][1]["content"]  # the tool's result, as the model got it
    assert body["replies"][-1]["content"] == f"Per the data, Apple returned {expected}."
    assert any(o["kind"] == "table" for o in body["answer"]["outputs"])  # artifacts for the user
    first = endpoint.requests[0]
    assert [t["function"]["name"] for t in first.tools or []] == ["ask_data"]
    assert "Be exact." in first.messages[0]["content"]
    assert expected in tool_messages(endpoint.requests[1])[0]["content"]

    stored = sum(m["total_tokens"] for m in body["replies"])
    assert stored > 0
    assert usage["total"]["total_tokens"] == stored and usage["total"]["calls"] == 1
    assert usage["by_assistant"][assistant["id"]]["total_tokens"] == stored
    assert totals["total_tokens"] == stored


@pytest.fixture()
def sqlite_settings(tmp_path, endpoint: ScriptedEndpoint):  # type: ignore[no-untyped-def]
    return platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint)


def turn(settings, history: list[HistoryMessage], tools: dict[str, Any], **extra: Any) -> Turn:  # type: ignore[no-untyped-def]
    request = request_for(settings)
    config = LLMConfig(
        base_url=settings.llm_base_url, model="scripted", timeout_s=60, max_retries=0
    )
    return Turn(TurnSetup(request=request, history=history, tools=tools, llm=config, **extra))


async def run(turn_: Turn) -> list[Any]:
    return [event async for event in turn_.events()]


class SlowTool:
    name = "slow"
    description = "Takes its time."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012
    source = "workflow"

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        await asyncio.sleep(30)
        return ToolOutput(text="never")


async def test_a_tool_that_times_out_is_reported_to_the_model(
    sqlite_settings, endpoint: ScriptedEndpoint, data: object
) -> None:
    endpoint.load(
        [Reply(tool_calls=[{"id": "s1", "name": "slow", "arguments": "{}"}]), Reply(content="ok")]
    )
    done = turn(
        sqlite_settings,
        [HistoryMessage(role="human", content="go")],
        {"slow": SlowTool()},
        tool_timeout_s=0.2,
    )
    await asyncio.wait_for(run(done), 10)
    result = tool_messages(endpoint.requests[1])[0]
    assert result["tool_call_id"] == "s1" and "did not finish within 0.2 s" in result["content"]
    assert done.result.text == "ok"


async def test_malformed_and_unknown_tool_calls_get_results_the_model_can_use(
    sqlite_settings, endpoint: ScriptedEndpoint, data: object
) -> None:
    bad = [
        {"id": "b1", "name": "slow", "arguments": "{not json"},
        {"id": "b2", "name": "nonexistent", "arguments": "{}"},
    ]
    endpoint.load([Reply(tool_calls=bad), Reply(content="recovered")])
    done = turn(sqlite_settings, [HistoryMessage(role="human", content="go")], {"slow": SlowTool()})
    await run(done)
    results = {m["tool_call_id"]: m["content"] for m in tool_messages(endpoint.requests[1])}
    assert "not valid JSON" in results["b1"]
    assert "no tool named 'nonexistent'" in results["b2"]
    assert done.result.text == "recovered"


async def test_dangling_calls_in_history_are_closed_before_the_model_sees_them(
    sqlite_settings, endpoint: ScriptedEndpoint, data: object
) -> None:
    history = [
        HistoryMessage(role="human", content="first"),
        HistoryMessage(role="tool_call", tool_call=ToolCallRecord(id="old", name="ask_data")),
        HistoryMessage(role="human", content="second"),
    ]
    endpoint.load([Reply(content="fine")])
    await run(turn(sqlite_settings, history, {}))
    sent = endpoint.requests[0].messages
    calls = [m for m in sent if m.get("tool_calls")]
    assert calls and tool_messages(endpoint.requests[0]) == [
        {"role": "tool", "tool_call_id": "old", "content": TOOL_FAILED}
    ]


async def test_tool_rounds_are_bounded(
    sqlite_settings, endpoint: ScriptedEndpoint, data: object
) -> None:
    def always_calls(request: ChatRequest) -> Reply:
        if not request.tools:
            return Reply(content="out of rounds")
        return Reply(tool_calls=[{"id": f"r{len(endpoint.requests)}", "name": "slow"}])

    class Quick(SlowTool):
        async def call(self, arguments: dict[str, Any]) -> ToolOutput:
            return ToolOutput(text="more")

    endpoint.load(always_calls)
    done = turn(sqlite_settings, [HistoryMessage(role="human", content="go")], {"slow": Quick()})
    await run(done)
    assert len(endpoint.requests) == MAX_ROUNDS + 1
    assert endpoint.requests[-1].tools is None
    assert done.result.text == "out of rounds"


async def test_another_assistant_answers_when_addressed(
    store_url: str, endpoint: ScriptedEndpoint, data: object
) -> None:
    endpoint.load([Reply(content="Alice here."), Reply(content="Bob here.")])
    app = app_for(platform_settings(store_url, endpoint))
    async with client_of(app) as client:
        alice = (
            await client.post("/api/v1/assistants", json={"name": "Alice", "prompt": "PROMPT-A"})
        ).json()
        bob = (
            await client.post("/api/v1/assistants", json={"name": "Bob", "prompt": "PROMPT-B"})
        ).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": alice["id"]})).json()
        url = f"/api/v1/chats/{chat['id']}/messages"
        await client.post(url, json={"content": "hi", "stream": False})
        second = await client.post(url, json={"content": "@bob your view?", "stream": False})
    reply = second.json()["replies"][-1]
    assert reply["assistant_id"] == bob["id"] and reply["content"] == "Bob here."
    # Each turn is followed by a memory extraction call (a JSON request): compare the turns.
    turns = [r for r in endpoint.requests if r.response_format is None]
    system = turns[1].messages[0]["content"]
    assert "PROMPT-B" in system and "PROMPT-A" not in system
    earlier = [m for m in turns[1].messages if m["role"] == "assistant"]
    assert "another assistant, Alice" in earlier[0]["content"]
    assert earlier[0]["content"].endswith("Alice here.")


async def test_an_expired_chat_is_gone(store_url: str, data: object) -> None:
    app = app_for(platform_settings(store_url))
    store = app.state.store
    with store.session() as session:
        tenant = Tenant(user_id=local_user(session))
        chat = Chats(session, tenant).create(ChatIn(), expires_in=timedelta(seconds=-1))
    async with client_of(app) as client:
        response = await client.get(f"/api/v1/chats/{chat.id}")
        listed = (await client.get("/api/v1/chats")).json()
        sent = await client.post(f"/api/v1/chats/{chat.id}/messages", json={"content": "hi"})
    assert response.status_code == 404 and "expired" in response.json()["detail"]
    assert listed == [] and sent.status_code == 404
