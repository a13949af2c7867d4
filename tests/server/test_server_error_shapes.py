"""One error shape for the native API: whatever refuses a request under `/api/v1` — the door
(401, 403), a route (400, 404), validation (422) or a server it calls (502) — the body carries
`message` (for people) and `code` (for machines), and `detail` for FastAPI-style clients."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.platform_app import client_of, platform_settings

from datapilot.server.app import create_app
from datapilot.store import Keys, open_store

# A tool whose server is loopback port 9, where nothing listens: calling it fails upstream (502).
SPEC = {
    "openapi": "3.0.0",
    "info": {"title": "Vault", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/items": {
            "get": {
                "operationId": "listItems",
                "summary": "List items",
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.mark.asyncio
@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
async def test_every_native_error_has_message_and_code(tmp_path: Path) -> None:
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}").model_copy(
        update={"offline": False, "outbound_allow": ["127.0.0.1:9"]}
    )
    with open_store(settings).session() as session:
        keys = Keys(session)
        manage = keys.create("admin", "chat,manage").key.get_secret_value()
        chat = keys.create("reader", "chat").key.get_secret_value()
    app = create_app(settings, warm_up=False)
    answers = {}
    async with client_of(app, manage) as client:
        added = await client.post("/api/v1/tools/sources", json={"document": json.dumps(SPEC)})
        assert added.status_code == 201, added.text
        answers[502] = await client.post("/api/v1/tools/Vault.listItems/call", json={})
        answers[404] = await client.get("/api/v1/chats/nope")
        answers[422] = await client.post("/api/v1/chats", json={"unknown": 1})
        answers[400] = await client.post(
            "/api/v1/data/imports",
            json={"name": "x.txt", "content_base64": "eA==", "kind": "prices"},
        )
    async with client_of(app, chat) as client:
        answers[403] = await client.post("/api/v1/keys", json={"name": "x", "scopes": "chat"})
        big = "x" * int(settings.max_body_mb * 1024 * 1024 + 10)
        answers[413] = await client.post("/api/v1/ask", content=big)
    async with client_of(app, "dp_unknown") as client:
        answers[401] = await client.get("/api/v1/chats")
    for status, reply in answers.items():
        assert reply.status_code == status, (status, reply.text)
        body = reply.json()
        assert isinstance(body["message"], str) and body["message"], (status, body)
        assert isinstance(body["code"], str) and body["code"], (status, body)
    assert answers[502].json()["detail"] == answers[502].json()["message"]
    assert answers[401].json()["code"] == "invalid_key"
    assert answers[422].json()["detail"][0]["field"] == "unknown"  # the problems stay listed
