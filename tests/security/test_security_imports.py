"""Data imports on a server several users share: one user's import never breaks the catalog for
the others, never writes into the bundled data or another user's import, and is read by its own
user only; a compressed import cannot inflate without limit. Each test runs on its own copy of
the seeded warehouse. Expected figures come from skfolio's shipped prices (pandas)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.platform_app import (
    QUESTION,
    TODAY,
    apple_2021_return_pct,
    client_of,
    key_for,
    platform_settings,
)
from support.serve_process import replica_dir

from datapilot.server.app import create_app
from datapilot.settings import Settings, get_settings
from datapilot.store import open_store


@dataclass
class Platform:
    settings: Settings
    clients: dict[str, httpx.AsyncClient]  # alice, bob (chat and manage), bob_chat (chat only)


@pytest.fixture
async def platform(data: object, tmp_path: Path) -> AsyncIterator[Platform]:
    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    store_url = f"sqlite:///{tmp_path / 'store.db'}"
    settings = platform_settings(store_url).model_copy(update={"data_dir": folder})
    store = open_store(settings)
    keys = {
        "alice": key_for(store, "alice"),
        "bob": key_for(store, "bob"),
        "bob_chat": key_for(store, "bob", "chat"),
    }
    app = create_app(settings, warm_up=False)
    clients: dict[str, httpx.AsyncClient] = {}
    for name, key in keys.items():
        clients[name] = await client_of(app, key).__aenter__()
    try:
        yield Platform(settings, clients)
    finally:
        for client in clients.values():
            await client.aclose()


def _csv(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _upload(entity_id: str, display_name: str | None = None, **more: Any) -> dict[str, Any]:
    body = {
        "name": f"{entity_id.lower()}.csv",
        "content_base64": _csv("Date,Close\n2022-01-03,100\n2022-01-04,101\n2022-01-05,102\n"),
        "kind": "prices",
        "entity_id": entity_id,
    }
    if display_name is not None:
        body["display_name"] = display_name
    return body | more


async def _apple_answer(client: httpx.AsyncClient) -> dict[str, Any]:
    reply = await client.post("/api/v1/ask", json={"question": QUESTION, "today": TODAY})
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


# ---- F1: an import never breaks the catalog ----------------------------------------------------


@pytest.mark.asyncio
async def test_an_import_named_like_a_catalog_entity_is_refused_with_409(
    platform: Platform,
) -> None:
    bob, alice = platform.clients["bob"], platform.clients["alice"]
    for name, owner in (("Apple", "AAPL"), ("Microsoft", "MSFT")):
        reply = await bob.post("/api/v1/data/imports", json=_upload("MYFUND", name))
        assert reply.status_code == 409, reply.text
        body = reply.json()
        assert body["code"] == "name_taken"
        assert name in body["message"] and owner in body["message"], body
    # Two of one's own imports may not share a name either.
    first = await bob.post("/api/v1/data/imports", json=_upload("FUNDONE", "My Fund"))
    assert first.status_code == 201, first.text
    second = await bob.post("/api/v1/data/imports", json=_upload("FUNDTWO", "My Fund"))
    assert second.status_code == 409 and "FUNDONE" in second.json()["message"], second.text

    health = await alice.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok", health.text
    answer = await _apple_answer(alice)
    assert answer["status"] == "ok", answer
    assert f"{apple_2021_return_pct():.2f}%" in answer["summary"]


@pytest.mark.asyncio
async def test_a_clashing_entity_already_stored_is_skipped_and_seed_force_removes_it(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row an earlier version let in (display name "Apple" on another id) no longer breaks
    the catalog; `datapilot data seed --force` drops it."""
    import pandas as pd
    from typer.testing import CliRunner

    from datapilot.cli import app as cli
    from datapilot.data import open_data
    from datapilot.data.entity import Entity

    access = open_data(platform.settings)
    frame = pd.DataFrame({"id": ["MYFUND"], "date": [pd.Timestamp("2022-01-03")], "close": [5.0]})
    access.warehouse.write_prices(frame, "import:f.csv", priority=100)
    access.warehouse.write_entities([Entity(id="MYFUND", kind="etf", name="Apple")])
    access.forget_catalog()

    alice = platform.clients["alice"]
    health = await alice.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok", health.text
    answer = await _apple_answer(alice)
    assert answer["status"] == "ok", answer
    assert f"{apple_2021_return_pct():.2f}%" in answer["summary"]

    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(platform.settings.data_dir))
    get_settings.cache_clear()
    try:
        done = CliRunner().invoke(cli, ["data", "seed", "--force"])
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    assert "MYFUND" in done.output and "Apple" in done.output
    names = {e.id: e.name for e in open_data(platform.settings).warehouse.entity_metadata()}
    assert names.get("MYFUND") != "Apple"
