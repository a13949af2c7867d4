"""Data imports on a server several users share: one user's import never breaks the catalog for
the others, never writes into the bundled data or another user's import, and is read by its own
user only; a compressed import cannot inflate without limit. Each test runs on its own copy of
the seeded warehouse. Expected figures come from skfolio's shipped prices (pandas)."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from support.live_server import LOOPBACK
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

pytestmark = LOOPBACK  # MCP and the replicas are served on loopback


@dataclass
class Platform:
    settings: Settings
    app: Any
    keys: dict[str, str]
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
        yield Platform(settings, app, keys, clients)
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


# ---- F2: an import is its user's, and the bundled data is read-only to the API ------------------

FUND_QUESTION = "How did Alice Private Fund do in 2022?"


def _rows(reply: httpx.Response) -> list[list[Any]]:
    assert reply.status_code == 200, reply.text
    rows: list[list[Any]] = reply.json()["table"]["rows"]
    return rows


async def _prices(client: httpx.AsyncClient, entity_id: str, year: int) -> httpx.Response:
    window = {"start": f"{year}-01-01", "end": f"{year}-12-31"}
    return await client.post("/run/get_prices", json={"ids": [entity_id], **window})


async def _asked(client: httpx.AsyncClient, question: str) -> dict[str, Any]:
    reply = await client.post("/api/v1/ask", json={"question": question, "today": TODAY})
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


async def _chat_answer(client: httpx.AsyncClient, question: str) -> str:
    chat = (await client.post("/api/v1/chats", json={})).json()["id"]
    body = {"content": question, "today": TODAY, "stream": False}
    reply = await client.post(f"/api/v1/chats/{chat}/messages", json=body)
    assert reply.status_code == 200, reply.text
    return str(reply.json())


async def _workspace(client: httpx.AsyncClient, question: str) -> str:
    from support.openbb import human, query, text_of

    return text_of(await query(client, human(question, today=TODAY)))


async def _mcp(app: Any, key: str, question: str) -> str:
    """`ask` over MCP (Streamable HTTP on a loopback server) with `key`."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from support.live_server import live_server
    from support.mcp_ask import ask

    with live_server(app) as url:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            httpx.AsyncClient(timeout=120, headers=headers) as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
        ):
            return str(await ask(client, question))


async def _completion(client: httpx.AsyncClient, question: str) -> str:
    body = {"model": "datapilot", "messages": [{"role": "user", "content": question}]}
    reply = await client.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    return str(reply.json()["choices"][0]["message"]["content"])


@pytest.mark.asyncio
async def test_an_import_is_read_by_its_user_on_every_face_and_by_no_one_else(
    platform: Platform,
) -> None:
    alice, bob_chat = platform.clients["alice"], platform.clients["bob_chat"]
    imported = await alice.post(
        "/api/v1/data/imports", json=_upload("ALICEFUND", "Alice Private Fund")
    )
    assert imported.status_code == 201, imported.text
    closes = [row[-1] for row in _rows(await _prices(alice, "ALICEFUND", 2022))]
    assert closes == [100.0, 101.0, 102.0]
    answer = await _asked(alice, FUND_QUESTION)
    assert answer["status"] == "ok" and "2.00%" in answer["summary"], answer
    assert "2.00%" in await _chat_answer(alice, FUND_QUESTION)
    assert "2.00%" in await _completion(alice, FUND_QUESTION)
    assert "2.00%" in await _workspace(alice, FUND_QUESTION)
    assert "2.00%" in await _mcp(platform.app, platform.keys["alice"], FUND_QUESTION)

    # Bob, even with a chat-only key, sees none of it: by id, by name, on any face.
    theirs = await _prices(bob_chat, "ALICEFUND", 2022)
    assert "101" not in theirs.text, theirs.text
    answer = await _asked(bob_chat, FUND_QUESTION)
    assert answer["status"] != "ok" and "2.00%" not in str(answer), answer
    by_id = await _asked(bob_chat, "How did ALICEFUND do in 2022?")
    assert by_id["status"] != "ok" and "2.00%" not in str(by_id), by_id
    assert "2.00%" not in await _chat_answer(bob_chat, FUND_QUESTION)
    assert "2.00%" not in await _completion(bob_chat, FUND_QUESTION)
    assert "2.00%" not in await _workspace(bob_chat, FUND_QUESTION)
    assert "2.00%" not in await _mcp(platform.app, platform.keys["bob_chat"], FUND_QUESTION)
    found = await bob_chat.post("/run/search_entities", json={"query": "Alice Private Fund"})
    assert "ALICEFUND" not in found.text, found.text


