"""Running code on the owner's server is the owner's choice: a guest of a public assistant with
the `python` tool never gets the tool (so can never approve a run) unless the owner turned on
`interpreter_guests` for that assistant; the owner's own chats keep it either way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.live_server import LOOPBACK
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK


@pytest.fixture()
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint([Reply(content="hello")] * 20) as served:
        yield served


def offered(request: ChatRequest) -> set[str]:
    return {tool["function"]["name"] for tool in request.tools or []}


async def guest_asks(app: Any, assistant: str) -> None:
    async with client_of(app) as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{assistant}/chats", json={})
        assert opened.status_code == 201, opened.text
        sent = await guest.post(
            f"/api/v1/guest/chats/{opened.json()['id']}/messages",
            json={"content": "print 1+1 in python", "stream": False},
            headers={"X-Guest-Id": opened.headers["X-Guest-Id"]},
        )
        assert sent.status_code == 200, sent.text


async def test_guests_get_code_only_where_the_owner_allows(
    store_url: str, endpoint: ScriptedEndpoint, data: Any
) -> None:
    app = app_for(platform_settings(store_url, endpoint))
    key = key_for(app.state.store, "owner")
    body = {"name": "Lab", "public": True, "tools": ["ask_data", "python"]}
    async with client_of(app, key) as owner:
        made = await owner.post("/api/v1/assistants", json=body)
        assert made.status_code == 201, made.text
        lab = made.json()
        assert lab["interpreter_guests"] is False  # off by default
        await guest_asks(app, lab["id"])
        turns = [r for r in endpoint.requests if r.response_format is None]
        assert turns and "python" not in offered(turns[-1]) and "ask_data" in offered(turns[-1])

        chat = (await owner.post("/api/v1/chats", json={"assistant_id": lab["id"]})).json()
        await owner.post(f"/api/v1/chats/{chat['id']}/messages", json={"content": "hi"})
        turns = [r for r in endpoint.requests if r.response_format is None]
        assert "python" in offered(turns[-1])  # the owner keeps it

        patched = await owner.patch(
            f"/api/v1/assistants/{lab['id']}", json={"interpreter_guests": True}
        )
        assert patched.status_code == 200 and patched.json()["interpreter_guests"] is True
    await guest_asks(app, lab["id"])
    turns = [r for r in endpoint.requests if r.response_format is None]
    assert "python" in offered(turns[-1])


async def test_the_guest_policy_needs_the_python_tool(store_url: str, data: Any) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app, key_for(app.state.store, "owner")) as owner:
        refused = await owner.post(
            "/api/v1/assistants", json={"name": "NoCode", "interpreter_guests": True}
        )
    assert refused.status_code == 400 and "python" in refused.text
