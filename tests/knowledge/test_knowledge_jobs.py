"""A PDF of more than 20 pages uploaded over HTTP is answered at once with 202 and a job, which
its owner follows (pages read, chunks, state) until the document is in the library; another user
never sees the job; a refused one fails naming the limit and leaves nothing. Jobs are in the
store: a restarted server still answers them, and one whose server stopped reads as failed."""

from __future__ import annotations

import asyncio
import base64
import threading
from typing import Any

import pytest
from sqlalchemy import select
from support.pdf_maker import make_pdf
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.knowledge import Libraries
from datapilot.knowledge.jobs import KEEP, UploadJobs
from datapilot.knowledge.library import LibraryNotFound
from datapilot.store import Users, open_store
from datapilot.store.models import LibraryJob

TOWNS = (  # noqa: SIM905 (one line of names reads better than 25 strings)
    "Aberdeen Bristol Cardiff Derby Exeter Falkirk Glasgow Hull Ipswich Jarrow Kendal Leeds "
    "Margate Norwich Oxford Perth Quarry Reading Salford Truro Uxbridge Ventnor Wigan York Zennor"
).split()
# Each page its own sentence: a line repeated on every page would be a running header.
PAGES = [[f"The {town} branch opened {3 * n} new accounts."] for n, town in enumerate(TOWNS, 1)]


@pytest.fixture(scope="module")
def long_pdf() -> bytes:
    return make_pdf(PAGES)


def upload(name: str, data: bytes) -> dict[str, str]:
    return {"name": name, "content_base64": base64.b64encode(data).decode()}


async def _finished(client: Any, location: str) -> dict[str, Any]:
    for _ in range(600):
        job = (await client.get(location)).json()
        if job["state"] in ("done", "failed"):
            return dict(job)
        await asyncio.sleep(0.05)
    raise AssertionError(f"the job never finished: {job}")


async def test_a_long_pdf_is_read_as_a_job_its_owner_follows(
    store_url: str, tmp_path, long_pdf: bytes
) -> None:  # type: ignore[no-untyped-def]
    app = app_for(platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "d"}))
    alice, bob = key_for(app.state.store, "alice"), key_for(app.state.store, "bob")
    async with client_of(app, alice) as client:
        library = (await client.post("/api/v1/libraries", json={"name": "branches"})).json()
        accepted = await client.post(
            "/api/v1/libraries/branches/documents", json=upload("review.pdf", long_pdf)
        )
        assert accepted.status_code == 202, accepted.text
        job = accepted.json()["job"]
        assert job["pages"] == len(PAGES) and job["state"] in ("reading", "writing", "done")
        location = accepted.headers["location"]
        assert location == f"/api/v1/libraries/{library['id']}/jobs/{job['id']}"
        done = await _finished(client, location)
        documents = (await client.get("/api/v1/libraries/branches/documents")).json()
        found = await client.post(
            "/api/v1/libraries/branches/search", json={"query": "Zennor branch accounts"}
        )
    assert done["state"] == "done" and done["error"] is None, done
    assert done["pages_done"] == len(PAGES)
    assert [d["name"] for d in documents] == ["review.pdf"]
    assert done["document"]["id"] == documents[0]["id"]
    assert done["chunks"] == documents[0]["chunks"] == len(PAGES)
    assert found.json()["passages"][0]["citation"]["page"] == 25
    async with client_of(app, bob) as other:
        seen = await other.get(location)
        bobs = (await other.post("/api/v1/libraries", json={"name": "branches"})).json()
        through_own = await other.get(f"/api/v1/libraries/{bobs['id']}/jobs/{job['id']}")
    assert seen.status_code == 404 and through_own.status_code == 404
    assert "review.pdf" not in seen.text + through_own.text


async def test_a_refused_job_fails_naming_the_limit_and_keeps_nothing(
    store_url: str, tmp_path, long_pdf: bytes
) -> None:  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(
        update={"data_dir": tmp_path / "d", "kb_max_chunks": 10}
    )
    app = app_for(settings)
    alice = key_for(app.state.store, "alice")
    async with client_of(app, alice) as client:
        await client.post("/api/v1/libraries", json={"name": "branches"})
        accepted = await client.post(
            "/api/v1/libraries/branches/documents", json=upload("review.pdf", long_pdf)
        )
        assert accepted.status_code == 202, accepted.text
        done = await _finished(client, accepted.headers["location"])
        documents = (await client.get("/api/v1/libraries/branches/documents")).json()
    assert done["state"] == "failed" and done["setting"] == "kb_max_chunks"
    assert "DATAPILOT_KB_MAX_CHUNKS" in done["error"] and documents == []


async def test_a_short_pdf_is_still_added_in_the_request(store_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = app_for(platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "d"}))
    alice = key_for(app.state.store, "alice")
    async with client_of(app, alice) as client:
        await client.post("/api/v1/libraries", json={"name": "branches"})
        added = await client.post(
            "/api/v1/libraries/branches/documents", json=upload("short.pdf", make_pdf(PAGES[:20]))
        )
    assert added.status_code == 201 and added.json()["pages"] == 20, added.text


