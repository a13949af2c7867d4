"""The cross-tenant matrix, generated from the app's route table: every route with an object id
in its path, called by another user with the first user's ids, answers 403/404 and shows none of
it; a key bound to an assistant reaches that assistant's routes only (403 `bound_key` on every
other one); a revoked key gets 401 everywhere. A route missing from `ROUTES` fails the test, so
a new route is classified before it ships."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.server.auth import BOUND_KEY_ROUTES, bound_key_reaches
from datapilot.store import Keys
from datapilot.store.accounts import key_prefix

MARK = "zq-private-7781"  # in every object of the first user: it must never reach another
TOOL_DOCUMENT = {
    "openapi": "3.0.0",
    "info": {"title": "Vault", "version": "1", "description": f"{MARK} tools"},
    "servers": [{"url": "https://vault.example.com"}],
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
# Every operation of the API: who may call it ("public": no key needed; "guest": a guest id of
# a public assistant's chat; "key": an API key) and, for a key route with ids, the body sent when
# another user tries it.
ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/health"): "public",
    ("GET", "/agents.json"): "public",
    ("GET", "/copilots.json"): "public",
    ("GET", "/.well-known/ai-plugin.json"): "public",
    ("GET", "/.well-known/mcp.json"): "public",
    ("GET", "/openapi.json"): "public",
    ("GET", "/openapi.yaml"): "public",
    ("GET", "/legal"): "public",
    ("GET", "/assistants/{assistant_id}/agents.json"): "public",
    ("POST", "/api/v1/guest/assistants/{assistant_id}/chats"): "guest",
    ("GET", "/api/v1/guest/chats"): "guest",
    ("GET", "/api/v1/guest/chats/{chat_id}/messages"): "guest",
    ("POST", "/api/v1/guest/chats/{chat_id}/messages"): "guest",
    ("POST", "/api/v1/guest/chats/{chat_id}/files"): "guest",
    ("GET", "/api/v1/guest/files/{file_id}"): "guest",
}
KEY_ROUTES = """
POST /v1/query
POST /v1/feedback
POST /api/v1/ask
GET /api/v1/tools
GET /api/v1/assistants
POST /api/v1/assistants
GET /api/v1/assistants/{ref}
PATCH /api/v1/assistants/{ref}
DELETE /api/v1/assistants/{ref}
GET /api/v1/chats
POST /api/v1/chats
GET /api/v1/chats/{chat_id}
PATCH /api/v1/chats/{chat_id}
DELETE /api/v1/chats/{chat_id}
GET /api/v1/chats/{chat_id}/messages
POST /api/v1/chats/{chat_id}/messages
POST /api/v1/chats/{chat_id}/files
GET /api/v1/chats/{chat_id}/messages/{message_id}/context
GET /api/v1/files/{file_id}
GET /api/v1/scene-prompts
POST /api/v1/scene-prompts
DELETE /api/v1/scene-prompts/{prompt_id}
GET /api/v1/usage
GET /api/v1/keys
POST /api/v1/keys
DELETE /api/v1/keys/{key_id}
GET /api/v1/tools/sources
POST /api/v1/tools/sources
GET /api/v1/tools/sources/{ref}
DELETE /api/v1/tools/sources/{ref}
POST /api/v1/tools/{name}/call
POST /api/v1/tools/{name}/trust
GET /api/v1/memories
DELETE /api/v1/memories
GET /api/v1/memories/events
DELETE /api/v1/memories/{memory_id}
GET /api/v1/libraries
POST /api/v1/libraries
GET /api/v1/libraries/{ref}
DELETE /api/v1/libraries/{ref}
GET /api/v1/libraries/{ref}/documents
POST /api/v1/libraries/{ref}/documents
DELETE /api/v1/libraries/{ref}/documents/{document_id}
POST /api/v1/libraries/{ref}/search
GET /api/v1/libraries/{ref}/jobs/{job_id}
GET /v1/models
GET /v1/models/{model}
POST /v1/chat/completions
POST /v1/embeddings
POST /assistants/{assistant_id}/v1/query
POST /api/v1/interpreter
POST /run
POST /run/search_entities
POST /run/get_prices
POST /run/get_series
POST /run/call_interface
GET /api/v1/features
POST /api/v1/follow-ups
POST /api/v1/data/imports
GET /api/v1/watches
POST /api/v1/watches
POST /api/v1/watches/backtest
GET /api/v1/watches/{watch_id}
PATCH /api/v1/watches/{watch_id}
DELETE /api/v1/watches/{watch_id}
GET /api/v1/watches/{watch_id}/events
GET /api/v1/watches/inbox
POST /api/v1/watches/inbox/read
"""
ROUTES |= {tuple(line.split()): "key" for line in KEY_ROUTES.strip().splitlines()}  # type: ignore[misc]
FILE = {"name": "note.txt", "content_base64": base64.b64encode(MARK.encode()).decode()}
BODIES: dict[tuple[str, str], Any] = {
    ("PATCH", "/api/v1/assistants/{ref}"): {"prompt": "hijacked"},
    ("PATCH", "/api/v1/chats/{chat_id}"): {"name": "hijacked"},
    ("POST", "/api/v1/chats/{chat_id}/messages"): {"content": "hi", "stream": False},
    ("POST", "/api/v1/chats/{chat_id}/files"): FILE,
    ("POST", "/api/v1/tools/{name}/call"): {"arguments": {}},
    ("POST", "/api/v1/tools/{name}/trust"): {"trusted": True},
    ("POST", "/api/v1/libraries/{ref}/documents"): FILE,
    ("POST", "/api/v1/libraries/{ref}/search"): {"query": "private"},
    ("PATCH", "/api/v1/watches/{watch_id}"): {"status": "paused"},
    ("POST", "/assistants/{assistant_id}/v1/query"): {
        "messages": [{"role": "human", "content": "hi"}]
    },
}


def operations(app: FastAPI) -> set[tuple[str, str]]:
    paths = app.openapi()["paths"]
    return {(method.upper(), path) for path, ops in paths.items() for method in ops}


@pytest.fixture(scope="module")
def app(postgres_or_sqlite_url: str, data) -> FastAPI:  # type: ignore[no-untyped-def]
    return app_for(platform_settings(postgres_or_sqlite_url))


@pytest.fixture(scope="module")
def postgres_or_sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Its own SQLite store: the matrix is about routes, the store tests run on both."""
    return f"sqlite:///{tmp_path_factory.mktemp('routes') / 'store.db'}"


