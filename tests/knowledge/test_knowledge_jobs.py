"""A PDF of more than 20 pages uploaded over HTTP is answered at once with 202 and a job, which
its owner follows (pages read, chunks, state) until the document is in the library; another user
never sees the job; a refused one fails naming the limit and leaves nothing."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from support.pdf_maker import make_pdf
from support.platform_app import app_for, client_of, key_for, platform_settings

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
