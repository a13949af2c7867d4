"""API keys at the server's door: every route without a key, with a bad, a revoked or a
scope-lacking key once a key exists; public routes stay open; loopback only without keys."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from typer.testing import CliRunner

from datapilot.server.app import create_app
from datapilot.settings import Settings, get_settings
from datapilot.store import Keys, Store, open_store

# The published plugin's manifest and specs are public too (its /run and /mcp are not).
PUBLIC = {
    "/health",
    "/agents.json",
    "/copilots.json",
    "/.well-known/ai-plugin.json",
    "/.well-known/mcp.json",
    "/openapi.yaml",
    "/openapi.json",
    "/legal",
    # The whole API's document and its page: the page's Authorize button takes a key for calls.
    "/api/openapi.json",
    "/docs",
}
QUESTION = {"question": "Apple's close in 2021", "today": "2022-12-28"}


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    # The bundled data of the test data dir; a store of the test's own, no lookup cache.
    return Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.sqlite3'}"),
    )


@pytest.fixture()
def app(settings: Settings, data) -> FastAPI:
    return create_app(settings, warm_up=False)


@pytest.fixture()
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)  # a loopback client
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def new_key(store: Store, scopes: str) -> str:
    with store.session() as session:
        return Keys(session).create(f"key {scopes}", scopes).key.get_secret_value()


def guarded_routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every documented route (plugins' included) but the public ones, and the docs."""
    routes = [
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        # Each assistant's agent descriptor is public like `/agents.json` (same last segment).
        # Guests of public assistants come with a guest id instead (tests in test_platform_guests).
        if path not in PUBLIC
        and not path.endswith("/agents.json")
        and not path.startswith("/api/v1/guest/")
        for method in operations
    ]
    return routes


async def test_without_keys_loopback_clients_need_none(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/ask", json=QUESTION)
    assert response.status_code == 200 and response.json()["status"] == "ok"


async def test_without_keys_other_machines_are_refused(app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as remote:
        refused = await remote.post("/api/v1/ask", json=QUESTION)
        health = await remote.get("/health")
    assert refused.status_code == 403
    assert refused.json()["code"] == "loopback_only"
    assert "datapilot keys create" in refused.json()["message"]
    assert health.status_code == 200


def refusal(response: httpx.Response) -> dict[str, Any]:
    """The door's refusal: `{message, code}`, inside `error` on the OpenAI-compatible face."""
    body: dict[str, Any] = response.json()
    return body.get("error", body)


async def test_once_a_key_exists_every_route_needs_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    store: Store = app.state.store
    chat = new_key(store, "chat")
    manage_only = new_key(store, "manage")
    # The platform's routes that change things need `manage` besides `chat`: a key with both
    # shows that a valid key passes the door everywhere (the scopes have tests of their own).
    both = new_key(store, "chat,manage")
    revoked = new_key(store, "chat,admin")
    with store.session() as session:
        Keys(session).revoke(revoked[:11])
    routes = guarded_routes(app)
    assert ("POST", "/api/v1/ask") in routes and ("POST", "/v1/query") in routes
    for method, path in routes:
        missing = await client.request(method, path)
        assert missing.status_code == 401, (method, path)
        problem = refusal(missing)
        assert problem["code"] == "missing_key" and "Bearer" in problem["message"]
        for bad in (chat[:-2] + "xx", revoked, "dp_short", "Basic abc"):
            answer = await client.request(method, path, headers={"Authorization": f"Bearer {bad}"})
            assert answer.status_code == 401, (method, path, bad)
            assert refusal(answer)["code"] == "invalid_key"
        passed = await client.request(method, path, headers={"X-API-Key": both})
        assert passed.status_code not in (401, 403), (method, path)
    for path in ("/api/v1/ask", "/v1/query", "/v1/feedback"):
        lacking = await client.post(path, headers={"Authorization": f"Bearer {manage_only}"})
        assert lacking.status_code == 403, path
        assert lacking.json()["code"] == "missing_scope" and "'chat'" in lacking.json()["message"]


async def test_public_routes_and_static_files_stay_open(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    new_key(app.state.store, "chat")
    for path in (*sorted(PUBLIC), "/assets/logo.png"):
        assert (await client.get(path)).status_code == 200, path


async def test_a_valid_key_gets_the_answer_and_is_marked_used(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    key = new_key(app.state.store, "chat")
    response = await client.post(
        "/api/v1/ask", json=QUESTION, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200
    answer = response.json()
    assert answer["status"] == "ok" and [e["id"] for e in answer["intent"]["entities"]] == ["AAPL"]
    with app.state.store.session() as session:
        (listed,) = Keys(session).list()
    assert listed.last_used_at is not None


async def test_revoking_takes_effect_after_the_cache_time(tmp_path: Path, data) -> None:
    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=3600,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'cached.sqlite3'}"),
    )
    store = open_store(settings)
    key = new_key(store, "chat")
    new_key(store, "admin")  # keys stay required after the first is revoked
    app = create_app(settings, warm_up=False)
    headers = {"Authorization": f"Bearer {key}"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/api/v1/features", headers=headers)).status_code == 200
        with store.session() as session:
            Keys(session).revoke(key[:11])
        # Within the cache time the answer stands (a dictionary lookup, no query) ...
        assert (await client.get("/api/v1/features", headers=headers)).status_code == 200
        app.state.key_gate.forget()  # ... and once it is over, the revocation counts.
        assert (await client.get("/api/v1/features", headers=headers)).status_code == 401


def test_serve_refuses_an_open_address_without_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.cli import app

    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite3'}")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "1"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "without API keys" in result.output and "datapilot keys create" in result.output