def test_every_route_is_classified(app: FastAPI) -> None:
    served = operations(app)
    missing = sorted(served - set(ROUTES))
    assert not missing, f"classify these routes in ROUTES (and check their tenancy): {missing}"
    gone = sorted(set(ROUTES) - served)
    assert not gone, f"ROUTES names routes the app no longer serves: {gone}"


async def first_users_objects(app: FastAPI, key: str) -> dict[str, str]:
    """One of everything, owned by the first user, marked with MARK."""
    async with client_of(app, key) as client:

        async def made(method: str, path: str, body: Any, status: int = 201) -> Any:
            response = await client.request(method, path, json=body)
            assert response.status_code in (status, 200), (path, response.text)
            return response.json()

        assistant = await made("POST", "/api/v1/assistants", {"name": f"A{MARK}"})
        chat = await made("POST", "/api/v1/chats", {"assistant_id": assistant["id"]})
        await made(
            "POST",
            f"/api/v1/chats/{chat['id']}/messages",
            {"content": f"remember that {MARK} is my code", "stream": False},
            200,
        )
        messages = (await client.get(f"/api/v1/chats/{chat['id']}/messages")).json()
        file = await made("POST", f"/api/v1/chats/{chat['id']}/files", FILE)
        scene = await made("POST", "/api/v1/scene-prompts", {"label": "x", "prompt": MARK})
        library = await made("POST", "/api/v1/libraries", {"name": f"L{MARK}"})
        document = await made("POST", f"/api/v1/libraries/{library['id']}/documents", FILE)
        source = await made(
            "POST", "/api/v1/tools/sources", {"document": json.dumps(TOOL_DOCUMENT)}
        )
        watch = await made(
            "POST",
            "/api/v1/watches",
            {"text": "tell me when Apple closes below 150", "channels": {"email": f"{MARK}@x.io"}},
        )
        memories = (await client.get("/api/v1/memories")).json()
        keys = (await client.get("/api/v1/keys")).json()
    assert memories, "the first user's memory was not made"
    return {
        "assistant_id": assistant["id"],
        "chat_id": chat["id"],
        "message_id": str(messages[-1]["id"]),
        "file_id": file["file"]["id"],
        "prompt_id": scene["id"],
        "library": library["id"],
        "document_id": document["id"],
        "job_id": "x1",  # any job id: the library is not the caller's, so nothing is looked up
        "source": source["id"],
        "name": source["tools"][0]["name"],
        "memory_id": memories[0]["id"],
        "key_id": keys[0]["id"],
        "watch_id": watch["id"],
    }


def fill(path: str, ids: dict[str, str]) -> str:
    ref = ids["assistant_id"]
    if path.startswith("/api/v1/libraries"):
        ref = ids["library"]
    elif path.startswith("/api/v1/tools/sources"):
        ref = ids["source"]
    return path.format(**{**ids, "ref": ref, "model": ids["assistant_id"]})


