"""Guests of public assistants: no key, a guest id of their own, chats that expire, a rate
limit, and never another guest's or a user's chat."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import SecretStr
from support.platform_app import (
    QUESTION,
    TODAY,
    app_for,
    apple_2021_return_pct,
    client_of,
    key_for,
    platform_settings,
)

from datapilot.settings import Settings


@pytest.fixture()
def app(store_url: str, data):  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(update={"guest_messages_per_minute": 3})
    return app_for(settings)


async def assistants(app) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """A public and a private assistant of a user, and that user's key."""
    key = key_for(app.state.store, "alice")
    async with client_of(app, key) as owner:
        public = await owner.post("/api/v1/assistants", json={"name": "Open", "public": True})
        private = await owner.post("/api/v1/assistants", json={"name": "Closed"})
    return public.json()["id"], private.json()["id"], key


async def test_a_guest_chats_with_a_public_assistant_without_a_key(app) -> None:  # type: ignore[no-untyped-def]
    public, private, _ = await assistants(app)
    async with client_of(app) as guest:  # keys exist now, and the guest has none
        opened = await guest.post(f"/api/v1/guest/assistants/{public}/chats", json={})
        assert opened.status_code == 201, opened.text
        guest_id = opened.headers["X-Guest-Id"]
        chat = opened.json()
        expires = datetime.fromisoformat(chat["expires_at"])
        assert abs(expires - (datetime.now(UTC) + timedelta(hours=24))) < timedelta(minutes=5)
        headers = {"X-Guest-Id": guest_id}
        sent = await guest.post(
            f"/api/v1/guest/chats/{chat['id']}/messages",
            json={"content": QUESTION, "today": TODAY, "stream": False},
            headers=headers,
        )
        assert f"{apple_2021_return_pct():.2f}%" in sent.json()["replies"][-1]["content"]
        closed = await guest.post(f"/api/v1/guest/assistants/{private}/chats", json={})
        assert closed.status_code == 404
        assert (await guest.get("/api/v1/chats")).status_code == 401  # user routes need a key


async def test_guests_never_read_each_others_or_users_chats(app) -> None:  # type: ignore[no-untyped-def]
    public, _, key = await assistants(app)
    async with client_of(app, key) as owner:
        users_chat = (await owner.post("/api/v1/chats", json={"assistant_id": public})).json()
    async with client_of(app) as first, client_of(app) as second:
        opened = await first.post(f"/api/v1/guest/assistants/{public}/chats", json={})
        chat = opened.json()["id"]
        other = (await second.post(f"/api/v1/guest/assistants/{public}/chats", json={})).headers
        headers = {"X-Guest-Id": other["X-Guest-Id"]}
        for path in (
            f"/api/v1/guest/chats/{chat}/messages",
            f"/api/v1/guest/chats/{users_chat['id']}/messages",
        ):
            assert (await second.get(path, headers=headers)).status_code == 404
            posted = await second.post(path, json={"content": "hi"}, headers=headers)
            assert posted.status_code == 404
        listed = (await second.get("/api/v1/guest/chats", headers=headers)).json()
        assert chat not in str(listed) and users_chat["id"] not in str(listed)
        short = await second.get("/api/v1/guest/chats", headers={"X-Guest-Id": "guess"})
        assert short.status_code == 400


async def test_guests_are_rate_limited(app) -> None:  # type: ignore[no-untyped-def]
    public, _, _ = await assistants(app)
    async with client_of(app) as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{public}/chats", json={})
        headers = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
        url = f"/api/v1/guest/chats/{opened.json()['id']}/messages"
        body = {"content": "note", "role": "human_later", "stream": False}
        codes = [(await guest.post(url, json=body, headers=headers)).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


def test_settings_bound_the_guest_limits() -> None:
    with pytest.raises(ValueError):
        Settings(guest_messages_per_minute=0, database_url=SecretStr("sqlite:///x"))


async def test_a_guests_file_is_theirs_alone_and_expires_with_the_chat(app) -> None:  # type: ignore[no-untyped-def]
    import base64

    from datapilot.store.models import Chat

    public, _, key = await assistants(app)
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
    upload = {"name": "chart.png", "content_base64": base64.b64encode(png).decode()}
    async with client_of(app) as first, client_of(app) as second:
        opened = await first.post(f"/api/v1/guest/assistants/{public}/chats", json={})
        mine = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
        chat = opened.json()["id"]
        attached = await first.post(f"/api/v1/guest/chats/{chat}/files", json=upload, headers=mine)
        assert attached.status_code == 201, attached.text
        file_id = attached.json()["file"]["id"]
        back = await first.get(f"/api/v1/guest/files/{file_id}", headers=mine)
        assert (back.status_code, back.content, back.headers["content-type"]) == (
            200,
            png,
            "image/png",
        )
        messages = (await first.get(f"/api/v1/guest/chats/{chat}/messages", headers=mine)).json()
        assert [(m["role"], m["file_id"]) for m in messages] == [("file", file_id)]

        other = (await second.post(f"/api/v1/guest/assistants/{public}/chats", json={})).headers
        theirs = {"X-Guest-Id": other["X-Guest-Id"]}
        assert (
            await second.get(f"/api/v1/guest/files/{file_id}", headers=theirs)
        ).status_code == 404
        into_mine = await second.post(
            f"/api/v1/guest/chats/{chat}/files", json=upload, headers=theirs
        )
        assert into_mine.status_code == 404
        async with client_of(app, key) as owner:  # the assistant's owner does not see it either
            assert (await owner.get(f"/api/v1/files/{file_id}")).status_code == 404

        with app.state.store.session() as session:  # the chat's time is up
            session.get(Chat, chat).expires_at = datetime.now(UTC) - timedelta(minutes=1)
        gone = await first.get(f"/api/v1/guest/files/{file_id}", headers=mine)
        assert gone.status_code == 404
