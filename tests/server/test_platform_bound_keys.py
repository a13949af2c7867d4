"""A key bound to an assistant uses that assistant only: every route naming another one (chats,
messages, completions, the per-assistant OpenBB agent) answers 403 saying why, and the lists
show that assistant alone."""

from __future__ import annotations

import pytest
from support.platform_app import (
    QUESTION,
    TODAY,
    app_for,
    apple_2021_return_pct,
    client_of,
    key_for,
    platform_settings,
)


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(store_url))


async def _two_assistants_and_a_bound_key(app) -> tuple[str, str, str, str]:  # type: ignore[no-untyped-def]
    """Alice's assistants `Desk` and `Other`, a chat of `Other`, and a key bound to `Desk`."""
    manager = key_for(app.state.store, "alice")
    async with client_of(app, manager) as client:
        desk = (await client.post("/api/v1/assistants", json={"name": "Desk"})).json()["id"]
        other = (await client.post("/api/v1/assistants", json={"name": "Other"})).json()["id"]
        chat = (await client.post("/api/v1/chats", json={"assistant_id": other})).json()["id"]
        made = await client.post(
            "/api/v1/keys", json={"name": "desk bot", "scopes": ["chat"], "assistant_id": desk}
        )
    assert made.status_code == 201, made.text
    return desk, other, chat, made.json()["key"]


async def test_a_bound_key_is_refused_every_other_assistant(app) -> None:  # type: ignore[no-untyped-def]
    desk, other, others_chat, bound = await _two_assistants_and_a_bound_key(app)
    refused = [
        ("GET", f"/api/v1/assistants/{other}", None),
        ("GET", "/api/v1/assistants/Other", None),
        ("POST", "/api/v1/chats", {"assistant_id": other}),
        ("GET", f"/api/v1/chats/{others_chat}", None),
        ("GET", f"/api/v1/chats/{others_chat}/messages", None),
        ("POST", f"/api/v1/chats/{others_chat}/messages", {"content": "hi", "stream": False}),
        (
            "POST",
            "/v1/chat/completions",
            {"model": other, "messages": [{"role": "user", "content": "hi"}]},
        ),
        (
            "POST",
            "/v1/chat/completions",
            {"model": "datapilot", "messages": [{"role": "user", "content": "hi"}]},
        ),
        (
            "POST",
            f"/assistants/{other}/v1/query",
            {"messages": [{"role": "human", "content": QUESTION}]},
        ),
    ]
    async with client_of(app, bound) as client:
        for method, path, body in refused:
            response = await client.request(method, path, json=body)
            assert response.status_code == 403, (method, path, response.text)
            assert "bound to the assistant" in response.text, (method, path, response.text)
        listed = (await client.get("/api/v1/assistants")).json()
        models = (await client.get("/v1/models")).json()["data"]
        chats = (await client.get("/api/v1/chats")).json()
    assert [a["id"] for a in listed] == [desk]
    assert [m["id"] for m in models] == [desk]
    assert others_chat not in [c["id"] for c in chats]


async def test_a_bound_key_chats_with_its_assistant(app) -> None:  # type: ignore[no-untyped-def]
    desk, _other, _chat, bound = await _two_assistants_and_a_bound_key(app)
    async with client_of(app, bound) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        assert chat["assistant_id"] == desk  # a new chat is the bound assistant's
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": QUESTION, "today": TODAY, "stream": False},
        )
        completion = await client.post(
            "/v1/chat/completions",
            json={"model": "Desk", "messages": [{"role": "user", "content": QUESTION}]},
        )
        minted = await client.post("/api/v1/keys", json={"name": "free", "scopes": ["chat"]})
    assert sent.status_code == 200, sent.text
    figure = f"{apple_2021_return_pct():.2f}%"
    assert figure in sent.json()["replies"][-1]["content"]
    assert completion.status_code == 200, completion.text
    assert figure in completion.json()["choices"][0]["message"]["content"]
    assert minted.status_code == 403  # chat scope alone cannot mint keys either way


async def test_a_bound_key_manages_its_own_assistant_only(app) -> None:  # type: ignore[no-untyped-def]
    manager = key_for(app.state.store, "alice")
    async with client_of(app, manager) as client:
        desk = (await client.post("/api/v1/assistants", json={"name": "Desk"})).json()["id"]
        made = await client.post(
            "/api/v1/keys",
            json={"name": "desk admin", "scopes": ["chat", "manage"], "assistant_id": desk},
        )
    bound = made.json()["key"]
    async with client_of(app, bound) as client:
        created = await client.post("/api/v1/assistants", json={"name": "Another"})
        unbound = await client.post("/api/v1/keys", json={"name": "free", "scopes": ["chat"]})
        same = await client.post(
            "/api/v1/keys", json={"name": "desk 2", "scopes": ["chat"], "assistant_id": desk}
        )
        patched = await client.patch(f"/api/v1/assistants/{desk}", json={"prompt": "Be brief."})
    assert created.status_code == 403 and "bound to the assistant" in created.text
    assert unbound.status_code == 403 and "bound to that assistant" in unbound.text
    assert same.status_code == 201 and same.json()["info"]["assistant_id"] == desk
    assert patched.status_code == 200 and patched.json()["prompt"] == "Be brief."


async def test_routes_naming_no_assistant_refuse_a_bound_key(app) -> None:  # type: ignore[no-untyped-def]
    """`/api/v1/ask` and `/v1/query` answer as no assistant: a bound key gets 403 pointing to
    its assistant's own routes, while an unbound key of the same user is answered."""
    desk, _other, _chat, bound = await _two_assistants_and_a_bound_key(app)
    free = key_for(app.state.store, "alice", "chat")
    ask = {"question": QUESTION, "today": TODAY}
    query = {"messages": [{"role": "human", "content": QUESTION}]}
    async with client_of(app, bound) as client:
        refused = [
            await client.post("/api/v1/ask", json=ask),
            await client.post("/v1/query", json=query),
        ]
        own = await client.post(f"/assistants/{desk}/v1/query", json=query)
    async with client_of(app, free) as client:
        answered = await client.post("/api/v1/ask", json=ask)
    for response in refused:
        assert response.status_code == 403, response.text
        body = response.json()
        assert body["code"] == "bound_key"
        assert f"/assistants/{desk}/v1/query" in body["message"]
    assert own.status_code == 200, own.text
    assert answered.status_code == 200
    assert f"{apple_2021_return_pct():.2f}%" in answered.json()["summary"]
