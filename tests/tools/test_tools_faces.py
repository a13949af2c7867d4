"""Imported tools wherever an assistant runs for its owner: the OpenAI-compatible API and the
assistant's OpenBB agent call them as chats do (through the SSRF-safe client, with the stored
secret), but a call that needs the user's confirmation does not run there — nobody can click —
and the model hears that it needs a chat. Guests of a public assistant get only its owner's
tools that run without asking. A real plugin on loopback, a scripted model, SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from openbb_ai.testing import CopilotResponse
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.platform_app import app_for, client_of, key_for, lmc_events, platform_settings
from support.plugin_servers import PRICES, TOKEN, plugin_app

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.store import open_store

pytestmark = LOOPBACK
GET_PRICES, POST_NOTE, DELETE_NOTE = (
    "Research_getPrices",
    "Research_post_notes",
    "Research_deleteNote",
)
NOTE = {"title": "Q4", "body": "buy the dip"}


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    api = plugin_app()
    with live_server(api) as base:
        yield base, api


def caller(request: ChatRequest) -> Reply:
    """A model that calls the tool the user's message names (JSON: tool, arguments), then
    repeats what the tool said."""
    if request.response_format is not None:  # the memory pass
        return Reply(content='{"operations": []}')
    last = request.messages[-1]
    if last.get("role") == "tool":
        return Reply(content=f"tool said: {last['content']}")
    text = str(last.get("content"))  # chats may stamp it ("[Sent at …]"): the JSON inside
    if not request.tools or '"tool"' not in text:  # a summary or another side request
        return Reply(content="ok")
    asked = json.loads(text[text.index("{") : text.rindex("}") + 1])
    call = {"id": f"c{len(request.messages)}", "name": asked["tool"]}
    return Reply(tool_calls=[{**call, "arguments": json.dumps(asked["arguments"])}])


def ask(tool: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


def offered(request: ChatRequest) -> set[str]:
    return {t["function"]["name"] for t in request.tools or []}


@pytest.fixture()
def setup(store_url: str, server: tuple[str, Any]) -> Iterator[tuple[Any, str, ScriptedEndpoint]]:
    base, api = server
    api.state.notes.clear()
    api.state.seen.clear()
    with ScriptedEndpoint(caller) as endpoint:
        settings = platform_settings(store_url, endpoint).model_copy(
            update={
                "outbound_allow": [base.removeprefix("http://")],
                "secret_key": SecretStr(Fernet.generate_key().decode()),
            }
        )
        app = app_for(settings)
        key = key_for(open_store(settings), "ana")
        yield app, key, endpoint


async def _desk(client: Any, base: str, *, public: bool = False) -> str:
    added = await client.post(
        "/api/v1/tools/sources",
        json={
            "url": f"{base}/research/ai-plugin.json",
            "auth": {"type": "service_http", "secret": TOKEN},
        },
    )
    assert added.status_code == 201, added.text
    made = await client.post(
        "/api/v1/assistants",
        json={"name": "Desk", "tools": [GET_PRICES, POST_NOTE, DELETE_NOTE], "public": public},
    )
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def test_openai_api_and_openbb_agent_call_imported_tools_but_never_unconfirmed(
    setup: tuple[Any, str, ScriptedEndpoint], server: tuple[str, Any]
) -> None:
    app, key, endpoint = setup
    base, api = server
    closes = [f"{row['close']}" for row in PRICES]
    async with client_of(app, key) as client:
        desk = await _desk(client, base)

        # OpenAI-compatible: a read runs with the stored secret; its rows reach the reply.
        read = await client.post(
            "/v1/chat/completions",
            json={
                "model": desk,
                "messages": [{"role": "user", "content": ask(GET_PRICES, {"symbol": "ACME"})}],
            },
        )
        assert read.status_code == 200, read.text
        choice = read.json()["choices"][0]
        assert choice["finish_reason"] == "stop" and not choice["message"].get("tool_calls")
        assert all(close in choice["message"]["content"] for close in closes)
        sent = [s for s in api.state.seen if s[1] == "/api/prices/ACME"]
        assert sent and sent[-1][2]["authorization"] == f"Bearer {TOKEN}"
        assert GET_PRICES in offered([r for r in endpoint.requests if r.tools][-1])

        # A consequential call: not run, not handed to the client; the model hears why.
        write = await client.post(
            "/v1/chat/completions",
            json={"model": desk, "messages": [{"role": "user", "content": ask(POST_NOTE, NOTE)}]},
        )
        choice = write.json()["choices"][0]
        assert api.state.notes == []
        assert choice["finish_reason"] == "stop" and not choice["message"].get("tool_calls")
        assert "confirmation" in choice["message"]["content"]
        assert "chat" in choice["message"]["content"]
        steps = write.json()["datapilot"]["steps"]
        assert any("not run" in s.get("message", "") for s in steps)

        # Streaming: the same refusal, and the stream ends.
        streamed = await client.post(
            "/v1/chat/completions",
            json={
                "model": desk,
                "stream": True,
                "messages": [{"role": "user", "content": ask(POST_NOTE, NOTE)}],
            },
        )
        assert streamed.text.rstrip().endswith("data: [DONE]")
        assert '"tool_calls"' not in streamed.text and api.state.notes == []

        # The assistant's own OpenBB agent: the same rules.
        agent = f"/assistants/{desk}/v1/query"
        answered = await client.post(
            agent,
            json={"messages": [{"role": "human", "content": ask(GET_PRICES, {"symbol": "ACME"})}]},
        )
        assert all(close in CopilotResponse(answered.text).text for close in closes)
        refused = await client.post(
            agent, json={"messages": [{"role": "human", "content": ask(POST_NOTE, NOTE)}]}
        )
        assert "confirmation" in CopilotResponse(refused.text).text
        assert api.state.notes == []

        # Once the user trusts the tool, it runs there too.
        trusted = await client.post(f"/api/v1/tools/{POST_NOTE}/trust")
        assert trusted.status_code == 200, trusted.text
        ran = await client.post(
            "/v1/chat/completions",
            json={"model": desk, "messages": [{"role": "user", "content": ask(POST_NOTE, NOTE)}]},
        )
        assert ran.status_code == 200 and api.state.notes == [NOTE]


async def test_guests_get_only_the_owners_tools_that_run_without_asking(
    setup: tuple[Any, str, ScriptedEndpoint], server: tuple[str, Any]
) -> None:
    app, key, endpoint = setup
    base, api = server
    async with client_of(app, key) as owner:
        desk = await _desk(owner, base, public=True)
    async with client_of(app) as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{desk}/chats", json={})
        assert opened.status_code == 201, opened.text
        headers = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
        chat = opened.json()["id"]
        sent = await guest.post(
            f"/api/v1/guest/chats/{chat}/messages",
            json={"content": ask(GET_PRICES, {"symbol": "ACME"}), "stream": False},
            headers=headers,
        )
        assert sent.status_code == 200, sent.text
        assert str(PRICES[0]["close"]) in sent.json()["replies"][-1]["content"], sent.text
        tools = offered([r for r in endpoint.requests if r.tools][-1])
        assert {GET_PRICES, DELETE_NOTE} <= tools and POST_NOTE not in tools
        # Asked for anyway, the consequential tool is not there: no confirmation, nothing sent.
        streamed = await guest.post(
            f"/api/v1/guest/chats/{chat}/messages",
            json={"content": ask(POST_NOTE, NOTE)},
            headers=headers,
        )
        assert not [c for c in lmc_events(streamed.text) if c.get("type") == "confirmation"]
        assert api.state.notes == []
    async with client_of(app, key) as owner:
        assert (await owner.post(f"/api/v1/tools/{POST_NOTE}/trust")).status_code == 200
    async with client_of(app) as guest:
        await guest.post(
            f"/api/v1/guest/chats/{chat}/messages",
            json={"content": ask(POST_NOTE, NOTE), "stream": False},
            headers=headers,
        )
        assert api.state.notes == [NOTE]  # trusted by its owner: it runs for guests too
