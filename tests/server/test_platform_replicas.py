"""Two real `datapilot serve` processes on one PostgreSQL, each with its own warehouse file and
no sticky routing: they share state only through the store (and Redis for the rate limits when
`DATAPILOT_REDIS_URL` is set). A chat started on one continues on the other, a key revoked on
one is refused by both within `DATAPILOT_AUTH_CACHE_S`, and a guest's rate limit holds across
both. (Counters in Redis, `DATAPILOT_REDIS_URL`, are shared the same way: two limiters on one
real redis-server in `test_platform_rates.py`, without paying for two more server starts.)"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from support.llm import LOOPBACK
from support.platform_app import QUESTION, TODAY, apple_2021_return_pct
from support.serve_process import ServeProcess, replica_dir

from datapilot.settings import Settings
from datapilot.store import Keys, Users, open_store

pytestmark = [*LOOPBACK, pytest.mark.postgres, pytest.mark.slow]  # two real server processes
AUTH_CACHE_S = 1.0
PER_MINUTE = 3


@pytest.fixture(scope="module")
def replicas(
    postgres_server: str, data: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, httpx.Client, str]]:
    """Replicas A and B (clients on their URLs) and a key with chat and manage scopes."""
    import psycopg

    name = f"replicas_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.replace("/postgres?", f"/{name}?")
    store = open_store(Settings(database_url=SecretStr(url)))
    with store.session() as session:
        Users(session).create("ops")
        key = Keys(session).create("ops", "chat,manage", user="ops").key.get_secret_value()
    seeded = Settings().warehouse_path  # the session's seeded warehouse, copied per replica
    folder = tmp_path_factory.mktemp("replicas")
    with ExitStack() as stack:
        env = {
            "DATAPILOT_DATABASE_URL": url,
            "DATAPILOT_AUTH_CACHE_S": str(AUTH_CACHE_S),
            "DATAPILOT_GUEST_MESSAGES_PER_MINUTE": str(PER_MINUTE),
            "DATAPILOT_WATCH_SYNC_S": "0.5",  # each scheduler reads new watches soon
        }
        servers = [ServeProcess(replica_dir(folder / n, seeded), env) for n in ("a", "b")]
        for server in servers:
            stack.callback(server.stop)
            server.launch()  # both start at once, as replicas behind a balancer do
        for server in servers:
            server.wait_ready()
        clients = [
            stack.enter_context(httpx.Client(base_url=server.url, timeout=120))
            for server in servers
        ]
        yield clients[0], clients[1], key
    store.engine.dispose()
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_chat_started_on_one_replica_continues_on_the_other(replicas) -> None:  # type: ignore[no-untyped-def]
    a, b, key = replicas
    headers = _auth(key)
    assistant = a.post("/api/v1/assistants", json={"name": "Desk"}, headers=headers).json()
    chat = a.post("/api/v1/chats", json={"assistant_id": assistant["id"]}, headers=headers).json()
    first = a.post(
        f"/api/v1/chats/{chat['id']}/messages",
        json={"content": QUESTION, "today": TODAY, "stream": False},
        headers=headers,
    )
    assert first.status_code == 200, first.text
    seen_on_b = b.get(f"/api/v1/chats/{chat['id']}/messages", headers=headers).json()
    assert [m["content"] for m in seen_on_b] == [
        m["content"] for m in [first.json()["message"], *first.json()["replies"]]
    ]
    follow_up = b.post(
        f"/api/v1/chats/{chat['id']}/messages",
        json={"content": "And Microsoft's in 2021?", "today": TODAY, "stream": False},
        headers=headers,
    )
    assert follow_up.status_code == 200, follow_up.text
    everything = a.get(f"/api/v1/chats/{chat['id']}/messages", headers=headers).json()
    assert [m["role"] for m in everything] == ["human", "assistant", "human", "assistant"]
    assert f"{apple_2021_return_pct():.2f}%" in everything[1]["content"]
    assert "Microsoft" in everything[3]["content"]


def test_a_key_revoked_on_one_replica_is_refused_by_both(replicas) -> None:  # type: ignore[no-untyped-def]
    a, b, key = replicas
    made = a.post("/api/v1/keys", json={"name": "temp", "scopes": ["chat"]}, headers=_auth(key))
    assert made.status_code == 201, made.text
    temp = made.json()["key"]
    assert [c.get("/api/v1/chats", headers=_auth(temp)).status_code for c in (a, b)] == [200, 200]
    revoked = a.delete(f"/api/v1/keys/{made.json()['info']['id']}", headers=_auth(key))
    assert revoked.status_code == 200, revoked.text
    revoked_at = time.monotonic()
    # Each replica trusts a cached lookup for at most DATAPILOT_AUTH_CACHE_S.
    time.sleep(AUTH_CACHE_S + 0.2)
    statuses = [c.get("/api/v1/chats", headers=_auth(temp)).status_code for c in (b, a)]
    assert statuses == [401, 401], f"{time.monotonic() - revoked_at:.1f} s after revocation"
    assert b.get("/api/v1/chats", headers=_auth(key)).status_code == 200  # others still work


def test_a_guest_rate_limit_holds_across_replicas(replicas) -> None:  # type: ignore[no-untyped-def]
    a, b, key = replicas
    public = a.post(
        "/api/v1/assistants", json={"name": "Open", "public": True}, headers=_auth(key)
    ).json()
    opened = b.post(f"/api/v1/guest/assistants/{public['id']}/chats", json={})
    assert opened.status_code == 201, opened.text
    guest = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
    path = f"/api/v1/guest/chats/{opened.json()['id']}/messages"
    body = {"content": "a note", "role": "human_later", "stream": False}
    # Alternating replicas, as a balancer without sticky routing would send them.
    statuses = [c.post(path, json=body, headers=guest).status_code for c in (a, b, a, b, a)]
    assert statuses == [200] * PER_MINUTE + [429] * (5 - PER_MINUTE)
    refused = a.post(path, json=body, headers=guest)
    assert f"at most {PER_MINUTE} messages a minute" in refused.text
    # Another guest (no cookie of the first) has a limit of its own.
    a.cookies.clear()
    other = a.post(f"/api/v1/guest/assistants/{public['id']}/chats", json={})
    other_path = f"/api/v1/guest/chats/{other.json()['id']}/messages"
    other_guest = {"X-Guest-Id": other.headers["X-Guest-Id"]}
    assert b.post(other_path, json=body, headers=other_guest).status_code == 200


def test_each_replica_reads_its_own_warehouse(replicas) -> None:  # type: ignore[no-untyped-def]
    a, b, _key = replicas
    for client in (a, b):
        health = client.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
    assert Path(Settings().warehouse_path).exists()


def test_an_import_through_one_replica_is_answered_by_the_other(replicas) -> None:  # type: ignore[no-untyped-def]
    """Each replica keeps its own warehouse file; what a user adds goes through the shared
    store, so replica B answers from a file imported through replica A."""
    import base64

    from skfolio.datasets import load_sp500_dataset

    a, b, key = replicas
    prices = load_sp500_dataset()["JNJ"].loc["2020":"2021"]
    csv = prices.rename("close").rename_axis("date").to_frame().to_csv()
    upload = {
        "name": "shared-fund.csv",
        "content_base64": base64.b64encode(csv.encode()).decode(),
        "kind": "prices",
        "entity_id": "SHAREDFUND",
        "display_name": "Shared Fund",
        "entity_kind": "etf",
        "units": "USD",
    }
    body = {"question": "How did SHAREDFUND do in 2021?", "today": TODAY}
    before = b.post("/api/v1/ask", json=body, headers=_auth(key)).json()
    assert before["status"] != "ok", before  # B has just looked: the import must still reach it
    imported = a.post("/api/v1/data/imports", json=upload, headers=_auth(key))
    assert imported.status_code == 201, imported.text
    expected = (prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100
    answered = b.post("/api/v1/ask", json=body, headers=_auth(key))
    assert answered.status_code == 200, answered.text
    answer = answered.json()
    assert answer["status"] == "ok", answer
    assert f"{expected:.2f}%" in answer["summary"]
    # The bundled data stays per replica: B's own file, now holding the import too.
    counts = [client.get("/health").json()["data"]["entities"] for client in (a, b)]
    assert counts[0] == counts[1]


def test_a_file_stored_through_one_replica_is_read_through_the_other(replicas) -> None:  # type: ignore[no-untyped-def]
    """Files live in each replica's data dir; on PostgreSQL their bytes are in the store too, so
    a file attached through A is served by B (no shared volume needed)."""
    import base64

    a, b, key = replicas
    headers = _auth(key)
    chat = a.post("/api/v1/chats", json={}, headers=headers).json()
    data = b"quarterly notes: margin 41.2%\n"
    body = {"name": "notes.txt", "content_base64": base64.b64encode(data).decode()}
    stored = a.post(f"/api/v1/chats/{chat['id']}/files", json=body, headers=headers)
    assert stored.status_code == 201, stored.text
    file_id = stored.json()["file"]["id"]
    served = b.get(f"/api/v1/files/{file_id}", headers=headers)
    assert served.status_code == 200, served.text
    assert served.content == data


def test_an_upload_job_started_on_one_replica_is_followed_on_the_other(replicas) -> None:  # type: ignore[no-untyped-def]
    """A long PDF answered with a job by A: polls reaching B (no sticky routing) follow the
    same job until the document is in the library."""
    import base64

    from support.pdf_maker import make_pdf

    a, b, key = replicas
    headers = _auth(key)
    # Each page its own words: a line that only changes its numbers is a running header.
    desks = ["alder", "birch", "cedar", "elm", "fir", "hazel", "larch", "maple", "oak", "pine"]
    desks += ["rowan", "spruce", "yew"]
    pages = [[f"The {d} desk closed trades.", f"The {d} desk hedged."] for d in desks * 2]
    body = {"name": "desks.pdf", "content_base64": base64.b64encode(make_pdf(pages)).decode()}
    a.post("/api/v1/libraries", json={"name": "desks"}, headers=headers)
    accepted = a.post("/api/v1/libraries/desks/documents", json=body, headers=headers)
    assert accepted.status_code == 202, accepted.text
    location = accepted.headers["location"]
    states = []
    for _ in range(600):
        polled = b.get(location, headers=headers)
        assert polled.status_code == 200, polled.text
        job = polled.json()
        states.append(job["state"])
        if job["state"] in ("done", "failed"):
            break
        time.sleep(0.05)
    assert job["state"] == "done" and job["error"] is None, job
    assert job["pages"] == job["pages_done"] == len(pages)
    documents = b.get("/api/v1/libraries/desks/documents", headers=headers).json()
    assert [d["id"] for d in documents] == [job["document"]["id"]]


def test_a_watch_runs_each_due_time_once_across_replicas(replicas) -> None:  # type: ignore[no-untyped-def]
    """Both servers schedule the same report every second; each due time is claimed in the
    store by one of them, so it runs (and is delivered) exactly once."""
    a, b, key = replicas
    headers = _auth(key)
    text = "every second, Apple's closing price in 2019"
    made = a.post("/api/v1/watches", json={"text": text}, headers=headers)
    assert made.status_code == 201, made.text
    watch = made.json()["id"]
    deadline = time.monotonic() + 60
    events: list[dict] = []  # type: ignore[type-arg]
    while time.monotonic() < deadline and len(events) < 5:
        time.sleep(1)
        events = b.get(f"/api/v1/watches/{watch}/events", headers=headers).json()
    paused = b.patch(f"/api/v1/watches/{watch}", json={"status": "paused"}, headers=headers)
    assert paused.status_code == 200, paused.text
    time.sleep(1.5)  # a run claimed before the pause lands
    events = a.get(f"/api/v1/watches/{watch}/events", headers=headers).json()
    due = [event["due_at"] for event in events]
    assert len(due) >= 5, events
    assert len(set(due)) == len(due), sorted(due)  # no due time ran twice
    assert {event["status"] for event in events} == {"ok"}, events
