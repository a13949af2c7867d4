"""Guests' limits hold on what a client cannot rotate: a new guest id for every chat does not
lift the limit of the client's address, and a public assistant answers its guests at most its
hourly budget, from however many addresses; another address, and another assistant, are not
held back. With Redis the limits are shared by every replica."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from support.platform_app import app_for, client_of, key_for, platform_settings
from support.redis_server import redis_server

from datapilot.settings import Settings

LOOPBACK = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]
NOTE = {"content": "note", "role": "human_later", "stream": False}


@asynccontextmanager
async def guest_from(app: FastAPI, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client without a key, connecting from `address`."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def limited(store_url: str, **limits: Any) -> FastAPI:
    return app_for(platform_settings(store_url).model_copy(update=limits))


async def public_assistants(app: FastAPI, *names: str) -> list[str]:
    async with client_of(app, key_for(app.state.store, "host")) as owner:
        made = [
            await owner.post("/api/v1/assistants", json={"name": name, "public": True})
            for name in names
        ]
    return [answer.json()["id"] for answer in made]


async def fresh_guest_message(client: httpx.AsyncClient, assistant: str) -> int:
    """Open a chat under a new guest id (no id sent: the server hands one out) and send one
    message; the status of the first refusal, or of the message."""
    client.cookies.clear()
    opened = await client.post(f"/api/v1/guest/assistants/{assistant}/chats", json={})
    if opened.status_code != 201:
        return opened.status_code
    headers = {"X-Guest-Id": opened.headers["X-Guest-Id"]}
    sent = await client.post(
        f"/api/v1/guest/chats/{opened.json()['id']}/messages", json=NOTE, headers=headers
    )
    return sent.status_code


async def test_new_guest_ids_do_not_lift_the_limit_of_an_address(store_url: str) -> None:
    app = limited(store_url, guest_messages_per_minute=3, guest_requests_per_minute_per_address=6)
    (assistant,) = await public_assistants(app, "Open")
    async with guest_from(app, "203.0.113.7") as rotating:
        codes = [await fresh_guest_message(rotating, assistant) for _ in range(6)]
        # Opening a chat counts too: three chats and three messages fill the minute.
        assert codes == [200, 200, 200, 429, 429, 429], codes
        rotating.cookies.clear()
        refused = await rotating.post(f"/api/v1/guest/assistants/{assistant}/chats", json={})
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "rate_limited" and body["detail"] == body["message"]
    assert "DATAPILOT_GUEST_REQUESTS_PER_MINUTE_PER_ADDRESS" in body["message"], body
    # IPv6 clients are one address per /64: rotating the interface id does not help either.
    async with guest_from(app, "2001:db8:1:2::1") as first:
        assert [await fresh_guest_message(first, assistant) for _ in range(3)] == [200] * 3
    async with guest_from(app, "2001:db8:1:2:ffff::9") as same_network:
        assert await fresh_guest_message(same_network, assistant) == 429
    async with guest_from(app, "198.51.100.4") as another:  # someone else is not held back
        assert await fresh_guest_message(another, assistant) == 200


async def test_a_public_assistant_answers_guests_within_its_budget(store_url: str) -> None:
    app = limited(store_url, guest_messages_per_hour_per_assistant=4)
    busy, quiet = await public_assistants(app, "Busy", "Quiet")
    codes = []
    for n in range(6):  # a new address and guest id every time
        async with guest_from(app, f"192.0.2.{n + 1}") as guest:
            codes.append(await fresh_guest_message(guest, busy))
    assert codes == [200, 200, 200, 200, 429, 429], codes
    async with guest_from(app, "192.0.2.99") as guest:
        opened = await guest.post(f"/api/v1/guest/assistants/{busy}/chats", json={})
        assert opened.status_code == 201  # chats still open; messages wait for the budget
        sent = await guest.post(
            f"/api/v1/guest/chats/{opened.json()['id']}/messages",
            json=NOTE,
            headers={"X-Guest-Id": opened.headers["X-Guest-Id"]},
        )
        assert sent.status_code == 429
        assert "DATAPILOT_GUEST_MESSAGES_PER_HOUR_PER_ASSISTANT" in sent.json()["message"]
        assert await fresh_guest_message(guest, quiet) == 200  # another assistant's own budget
    # The owner, with a key, is not a guest: their chats go on.
    async with client_of(app, key_for(app.state.store, "host")) as owner:
        chat = (await owner.post("/api/v1/chats", json={"assistant_id": busy})).json()
        mine = await owner.post(f"/api/v1/chats/{chat['id']}/messages", json=NOTE)
    assert mine.status_code == 200, mine.text


def test_settings_bound_the_new_limits() -> None:
    for name in ("guest_requests_per_minute_per_address", "guest_messages_per_hour_per_assistant"):
        with pytest.raises(ValueError):
            Settings(**{name: 0}, database_url=SecretStr("sqlite:///x"))


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
async def test_replicas_share_the_address_limit_through_redis(
    tmp_path: Any, redis_url: str
) -> None:
    store = f"sqlite:///{tmp_path / 'store.db'}"
    limits = {"guest_requests_per_minute_per_address": 4, "redis_url": SecretStr(redis_url)}
    first, second = limited(store, **limits), limited(store, **limits)
    (assistant,) = await public_assistants(first, "Shared")
    codes = []
    for app in (first, second, first):
        async with guest_from(app, "203.0.113.50") as guest:
            codes.append(await fresh_guest_message(guest, assistant))
    assert codes == [200, 200, 429], codes
    import redis

    counters = redis.Redis.from_url(redis_url).keys("datapilot:rate:guest-address:*")
    assert counters, "the address's counter is not in Redis"
