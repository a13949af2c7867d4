"""The OpenAI-compatible face, with the `openai` SDK as the client (over the ASGI app)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
import pytest
from support.llm import LOOPBACK
from support.platform_app import (
    QUESTION,
    TODAY,
    app_for,
    apple_2021_return_pct,
    key_for,
    platform_settings,
)

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


async def sdk_for(app: Any, key: str) -> AsyncIterator[openai.AsyncOpenAI]:
    transport = httpx.ASGITransport(app=app)
    http = httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60)
    client = openai.AsyncOpenAI(
        base_url="http://testserver/v1", api_key=key, http_client=http, max_retries=0
    )
    try:
        yield client
    finally:
        await client.close()


async def make_assistant(app: Any, key: str, name: str = "Analyst") -> str:
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        created = await http.post("/api/v1/assistants", json={"name": name}, headers=headers)
    return str(created.json()["id"])


@pytest.fixture()
def offline_app(tmp_path, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))


@pytest.fixture()
async def offline_sdk(offline_app) -> AsyncIterator[tuple[openai.AsyncOpenAI, str]]:  # type: ignore[no-untyped-def]
    key = key_for(offline_app.state.store, "ana")
    assistant = await make_assistant(offline_app, key)
    async for client in sdk_for(offline_app, key):
        yield client, assistant


async def test_models_list_the_assistants_and_the_workflow(offline_sdk) -> None:  # type: ignore[no-untyped-def]
    client, assistant = offline_sdk
    ids = [model.id async for model in client.models.list()]
    assert ids == ["datapilot", assistant]


async def test_a_completion_answers_with_the_figure(offline_sdk) -> None:  # type: ignore[no-untyped-def]
    client, assistant = offline_sdk
    reply = await client.chat.completions.create(
        model=assistant, messages=[{"role": "user", "content": QUESTION}]
    )
    assert f"{apple_2021_return_pct():.2f}%" in (reply.choices[0].message.content or "")
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.total_tokens > 0


async def test_streaming_with_usage_and_namespaced_steps(offline_sdk) -> None:  # type: ignore[no-untyped-def]
    client, _ = offline_sdk
    stream = await client.chat.completions.create(
        model="datapilot",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert f"{apple_2021_return_pct():.2f}%" in text
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens > 0
    steps = [c.model_extra["datapilot"] for c in chunks if (c.model_extra or {}).get("datapilot")]
    assert any(step["type"] == "output" for step in steps)
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)


async def test_an_unknown_model_is_a_clear_404(offline_sdk) -> None:  # type: ignore[no-untyped-def]
    client, _ = offline_sdk
    with pytest.raises(openai.NotFoundError, match="GET /v1/models"):
        await client.chat.completions.create(
            model="nobody", messages=[{"role": "user", "content": "hi"}]
        )


async def test_client_tools_pass_through_and_server_tools_stay_hidden(
    tmp_path, data: object
) -> None:
    def model(request: ChatRequest) -> Reply:
        names = [t["function"]["name"] for t in request.tools or []]
        assert names == ["ask_data", "get_weather"]
        if not any(m.get("role") == "tool" for m in request.messages):
            return Reply(
                tool_calls=[
                    {
                        "id": "s1",
                        "name": "ask_data",
                        "arguments": json.dumps({"question": QUESTION}),
                    }
                ]
            )
        return Reply(
            tool_calls=[{"id": "w1", "name": "get_weather", "arguments": '{"city":"NYC"}'}]
        )

    with ScriptedEndpoint(model) as endpoint:
        app = app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint))
        key = key_for(app.state.store, "ana")
        assistant = await make_assistant(app, key)
        async for client in sdk_for(app, key):
            reply = await client.chat.completions.create(
                model=assistant,
                messages=[{"role": "user", "content": f"{QUESTION} (today is {TODAY})"}],
                tools=[WEATHER],  # type: ignore[list-item]
            )
            stream = await client.chat.completions.create(
                model=assistant,
                messages=[{"role": "user", "content": QUESTION}],
                tools=[WEATHER],  # type: ignore[list-item]
                stream=True,
            )
            chunks = [chunk async for chunk in stream]
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls", choice.message.content
    assert [c.function.name for c in choice.message.tool_calls or []] == ["get_weather"]  # type: ignore[union-attr]
    streamed = [
        call.function.name
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
        for call in c.choices[0].delta.tool_calls
    ]
    assert streamed == ["get_weather"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    server_result = next(m for m in endpoint.requests[1].messages if m.get("role") == "tool")
    assert re.search(r"returned -?[\d.]+%", server_result["content"])
