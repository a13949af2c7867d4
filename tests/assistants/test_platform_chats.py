"""Assistants, chats and messages through the REST API, on SQLite and PostgreSQL, without a
model: the offline brain answers and says what a model would add."""

from __future__ import annotations

import pytest
from support.platform_app import (
    QUESTION,
    TODAY,
    app_for,
    apple_2021_return_pct,
    client_of,
    lmc_events,
    platform_settings,
)

from datapilot.assistants.notice import NO_MODEL_NOTE


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(store_url))


async def test_assistants_crud(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        created = await client.post(
            "/api/v1/assistants", json={"name": "Analyst", "prompt": "Be brief."}
        )
        assert created.status_code == 201, created.text
        assistant = created.json()
        assert assistant["id"] and assistant["prompt"] == "Be brief."
        assert assistant["tools"] == ["ask_data"]

        by_name = await client.get("/api/v1/assistants/Analyst")
        assert by_name.json()["id"] == assistant["id"]
        twice = await client.post("/api/v1/assistants", json={"name": "Analyst"})
        assert twice.status_code == 400 and "already" in twice.json()["detail"]
        unknown = await client.post(
            "/api/v1/assistants", json={"name": "Other", "tools": ["no_such_tool"]}
        )
        assert unknown.status_code == 400 and "no_such_tool" in unknown.json()["detail"]

        patched = await client.patch(
            f"/api/v1/assistants/{assistant['id']}",
            json={"prompt": "Be thorough.", "tools": ["ask_data", "get_prices"]},
        )
        assert patched.json()["prompt"] == "Be thorough."
        assert patched.json()["tools"] == ["ask_data", "get_prices"]
        listed = await client.get("/api/v1/assistants")
        assert [a["name"] for a in listed.json()] == ["Analyst"]

        assert (await client.delete(f"/api/v1/assistants/{assistant['id']}")).status_code == 204
        gone = await client.get(f"/api/v1/assistants/{assistant['id']}")
        assert gone.status_code == 404


async def test_tools_are_listed_and_recorded(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        tools = (await client.get("/api/v1/tools")).json()
    by_name = {tool["name"]: tool for tool in tools}
    assert by_name["ask_data"]["source"] == "workflow"
    assert by_name["get_prices"]["source"] == "interface"


async def test_a_chat_answers_offline_and_keeps_its_messages(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        assistant = (await client.post("/api/v1/assistants", json={"name": "Analyst"})).json()
        chat = (
            await client.post("/api/v1/chats", json={"name": "t", "assistant_id": assistant["id"]})
        ).json()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": QUESTION, "today": TODAY, "stream": False},
        )
        assert sent.status_code == 200, sent.text
        body = sent.json()
        reply = body["replies"][-1]
        assert reply["role"] == "assistant" and reply["assistant_id"] == assistant["id"]
        assert f"{apple_2021_return_pct():.2f}%" in reply["content"]
        # What a model would add is said beside the answer, never in its text.
        assert "No model" not in reply["content"]
        assert body["answer"]["notice"] == NO_MODEL_NOTE
        assert any(o["kind"] == "table" for o in body["answer"]["outputs"])

        history = (await client.get(f"/api/v1/chats/{chat['id']}/messages")).json()
        assert [m["role"] for m in history] == ["human", "assistant"]
        assert history[0]["id"] == body["message"]["id"]


async def test_a_streamed_reply_carries_lmc_chunks_and_message_ids(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        response = await client.post(
            f"/api/v1/chats/{chat['id']}/messages", json={"content": QUESTION, "today": TODAY}
        )
        chunks = lmc_events(response.text)
        history = (await client.get(f"/api/v1/chats/{chat['id']}/messages")).json()
    assert chunks[0]["format"] == "message" and chunks[0]["content"]["id"] == history[0]["id"]
    ids = next(c for c in chunks if c.get("format") == "messages")["content"]["ids"]
    assert ids == [history[1]["id"]]
    assert any(c["type"] == "table" for c in chunks)
    # The notice is a status chunk of its own, and no message chunk carries it.
    notices = [c["content"] for c in chunks if (c["role"], c.get("format")) == ("server", "notice")]
    assert notices == [NO_MODEL_NOTE]
    said = "".join(c.get("content") or "" for c in chunks if c["type"] == "message"
                   and isinstance(c.get("content"), str))  # fmt: skip
    assert "No model" not in said
    text = "".join(
        c.get("content") or ""
        for c in chunks
        if c["type"] == "message" and c["role"] == "assistant"
    )
    assert f"{apple_2021_return_pct():.2f}%" in text
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}


async def test_human_later_is_stored_without_a_reply(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        sent = await client.post(
            f"/api/v1/chats/{chat['id']}/messages",
            json={"content": "remember: I hold AAPL", "role": "human_later", "stream": False},
        )
        history = (await client.get(f"/api/v1/chats/{chat['id']}/messages")).json()
    assert sent.json()["replies"] == [] and sent.json()["answer"] is None
    assert [m["role"] for m in history] == ["human_later"]


async def test_chats_and_scene_prompts_crud(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={"name": "first"})).json()
        renamed = await client.patch(f"/api/v1/chats/{chat['id']}", json={"name": "second"})
        assert renamed.json()["name"] == "second"
        assert [c["name"] for c in (await client.get("/api/v1/chats")).json()] == ["second"]
        assert (await client.delete(f"/api/v1/chats/{chat['id']}")).status_code == 204
        assert (await client.get(f"/api/v1/chats/{chat['id']}")).status_code == 404

        scene = await client.post(
            "/api/v1/scene-prompts", json={"label": "Weekly", "prompt": "Summarise my week"}
        )
        assert scene.status_code == 201
        listed = (await client.get("/api/v1/scene-prompts")).json()
        assert [s["label"] for s in listed] == ["Weekly"]
        deleted = await client.delete(f"/api/v1/scene-prompts/{scene.json()['id']}")
        assert deleted.status_code == 204
        usage = (await client.get("/api/v1/usage")).json()
    assert usage["total"]["total_tokens"] == 0  # no model was called


async def test_concurrent_messages_never_fail_on_a_busy_store(app) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    async with client_of(app) as client:
        chats = [(await client.post("/api/v1/chats", json={})).json()["id"] for _ in range(4)]

        async def note(chat: str, number: int) -> int:
            url = f"/api/v1/chats/{chat}/messages"
            body = {"content": f"note {number}", "role": "human_later", "stream": False}
            return (await client.post(url, json=body)).status_code

        codes = await asyncio.gather(*(note(c, n) for n in range(10) for c in chats))
        counts = [len((await client.get(f"/api/v1/chats/{c}/messages")).json()) for c in chats]
    assert set(codes) == {200} and counts == [10, 10, 10, 10]


async def test_a_chat_names_its_assistant_by_name_or_id(app) -> None:  # type: ignore[no-untyped-def]
    """A name is resolved to the assistant's id (it used to be stored as an id and fail on the
    foreign key); an unknown one is a clear 404, never a 500."""
    async with client_of(app) as client:
        assistant = (
            await client.post("/api/v1/assistants", json={"name": "Analyst", "prompt": "Brief."})
        ).json()
        by_name = await client.post("/api/v1/chats", json={"assistant_id": "Analyst"})
        assert by_name.status_code == 201, by_name.text
        assert by_name.json()["assistant_id"] == assistant["id"]
        by_id = await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})
        assert by_id.json()["assistant_id"] == assistant["id"]

        plain = (await client.post("/api/v1/chats", json={})).json()
        moved = await client.patch(f"/api/v1/chats/{plain['id']}", json={"assistant_id": "Analyst"})
        assert moved.status_code == 200 and moved.json()["assistant_id"] == assistant["id"]

        unknown = await client.post("/api/v1/chats", json={"assistant_id": "Nobody"})
        assert unknown.status_code == 404
        assert (
            "Nobody" in unknown.json()["detail"]
            and "/api/v1/assistants" in unknown.json()["detail"]
        )

        scene = await client.post(
            "/api/v1/scene-prompts",
            json={"label": "Weekly", "prompt": "Summarise", "assistant_id": "Analyst"},
        )
        assert scene.status_code == 201 and scene.json()["assistant_id"] == assistant["id"]

        key = await client.post(
            "/api/v1/keys", json={"name": "bot", "scopes": ["chat"], "assistant_id": "Analyst"}
        )
        assert key.status_code == 201, key.text
        assert key.json()["info"]["assistant_id"] == assistant["id"]