@pytest.mark.asyncio
async def test_the_api_cannot_write_into_bundled_data_or_another_users_import(
    platform: Platform,
) -> None:
    alice, bob = platform.clients["alice"], platform.clients["bob"]
    imported = await alice.post(
        "/api/v1/data/imports", json=_upload("ALICEFUND", "Alice Private Fund")
    )
    assert imported.status_code == 201, imported.text
    apple_2021 = _rows(await _prices(alice, "AAPL", 2021))
    # Bob names Alice's source, then the bundled one: each lands in his own data, if anywhere.
    one_row = _csv("Date,Close\n2022-01-03,1\n")
    over = _upload("ALICEFUND", content_base64=one_row, source=imported.json()["source"])
    await bob.post("/api/v1/data/imports", json=over)
    bundled = _upload(
        "AAPL",
        content_base64=_csv("Date,Close\n2021-01-04,1.0\n2021-12-31,999.0\n"),
        source="skfolio",
    )
    await bob.post("/api/v1/data/imports", json=bundled)

    closes = [row[-1] for row in _rows(await _prices(alice, "ALICEFUND", 2022))]
    assert [c for c in closes if c is not None] == [100.0, 101.0, 102.0]
    assert _rows(await _prices(alice, "AAPL", 2021)) == apple_2021
    answer = await _apple_answer(alice)
    assert answer["status"] == "ok" and f"{apple_2021_return_pct():.2f}%" in answer["summary"]

    # Tables: Bob's table of the same name is his; Alice's stays hers.
    def table(rows: str) -> dict[str, Any]:
        body = {"name": "sales.csv", "content_base64": _csv(rows), "kind": "table"}
        return body | {"display_name": "regional_sales"}

    made = await alice.post("/api/v1/data/imports", json=table("region,sales\nNorth,1.5\n"))
    assert made.status_code == 201, made.text
    await bob.post("/api/v1/data/imports", json=table("region,sales\nSouth,9\nEast,8\n"))
    from datapilot.data import open_data
    from datapilot.data.tables import read_table

    owner = _user_id(platform, "alice")
    view = open_data(platform.settings).for_owner(owner).warehouse
    assert read_table(view, "regional_sales")["region"].tolist() == ["North"]


def _user_id(platform: Platform, name: str) -> str:
    from datapilot.store import Users

    with open_store(platform.settings).session() as session:
        user = Users(session).by_name(name)
        assert user is not None
        return str(user.id)


@pytest.mark.asyncio
async def test_a_terminal_import_is_everyones_and_a_keyless_servers_user_reads_its_own(
    data: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.data import open_data
    from datapilot.data.imports import import_path

    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}").model_copy(
        update={"data_dir": folder}
    )
    csv = tmp_path / "fund.csv"
    csv.write_text("Date,Close\n2022-01-03,100\n2022-06-30,110\n", encoding="utf-8")
    options = {"entity_id": "OPSFUND", "name": "Operations Fund"}
    import_path(open_data(settings), csv, "prices", options)  # as `datapilot data import` does
    app = create_app(settings, warm_up=False)
    async with client_of(app) as local:  # no keys: the local user
        imported = await local.post("/api/v1/data/imports", json=_upload("LOCALFUND", "Local Fund"))
        assert imported.status_code == 201, imported.text
        mine = await _asked(local, "How did Local Fund do in 2022?")
        assert mine["status"] == "ok" and "2.00%" in mine["summary"], mine
    # The terminal of that server is the same local user.
    from typer.testing import CliRunner

    from datapilot.cli import app as cli

    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(folder))
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    get_settings.cache_clear()
    try:
        command = ["ask", "How did Local Fund do in 2022?", "--today", TODAY, "--json"]
        asked = await asyncio.to_thread(CliRunner().invoke, cli, command)  # it runs its own loop
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert asked.exit_code == 0 and "2.00%" in asked.output, asked.output
    bob = key_for(open_store(settings), "bob", "chat")
    async with client_of(app, bob) as client:
        everyones = await _asked(client, "How did Operations Fund do in 2022?")
        assert everyones["status"] == "ok" and "10.00%" in everyones["summary"], everyones
        theirs = await _asked(client, "How did Local Fund do in 2022?")
        assert theirs["status"] != "ok" and "2.00%" not in str(theirs), theirs


# ---- F10: a compressed import inflates only so far ---------------------------------------------


