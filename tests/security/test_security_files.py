"""Stored files are served so a browser never runs them: HTML, SVG, XML and scripts come back
as attachments, with `nosniff` and a sandboxing Content-Security-Policy; only plain images and
text are shown inline. Chart PNGs are `nosniff` too."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.server.chart_files import save_png

HTML = b"<html><body><script>alert(document.cookie)</script></body></html>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
CSP = "sandbox; default-src 'none'"


@pytest.fixture()
def app(tmp_path: Path) -> FastAPI:
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))


def upload(name: str, data: bytes, mime: str | None = None) -> dict[str, str]:
    body = {"name": name, "content_base64": base64.b64encode(data).decode()}
    return body | ({"mime": mime} if mime else {})


ACTIVE = [
    ("page.html", HTML, "text/html"),
    ("logo.svg", SVG, "image/svg+xml"),
    ("feed.xml", SVG, "application/xml"),
    ("app.js", b"alert(1)", "text/javascript"),
    ("disguised.png", HTML, "text/html"),  # a harmless name does not make it harmless
    ('报告 "q".html', HTML, None),  # the type from the name; a name needing encoding
]


async def test_uploaded_active_content_is_served_as_a_sandboxed_attachment(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        for name, data, mime in ACTIVE:
            stored = await client.post(f"/api/v1/chats/{chat}/files", json=upload(name, data, mime))
            assert stored.status_code == 201, stored.text
            fetched = await client.get(f"/api/v1/files/{stored.json()['file']['id']}")
            assert fetched.status_code == 200 and fetched.content == data
            disposition = fetched.headers["content-disposition"]
            assert disposition.startswith("attachment;"), (name, disposition)
            assert "filename*=UTF-8''" in disposition, disposition
            assert fetched.headers["x-content-type-options"] == "nosniff"
            assert fetched.headers["content-security-policy"] == CSP
            assert not fetched.headers["content-type"].startswith(("text/html", "image/svg"))
    quoted = "filename*=UTF-8''%E6%8A%A5%E5%91%8A%20%22q%22.html"
    assert quoted in disposition


async def test_plain_images_and_text_are_shown_inline_but_still_locked_down(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        for name, data, shown_as in [
            ("red.png", PNG, "image/png"),
            ("notes.txt", b"<b>plain</b>", "text/plain"),
        ]:
            stored = await client.post(f"/api/v1/chats/{chat}/files", json=upload(name, data))
            fetched = await client.get(f"/api/v1/files/{stored.json()['file']['id']}")
            assert fetched.content == data
            assert fetched.headers["content-type"].split(";")[0] == shown_as
            assert fetched.headers["content-disposition"].startswith("inline;")
            assert fetched.headers["x-content-type-options"] == "nosniff"
            assert fetched.headers["content-security-policy"] == CSP


async def test_a_guests_file_is_served_the_same_way(app: FastAPI) -> None:
    key = key_for(app.state.store, "alice")
    async with client_of(app, key) as owner:
        public = await owner.post("/api/v1/assistants", json={"name": "Open", "public": True})
    async with client_of(app) as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{public.json()['id']}/chats", json={})
        headers = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
        chat = opened.json()["id"]
        stored = await guest.post(
            f"/api/v1/guest/chats/{chat}/files",
            json=upload("logo.svg", SVG, "image/svg+xml"),
            headers=headers,
        )
        assert stored.status_code == 201, stored.text
        fetched = await guest.get(
            f"/api/v1/guest/files/{stored.json()['file']['id']}", headers=headers
        )
    assert fetched.content == SVG
    assert fetched.headers["content-disposition"].startswith("attachment;")
    assert fetched.headers["x-content-type-options"] == "nosniff"
    assert fetched.headers["content-security-policy"] == CSP


async def test_chart_pngs_are_nosniff(app: FastAPI) -> None:
    name = save_png(app.state.settings.data_dir, PNG)
    async with client_of(app) as client:
        fetched = await client.get(f"/charts/{name}.png")
    assert fetched.status_code == 200 and fetched.content == PNG
    assert fetched.headers["content-type"] == "image/png"
    assert fetched.headers["x-content-type-options"] == "nosniff"
