"""A model's reply streams token by token: LMC message deltas on a chat, `delta.content` chunks
on the OpenAI-compatible face; a tool call streamed in pieces still runs; a stream that breaks
off ends the reply cleanly with what arrived and a failure."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from support.llm import LOOPBACK
from support.platform_app import QUESTION, app_for, client_of, lmc_events, platform_settings

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK

LONG = (
    "Apple's shares rose through most of the year, with a dip in spring and a strong finish "
    "in December; the tool's table has the monthly closes."
)


def message_deltas(chunks: list[dict[str, Any]]) -> list[str]:
    return [
        c["content"]
        for c in chunks
        if c.get("role") == "assistant" and c.get("type") == "message" and c.get("content")
    ]


@pytest.fixture()
def endpoint():  # type: ignore[no-untyped-def]
    with ScriptedEndpoint([Reply(content=LONG)]) as served:
        yield served


@pytest.fixture()
def app(tmp_path, endpoint, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint))


async def open_chat(client: httpx.AsyncClient) -> str:
    assistant = (await client.post("/api/v1/assistants", json={"name": "Streamer"})).json()
    chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
    return str(chat["id"])


async def test_a_chat_reply_streams_as_many_lmc_deltas(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        chat = await open_chat(client)
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "hi"})
        stored = (await client.get(f"/api/v1/chats/{chat}/messages")).json()
    deltas = message_deltas(lmc_events(sent.text))
    # The scripted model sends word-sized pieces; each is its own chunk, in order.
    assert len(deltas) >= len(LONG.split()) // 2
    assert "".join(deltas) == LONG
    # The turn's request (a memory extraction, a JSON request, follows it).
    assert [r for r in endpoint.requests if r.response_format is None][-1].stream is True
    assert stored[-1]["role"] == "assistant" and stored[-1]["content"] == LONG


async def test_a_streamed_tool_call_runs_and_the_answer_streams(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    def model(request: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in request.messages):
            # Long arguments: they arrive in several pieces and must be joined.
            question = f"{QUESTION} Please be precise about the window, today is 2022-12-28."
            arguments = json.dumps({"question": question})
            return Reply(tool_calls=[{"id": "c1", "name": "ask_data", "arguments": arguments}])
        return Reply(content=LONG)

    endpoint.load(model)
    async with client_of(app) as client:
        chat = await open_chat(client)
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": QUESTION})
    chunks = lmc_events(sent.text)
    tool_result = next(m for m in endpoint.requests[1].messages if m.get("role") == "tool")
    assert "returned" in tool_result["content"]  # the workflow ran with the joined arguments
    assert "".join(message_deltas(chunks)) == LONG
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}


async def test_a_broken_stream_ends_the_reply_cleanly(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    endpoint.load([Reply(content=LONG, cut_after_chunks=3)])
    async with client_of(app) as client:
        chat = await open_chat(client)
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": "hi"})
    chunks = lmc_events(sent.text)
    deltas = message_deltas(chunks)
    # What arrived before the drop was already on its way to the user, then the failure.
    arrived = "".join(deltas[:3])
    assert arrived and LONG.startswith(arrived) and len(arrived) < len(LONG) // 2
    assert LONG not in "".join(deltas)
    errors = [c for c in chunks if c.get("role") == "server" and c.get("type") == "error"]
    assert errors and "broke off" in errors[0]["content"]
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}


async def test_openai_stream_sends_the_text_in_content_deltas(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as http:
        assistant = (await http.post("/api/v1/assistants", json={"name": "Streamer"})).json()
    transport = httpx.ASGITransport(app=app)
    client = openai.AsyncOpenAI(
        base_url="http://testserver/v1",
        api_key="unused",
        http_client=httpx.AsyncClient(transport=transport, base_url="http://testserver"),
        max_retries=0,
    )
    async with client:
        stream = await client.chat.completions.create(
            model=assistant["id"], messages=[{"role": "user", "content": "hi"}], stream=True
        )
        pieces = [
            chunk.choices[0].delta.content
            async for chunk in stream
            if chunk.choices and chunk.choices[0].delta.content
        ]
    assert len(pieces) >= len(LONG.split()) // 2
    assert "".join(pieces) == LONG


async def test_a_reply_cut_at_the_token_limit_gives_way_to_the_data(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    """A weak model rambles past the turn's token limit after some of its text went out: the
    turn ends with the data's answer after it, and a note, never an error."""
    from support.platform_app import apple_2021_return_pct

    endpoint.load([Reply(content=LONG, finish_reason="length")])
    async with client_of(app) as client:
        chat = await open_chat(client)
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": QUESTION})
    chunks = lmc_events(sent.text)
    assert not [c for c in chunks if c.get("role") == "server" and c.get("type") == "error"]
    assert f"{apple_2021_return_pct():.2f}%" in "".join(message_deltas(chunks))
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}