async def test_another_users_ids_reach_nothing(app: FastAPI) -> None:
    store = app.state.store
    first, second = key_for(store, "first"), key_for(store, "second")
    ids = await first_users_objects(app, first)
    tried = 0
    async with client_of(app, second) as other:
        for (method, template), who in sorted(ROUTES.items()):
            if who != "key" or "{" not in template:
                continue
            body = BODIES.get((method, template))
            response = await other.request(method, fill(template, ids), json=body)
            tried += 1
            assert response.status_code in (403, 404), (method, template, response.text)
            assert MARK not in response.text, (method, template, response.text)
        for path in ("/api/v1/assistants", "/api/v1/chats", "/api/v1/scene-prompts",
                     "/api/v1/libraries", "/api/v1/tools/sources", "/api/v1/memories",
                     "/api/v1/memories/events", "/api/v1/tools", "/v1/models", "/api/v1/keys",
                     "/api/v1/usage", "/api/v1/watches"):  # fmt: skip
            listed = await other.get(path)
            assert listed.status_code == 200 and MARK not in listed.text, (path, listed.text)
            ids_seen = [v for v in ids.values() if len(v) >= 16 and v in listed.text]
            assert not ids_seen, (path, ids_seen)
    assert tried >= 20


async def test_a_bound_key_reaches_its_assistants_routes_only(app: FastAPI) -> None:
    store = app.state.store
    owner = key_for(store, "binder")
    async with client_of(app, owner) as client:
        desk = (await client.post("/api/v1/assistants", json={"name": "Desk"})).json()["id"]
        made = await client.post(
            "/api/v1/keys",
            json={"name": "bot", "scopes": ["chat", "manage"], "assistant_id": desk},
        )
    assert made.status_code == 201, made.text
    bound = made.json()["key"]
    ids = {name: "x1" for name in ("chat_id", "message_id", "file_id", "prompt_id", "key_id")}
    ids |= {"memory_id": "x1", "document_id": "x1", "name": "x1", "assistant_id": desk}
    ids |= {"library": "x1", "source": "x1", "job_id": "x1", "watch_id": "x1"}
    refused = []
    own_delete = ("DELETE", "/api/v1/assistants/{ref}")  # deletes its assistant: tried last
    routes = [op for op, who in sorted(ROUTES.items()) if who == "key" and op != own_delete]
    async with client_of(app, bound) as client:
        for method, template in routes:
            response = await client.request(
                method, fill(template, ids), json=BODIES.get((method, template), {})
            )
            if bound_key_reaches(template, method):
                assert "bound_key" not in response.text, (method, template, response.text)
                continue
            refused.append(template)
            assert response.status_code == 403, (method, template, response.text)
            body = response.json()
            code = body.get("code", body.get("error", {}).get("code"))  # OpenAI's shape on /v1
            assert code == "bound_key", (method, template, response.text)
        # Its own chat stays its assistant's: it cannot be detached from it.
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        detached = await client.patch(f"/api/v1/chats/{chat}", json={"assistant_id": None})
        assert detached.status_code == 403 and "bound" in detached.text, detached.text
        mcp = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert mcp.status_code == 403 and mcp.json()["code"] == "bound_key", mcp.text
        # Its assistant deleted, the key is revoked, never unbound: a key confined to one
        # assistant must not become a key for everything.
        assert (await client.delete(f"/api/v1/assistants/{desk}")).status_code == 204
        after = await client.get("/api/v1/memories")
        assert after.status_code == 401 and after.json()["code"] == "invalid_key", after.text
    # The interpreter, memories, libraries, tool sources and /run are among the refused.
    for template in ("/api/v1/interpreter", "/api/v1/memories", "/api/v1/libraries",
                     "/api/v1/tools/sources", "/api/v1/tools/{name}/call", "/run"):  # fmt: skip
        assert template in refused
    assert set(BOUND_KEY_ROUTES) <= {template for _, template in ROUTES} | {"/v1/models/{model}"}


async def test_a_revoked_key_opens_nothing(app: FastAPI) -> None:
    store = app.state.store
    key = key_for(store, "leaver")
    # Another user's key stays active: with no active key at all the server answers loopback
    # clients without one (by design), whatever this test ran after.
    key_for(store, "stayer")
    with store.session(write=True) as session:
        Keys(session).revoke(key_prefix(key) or "")
    app.state.key_gate.forget()
    async with client_of(app, key) as client:
        for (method, template), who in sorted(ROUTES.items()):
            if who != "key":
                continue
            path = template.replace("{", "").replace("}", "")
            response = await client.request(method, path, json={})
            assert response.status_code == 401, (method, template, response.text)
            body = response.json()
            # The OpenAI-compatible face answers in OpenAI's shape, every other route flat.
            assert body.get("code", body.get("error", {}).get("code")) == "invalid_key"
