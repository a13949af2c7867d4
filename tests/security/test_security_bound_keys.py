"""A key bound to an assistant reaches that assistant's own objects only: with `manage` it may
reword its assistant, but not point it at the owner's other libraries or tools, let its code
run unasked, or publish it to guests; and it reads only the files of its assistant's chats.
A file is readable while a chat holding it exists."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, platform_settings


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, data) -> FastAPI:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path_factory.mktemp('bound') / 'store.db'}"
    return app_for(platform_settings(url))


def file_body(text: str) -> dict[str, str]:
    return {"name": "note.txt", "content_base64": base64.b64encode(text.encode()).decode()}


async def owner_and_bound_key(app: FastAPI, user: str) -> tuple[str, str, dict[str, Any]]:
    """A user's key, a key bound (chat, manage) to their assistant Desk, and Desk."""
    owner = key_for(app.state.store, user)
    async with client_of(app, owner) as client:
        made = await client.post("/api/v1/assistants", json={"name": "Desk", "tools": []})
        desk = made.json()
        bound = await client.post(
            "/api/v1/keys",
            json={"name": "bot", "scopes": ["chat", "manage"], "assistant_id": desk["id"]},
        )
    assert bound.status_code == 201, bound.text
    return owner, bound.json()["key"], desk


async def test_a_bound_key_cannot_widen_its_assistant(app: FastAPI) -> None:
    owner, bound, desk = await owner_and_bound_key(app, "widen")
    async with client_of(app, owner) as client:
        library = (await client.post("/api/v1/libraries", json={"name": "private-lib"})).json()
        tools = [tool["name"] for tool in (await client.get("/api/v1/tools")).json()]
    assert "python" in tools
    other = next(name for name in tools if name != "python")
    widening: list[dict[str, Any]] = [
        {"library_id": library["id"]},
        {"library_id": "private-lib"},
        {"tools": [other]},
        {"tools": ["python"], "interpreter_auto_run": True},
        {"public": True},
        {"enable_memory_for_api": True},
        {"name": "Renamed", "public": True},  # refused whole: the name stays too
    ]
    async with client_of(app, bound) as client:
        for patch in widening:
            answer = await client.patch(f"/api/v1/assistants/{desk['id']}", json=patch)
            assert answer.status_code == 403, (patch, answer.text)
            body = answer.json()
            assert body["code"] == "forbidden" and "bound" in body["message"], body
            assert body["detail"] == body["message"]
        # Its own words it may change.
        reworded = await client.patch(
            f"/api/v1/assistants/{desk['id']}", json={"prompt": "Be brief.", "name": "Desk 2"}
        )
        assert reworded.status_code == 200, reworded.text
    async with client_of(app, owner) as client:
        seen = (await client.get(f"/api/v1/assistants/{desk['id']}")).json()
    assert seen["library_id"] is None and seen["tools"] == [] and seen["public"] is False
    assert seen["interpreter_auto_run"] is False and seen["enable_memory_for_api"] is False
    assert (seen["name"], seen["prompt"]) == ("Desk 2", "Be brief.")
    async with client_of(app) as guest:  # still private: guests do not find it
        opened = await guest.post(f"/api/v1/guest/assistants/{desk['id']}/chats", json={})
    assert opened.status_code == 404, opened.text


async def test_a_bound_key_may_narrow_its_assistant(app: FastAPI) -> None:
    owner, bound, desk = await owner_and_bound_key(app, "narrow")
    async with client_of(app, owner) as client:
        await client.post("/api/v1/libraries", json={"name": "shelf"})
        setup = {"tools": ["python"], "interpreter_auto_run": True, "public": True}
        setup |= {"library_id": "shelf", "disable_memory": True}
        made = await client.patch(f"/api/v1/assistants/{desk['id']}", json=setup)
        assert made.status_code == 200, made.text
    async with client_of(app, bound) as client:
        url = f"/api/v1/assistants/{desk['id']}"
        same = await client.patch(url, json={**setup, "library_id": made.json()["library_id"]})
        assert same.status_code == 200, same.text  # what it has already is no widening
        narrowed = await client.patch(
            url,
            json={"tools": [], "public": False, "library_id": None},
        )
        assert narrowed.status_code == 200, narrowed.text
        memory_on = await client.patch(url, json={"disable_memory": False})
        assert memory_on.status_code == 403, memory_on.text
    shown = narrowed.json()
    assert shown["tools"] == [] and shown["public"] is False and shown["library_id"] is None
    assert shown["interpreter_auto_run"] is False


async def test_a_bound_key_reads_only_its_assistants_files(app: FastAPI) -> None:
    owner, bound, _ = await owner_and_bound_key(app, "filer")
    async with client_of(app, owner) as client:
        other = (await client.post("/api/v1/assistants", json={"name": "Other"})).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": other["id"]})).json()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/files", json=file_body("OTHER ASSISTANT FILE SECRET")
        )
        others_file = sent.json()["file"]["id"]
        assert (await client.get(f"/api/v1/files/{others_file}")).status_code == 200
    async with client_of(app, bound) as client:
        refused = await client.get(f"/api/v1/files/{others_file}")
        assert refused.status_code == 404, refused.text
        assert "SECRET" not in refused.text and refused.json()["code"] == "not_found"
        own_chat = (await client.post("/api/v1/chats", json={})).json()
        own = await client.post(f"/api/v1/chats/{own_chat['id']}/files", json=file_body("mine"))
        read = await client.get(f"/api/v1/files/{own.json()['file']['id']}")
        assert read.status_code == 200 and read.text == "mine"


async def test_a_file_goes_with_its_chat(app: FastAPI) -> None:
    owner = key_for(app.state.store, "deleter")
    async with client_of(app, owner) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        sent = await client.post(f"/api/v1/chats/{chat['id']}/files", json=file_body("gone"))
        file_id = sent.json()["file"]["id"]
        assert (await client.get(f"/api/v1/files/{file_id}")).text == "gone"
        assert (await client.delete(f"/api/v1/chats/{chat['id']}")).status_code == 204
        after = await client.get(f"/api/v1/files/{file_id}")
    assert after.status_code == 404 and "gone" not in after.text, after.text
