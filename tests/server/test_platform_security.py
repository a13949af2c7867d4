"""Tenants on the platform's routes: another tenant's rows are invisible on every route (404,
never its content), a chat-only key cannot change anything, a revoked key is refused."""

from __future__ import annotations

import pytest
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.store import Keys


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(store_url))


async def test_another_tenants_rows_are_invisible_on_every_route(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    alice, bob = key_for(store, "alice"), key_for(store, "bob")
    async with client_of(app, alice) as mine:
        assistant = (await mine.post("/api/v1/assistants", json={"name": "Private"})).json()
        chat = (await mine.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
        scene = (
            await mine.post("/api/v1/scene-prompts", json={"label": "x", "prompt": "secret"})
        ).json()
        keys = (await mine.get("/api/v1/keys")).json()
        await mine.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": "my secret note", "role": "human_later", "stream": False},
        )
    a, c = assistant["id"], chat["id"]
    attempts = [
        ("GET", f"/api/v1/assistants/{a}", None),
        ("GET", "/api/v1/assistants/Private", None),
        ("PATCH", f"/api/v1/assistants/{a}", {"prompt": "hijacked"}),
        ("DELETE", f"/api/v1/assistants/{a}", None),
        ("GET", f"/api/v1/chats/{c}", None),
        ("PATCH", f"/api/v1/chats/{c}", {"name": "hijacked"}),
        ("DELETE", f"/api/v1/chats/{c}", None),
        ("GET", f"/api/v1/chats/{c}/messages", None),
        ("POST", f"/api/v1/chats/{c}/messages", {"content": "hi", "stream": False}),
        ("POST", "/api/v1/chats", {"assistant_id": a}),
        ("DELETE", f"/api/v1/scene-prompts/{scene['id']}", None),
        ("DELETE", f"/api/v1/keys/{keys[0]['id']}", None),
        (
            "POST",
            "/v1/chat/completions",
            {"model": a, "messages": [{"role": "user", "content": "hi"}]},
        ),
    ]
    async with client_of(app, bob) as other:
        for method, path, body in attempts:
            response = await other.request(method, path, json=body)
            assert response.status_code == 404, (method, path, response.text)
            assert "secret" not in response.text and "Private" not in response.text.replace(
                "'Private'", ""
            )
        lists = [
            "/api/v1/assistants",
            "/api/v1/chats",
            "/api/v1/scene-prompts",
            "/v1/models",
        ]
        for path in lists:
            listed = await other.get(path)
            assert a not in listed.text and c not in listed.text and "secret" not in listed.text
        assert alice[:11] not in (await other.get("/api/v1/keys")).text
    async with client_of(app, alice) as mine:  # nothing changed
        assert (await mine.get(f"/api/v1/assistants/{a}")).json()["prompt"] == ""
        messages = (await mine.get(f"/api/v1/chats/{c}/messages")).json()
        assert [m["content"] for m in messages] == ["my secret note"]


async def test_a_chat_key_cannot_change_assistants_keys_or_scene_prompts(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    manager, chatter = key_for(store, "alice"), key_for(store, "alice", "chat")
    async with client_of(app, manager) as mine:
        assistant = (await mine.post("/api/v1/assistants", json={"name": "A"})).json()
    changes = [
        ("POST", "/api/v1/assistants", {"name": "B"}),
        ("PATCH", f"/api/v1/assistants/{assistant['id']}", {"prompt": "x"}),
        ("DELETE", f"/api/v1/assistants/{assistant['id']}", None),
        ("POST", "/api/v1/scene-prompts", {"label": "l", "prompt": "p"}),
        ("GET", "/api/v1/keys", None),
        ("POST", "/api/v1/keys", {"name": "more"}),
    ]
    async with client_of(app, chatter) as client:
        for method, path, body in changes:
            response = await client.request(method, path, json=body)
            assert response.status_code == 403, (method, path)
            assert response.json()["code"] == "missing_scope"
        assert (await client.get("/api/v1/assistants")).status_code == 200


async def test_keys_minted_through_the_api_never_exceed_their_maker(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    manager = key_for(store, "alice", "chat,manage")
    async with client_of(app, manager) as client:
        escalate = await client.post("/api/v1/keys", json={"name": "x", "scopes": ["admin"]})
        assert escalate.status_code == 403
        made = await client.post("/api/v1/keys", json={"name": "bot", "scopes": ["chat"]})
        assert made.status_code == 201
        new_key = made.json()["key"]
        revoked = await client.delete(f"/api/v1/keys/{made.json()['info']['id']}")
        assert revoked.json()["revoked_at"] is not None
    async with client_of(app, new_key) as client:
        refused = await client.get("/api/v1/assistants")
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_key"
    with store.session() as session:
        assert [k.name for k in Keys(session).list() if k.revoked_at] == ["bot"]