def _gzip_bomb(inflated_mb: int) -> bytes:
    """A .csv.gz of valid-looking rows that inflates to `inflated_mb` MB (built in 1 MB steps,
    so the test itself never holds the inflated file)."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
    line = b"2022-01-03,5\n"
    step = line * (1024 * 1024 // len(line))
    parts = [packer.compress(b"Date,Close\n")]
    parts += [packer.compress(step) for _ in range(inflated_mb)]
    return b"".join([*parts, packer.flush()])


@pytest.mark.asyncio
async def test_a_gzip_bomb_is_refused_with_413_within_seconds(data: object, tmp_path: Path) -> None:
    import time

    import psutil

    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}").model_copy(
        update={"data_dir": folder, "max_body_mb": 2.0}
    )
    bomb = _gzip_bomb(48)
    assert len(bomb) < 200_000  # well within the body limit on the wire
    upload = {
        "name": "bomb.csv.gz",
        "content_base64": base64.b64encode(bomb).decode(),
        "kind": "prices",
        "entity_id": "BOMB",
    }
    app = create_app(settings, warm_up=False)
    process = psutil.Process()
    async with client_of(app) as client:
        before, started = process.memory_info().rss, time.perf_counter()
        reply = await client.post("/api/v1/data/imports", json=upload)
        seconds, grown = time.perf_counter() - started, process.memory_info().rss - before
    assert reply.status_code == 413, reply.text
    body = reply.json()
    assert body["code"] == "too_large" and body["setting"] == "max_body_mb", body
    assert "2 MB" in body["message"] and "bomb.csv.gz" in body["message"], body
    assert seconds < 10, seconds
    assert grown < 100 * 1024 * 1024, grown  # the file was never inflated whole
    # Within the limit, a compressed file imports as before.
    small = _csv("Date,Close\n2022-01-03,100\n2022-01-04,101\n")
    import gzip

    packed = base64.b64encode(gzip.compress(base64.b64decode(small))).decode()
    async with client_of(app) as client:
        fine = await client.post("/api/v1/data/imports", json=upload | {"content_base64": packed})
    assert fine.status_code == 201 and fine.json()["rows"] == 2, fine.text


def test_a_parquet_file_that_inflates_past_the_limit_is_refused(tmp_path: Path) -> None:
    import pandas as pd

    from datapilot.data.importer import ImportTooLarge, check_inflated_size

    path = tmp_path / "many.parquet"
    rows = 3_000_000  # one repeated row: a few KB on disk, tens of MB once read
    frame = pd.DataFrame({"date": ["2022-01-03"] * rows, "close": [5.0] * rows})
    frame.to_parquet(path)
    assert path.stat().st_size < 200_000
    with pytest.raises(ImportTooLarge, match=r"many\.parquet inflates to more than 2 MB"):
        check_inflated_size(path, 2 * 1024 * 1024, "2 MB")
    check_inflated_size(path, 100 * 1024 * 1024, "100 MB")  # within a limit it passes


# ---- on PostgreSQL replicas --------------------------------------------------------------------


@pytest.fixture(scope="module")
def replicas(
    postgres_server: str, data: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[httpx.Client], dict[str, str], str]]:
    """Two `datapilot serve` replicas on one PostgreSQL (clients), keys of alice and bob, and
    the store's URL."""
    import psycopg
    from support.serve_process import ServeProcess

    name = f"imports_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.replace("/postgres?", f"/{name}?")
    store = open_store(Settings(database_url=SecretStr(url)))
    keys = {"alice": key_for(store, "alice"), "bob_chat": key_for(store, "bob", "chat")}
    store.engine.dispose()
    folder = tmp_path_factory.mktemp("import-replicas")
    env = {"DATAPILOT_DATABASE_URL": url, "DATAPILOT_TODAY": TODAY}
    with ExitStack() as stack:
        servers = [
            ServeProcess(replica_dir(folder / n, Settings().warehouse_path), env) for n in "ab"
        ]
        for server in servers:
            stack.callback(server.stop)
            server.launch()
        for server in servers:
            server.wait_ready()
        clients = [
            stack.enter_context(httpx.Client(base_url=server.url, timeout=120))
            for server in servers
        ]
        yield clients, keys, url
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _ask_on(client: httpx.Client, key: str, question: str) -> dict[str, Any]:
    reply = client.post(
        "/api/v1/ask",
        json={"question": question, "today": TODAY},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


@pytest.mark.postgres
@pytest.mark.slow
def test_replicas_share_an_import_with_its_user_only_and_skip_a_clashing_one(replicas) -> None:  # type: ignore[no-untyped-def]
    from datapilot.store.shared_data import StoreDataLog

    (a, b), keys, url = replicas
    alice, bob = ({"Authorization": f"Bearer {keys[n]}"} for n in ("alice", "bob_chat"))
    upload = _upload("ALICEFUND", "Alice Private Fund")
    imported = a.post("/api/v1/data/imports", json=upload, headers=alice)
    assert imported.status_code == 201, imported.text
    mine = _ask_on(b, keys["alice"], FUND_QUESTION)
    assert mine["status"] == "ok" and "2.00%" in mine["summary"], mine
    theirs = _ask_on(b, keys["bob_chat"], FUND_QUESTION)
    assert theirs["status"] != "ok" and "2.00%" not in str(theirs), theirs
    window = {"ids": ["ALICEFUND"], "start": "2022-01-01", "end": "2022-12-31"}
    rows = b.post("/run/get_prices", json=window, headers=bob)
    assert "101" not in rows.text, rows.text

    # An entry an older version recorded: a fund named "Microsoft". Replayed, it is refused.
    store = open_store(Settings(database_url=SecretStr(url)))
    csv = b"Date,Close\n2022-01-03,5\n"
    options = {"kind": "prices", "entity_id": "MYFUND", "name": "Microsoft"}
    StoreDataLog(store).record("import", "f.csv", options, csv)
    store.engine.dispose()
    for client in (a, b):
        answer = _ask_on(client, keys["bob_chat"], "How much did Microsoft return in 2021?")
        assert answer["status"] == "ok", answer
        health = client.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "ok", health.text
