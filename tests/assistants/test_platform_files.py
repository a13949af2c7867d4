"""Files attached to chats: stored by content hash, reachable by their uploader only, and an
image reaches the model as an image part of the next human message."""

from __future__ import annotations

import base64
import hashlib
import io

import pytest
from PIL import Image
from support.llm import LOOPBACK
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.model_client.scripted import Reply, ScriptedEndpoint

pytestmark = LOOPBACK  # the scripted model listens on loopback


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(store_url))


def upload(name: str, data: bytes) -> dict[str, str]:
    return {"name": name, "content_base64": base64.b64encode(data).decode()}


async def test_a_file_is_stored_by_hash_and_shown_as_a_file_message(app) -> None:  # type: ignore[no-untyped-def]
    image = png_bytes()
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        first = await client.post(f"/api/v1/chats/{chat}/files", json=upload("red.png", image))
        again = await client.post(f"/api/v1/chats/{chat}/files", json=upload("copy.png", image))
        messages = (await client.get(f"/api/v1/chats/{chat}/messages")).json()
        fetched = await client.get(f"/api/v1/files/{first.json()['file']['id']}")
        broken = await client.post(
            f"/api/v1/chats/{chat}/files", json={"name": "x.png", "content_base64": "%%%"}
        )
    assert first.status_code == 201, first.text
    stored = first.json()["file"]
    assert stored["sha256"] == hashlib.sha256(image).hexdigest()
    assert stored["mime"] == "image/png" and stored["size"] == len(image)
    assert [(m["role"], m["content"]) for m in messages] == [
        ("file", "red.png"),
        ("file", "copy.png"),
    ]
    assert messages[0]["file_id"] == stored["id"]
    assert fetched.content == image and fetched.headers["content-type"] == "image/png"
    # The same bytes are kept once on disk.
    root = app.state.settings.data_dir / "files"
    assert [p.name for p in root.rglob(stored["sha256"])] == [stored["sha256"]]
    assert again.json()["file"]["sha256"] == stored["sha256"]
    assert broken.status_code == 400 and "base64" in broken.text


async def test_another_tenant_can_neither_read_nor_attach(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    async with client_of(app, key_for(store, "alice")) as alice:
        chat = (await alice.post("/api/v1/chats", json={})).json()["id"]
        made = await alice.post(f"/api/v1/chats/{chat}/files", json=upload("secret.csv", b"a,b"))
    file_id = made.json()["file"]["id"]
    async with client_of(app, key_for(store, "bob")) as bob:
        read = await bob.get(f"/api/v1/files/{file_id}")
        attached = await bob.post(f"/api/v1/chats/{chat}/files", json=upload("x.txt", b"x"))
        own_chat = (await bob.post("/api/v1/chats", json={})).json()["id"]
        listed = await bob.get(f"/api/v1/chats/{own_chat}/messages")
    assert read.status_code == 404 and "a,b" not in read.text
    assert attached.status_code == 404
    assert listed.json() == []
    async with client_of(app, key_for(store, "alice")) as alice:
        messages = (await alice.get(f"/api/v1/chats/{chat}/messages")).json()
    assert [m["content"] for m in messages] == ["secret.csv"]  # bob's upload never landed


async def test_too_large_a_file_is_refused_before_it_is_read(store_url: str, data) -> None:  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(update={"max_body_mb": 0.01})
    app = app_for(settings)
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        refused = await client.post(
            f"/api/v1/chats/{chat}/files", json=upload("big.bin", b"0" * 20_000)
        )
    assert refused.status_code == 413 and "DATAPILOT_MAX_BODY_MB" in refused.text


async def test_an_image_reaches_the_model_with_the_next_human_text(store_url: str, data) -> None:  # type: ignore[no-untyped-def]
    image = png_bytes()
    with ScriptedEndpoint([Reply(content="A small red square.")]) as endpoint:
        app = app_for(platform_settings(store_url, endpoint))
        async with client_of(app) as client:
            assistant = (await client.post("/api/v1/assistants", json={"name": "Eye"})).json()
            chat = (
                await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})
            ).json()["id"]
            await client.post(f"/api/v1/chats/{chat}/files", json=upload("red.png", image))
            sent = await client.post(
                f"/api/v1/chats/{chat}/messages",
                json={"content": "What is in this picture?", "stream": False},
            )
    assert sent.status_code == 200, sent.text
    assert sent.json()["replies"][-1]["content"] == "A small red square."
    (human,) = [m for m in endpoint.requests[0].messages if m["role"] == "user"]
    parts = human["content"]
    assert any("What is in this picture?" in p.get("text", "") for p in parts)
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert urls == [f"data:image/png;base64,{base64.b64encode(image).decode()}"]