async def test_a_job_is_still_followed_after_a_restart_by_its_owner_only(
    store_url: str, tmp_path, long_pdf: bytes
) -> None:  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "d"})
    before = app_for(settings)
    alice, bob = key_for(before.state.store, "alice"), key_for(before.state.store, "bob")
    async with client_of(before, alice) as client:
        await client.post("/api/v1/libraries", json={"name": "branches"})
        accepted = await client.post(
            "/api/v1/libraries/branches/documents", json=upload("review.pdf", long_pdf)
        )
        location, job_id = accepted.headers["location"], accepted.json()["job"]["id"]
        await _finished(client, location)
    after = app_for(settings)  # the server restarted on the same store
    async with client_of(after, alice) as client:
        job = await client.get(location)
        documents = (await client.get("/api/v1/libraries/branches/documents")).json()
    async with client_of(after, bob) as other:
        seen = await other.get(location)
        bobs = (await other.post("/api/v1/libraries", json={"name": "branches"})).json()
        through_own = await other.get(f"/api/v1/libraries/{bobs['id']}/jobs/{job_id}")
    assert job.status_code == 200, job.text
    assert job.json()["state"] == "done" and job.json()["pages_done"] == len(PAGES)
    assert job.json()["document"]["id"] == documents[0]["id"]
    assert seen.status_code == 404 and through_own.status_code == 404
    assert "review.pdf" not in seen.text + through_own.text
    assert "no upload job" in through_own.json()["detail"]


async def test_a_job_whose_server_stopped_is_reported_failed(
    store_url: str, tmp_path, long_pdf: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    # Long enough that a loaded machine (two test workers on two cores) never misses it.
    stall_s = 2.5
    settings = platform_settings(store_url).model_copy(
        update={"data_dir": tmp_path / "d", "kb_job_stall_s": stall_s}
    )
    released = threading.Event()

    def slow_read(*args: object, **kwargs: object) -> None:
        released.wait(30)  # a read still going when its server stops
        raise RuntimeError("the read was stopped with its server")

    monkeypatch.setattr("datapilot.knowledge.library.read_upload", slow_read)
    stopping = app_for(settings)
    alice = key_for(stopping.state.store, "alice")
    restarted = app_for(settings)
    try:
        async with client_of(stopping, alice) as client:
            await client.post("/api/v1/libraries", json={"name": "branches"})
            accepted = await client.post(
                "/api/v1/libraries/branches/documents", json=upload("review.pdf", long_pdf)
            )
        location = accepted.headers["location"]
        async with client_of(restarted, alice) as client:
            await asyncio.sleep(1.5 * stall_s)  # a slow read that still runs is not given up
            alive = (await client.get(location)).json()
            assert alive.get("state") == "reading", alive
            # The first server dies: its job's tasks stop, nothing more is written.
            for task in list(stopping.state.upload_tasks):
                task.cancel()
            for _ in range(100):
                job = (await client.get(location)).json()
                if job["state"] != "reading":
                    break
                await asyncio.sleep(0.1)
            documents = (await client.get("/api/v1/libraries/branches/documents")).json()
    finally:
        released.set()
        tasks = getattr(stopping.state, "upload_tasks", set())
        await asyncio.gather(*tasks, return_exceptions=True)
    assert job["state"] == "failed", job
    assert "stopped before the document was read" in job["error"]
    assert "upload it again" in job["error"] and documents == []


def test_each_user_keeps_only_the_newest_jobs(store_url: str) -> None:
    """Jobs are pruned as new ones start: the table does not grow without bound."""
    settings = platform_settings(store_url)
    store = open_store(settings)
    key_for(store, "alice"), key_for(store, "bob")
    with store.session(write=True) as session:
        alice, bob = Users(session).by_name("alice").id, Users(session).by_name("bob").id
        library = Libraries(session, alice, settings).create("branches").id
        bobs = Libraries(session, bob, settings).create("branches").id
        bobs_job = UploadJobs(session, bob, settings).start(bobs, "old.pdf", 30)
    started = []
    for n in range(KEEP + 5):
        with store.session(write=True) as session:
            started.append(UploadJobs(session, alice, settings).start(library, f"{n}.pdf", 30))
    with store.session() as session:
        kept = session.scalars(select(LibraryJob.id).where(LibraryJob.owner_id == alice)).all()
        bob_kept = UploadJobs(session, bob, settings).get(bobs, bobs_job.id)
        with pytest.raises(LibraryNotFound, match="no upload job"):
            UploadJobs(session, alice, settings).get(library, started[0].id)
    assert sorted(kept) == sorted(job.id for job in started[-KEEP:])
    assert bob_kept.name == "old.pdf"  # another user's jobs are not counted with these
