"""A watch asked for in a chat without a model: the reply shows what was understood, in the
message's language, and the watch is saved only when the user sends `run` (`cancel` saves
nothing); a sentence with words not read names them and proposes nothing; a key bound to an
assistant is told it cannot have watches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, lmc_events, platform_settings


@pytest.fixture()
def app(tmp_path: Path, data: object) -> FastAPI:
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.db'}"))


async def _chat(client: httpx.AsyncClient) -> str:
    made = await client.post("/api/v1/chats", json={})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def _say(client: httpx.AsyncClient, chat: str, text: str) -> list[dict[str, Any]]:
    sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": text})
    assert sent.status_code == 200, sent.text
    return lmc_events(sent.text)


def _reply(chunks: list[dict[str, Any]]) -> str:
    return "".join(
        str(c.get("content") or "")
        for c in chunks
        if c.get("role") == "assistant" and c.get("type") == "message"
    )


def _asked(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["content"] for c in chunks if c.get("type") == "confirmation"]


async def _command(client: httpx.AsyncClient, chat: str, command: str) -> dict[str, Any]:
    sent = await client.post(
        f"/api/v1/chats/{chat}/messages", json={"command": command, "stream": False}
    )
    assert sent.status_code == 200, sent.text
    return dict(sent.json())


@pytest.mark.parametrize(
    ("sentence", "shown", "kind"),
    [
        (
            "tell me when Apple closes below 150",
            ["Kind: alert", "Apple Inc. (AAPL)", "close below 150", "when the data change"],
            "alert",
        ),
        (
            "remind me every Friday at 9 how Apple did this week",
            ["Kind: report", "Question: how Apple did this week", "weekly on Friday at 09:00"],
            "report",
        ),
        (
            "苹果收盘价跌破150时提醒我",
            ["类型：提醒", "Apple Inc. (AAPL)", "收盘价低于 150", "数据更新时", "运行"],
            "alert",
        ),
        (
            "每周一早上8点把标普500上周的表现发给我",
            ["类型：定期报告", "S&P 500 (^GSPC)", "每周一 08:00"],
            "report",
        ),
    ],
)
async def test_a_watch_asked_for_in_a_chat_is_saved_on_run_only(
    app: FastAPI, sentence: str, shown: list[str], kind: str
) -> None:
    ann = key_for(app.state.store, "ann")
    async with client_of(app, ann) as client:
        chat = await _chat(client)
        chunks = await _say(client, chat, sentence)
        (asked,) = _asked(chunks)
        assert asked["tool"] == "create_watch" and asked["arguments"] == {"text": sentence}
        reply = _reply(chunks)
        for words in shown:
            assert words in reply, reply
        assert (await client.get("/api/v1/watches")).json() == []  # not before the go-ahead
        ran = await _command(client, chat, "run")
        assert ran["answer"]["status"] == "ok", ran
        (watch,) = (await client.get("/api/v1/watches")).json()
        assert watch["text"] == sentence and watch["kind"] == kind
        assert watch["id"] in ran["answer"]["summary"]


async def test_cancel_saves_nothing_and_a_later_message_closes_the_proposal(
    app: FastAPI,
) -> None:
    ann = key_for(app.state.store, "ann")
    async with client_of(app, ann) as client:
        chat = await _chat(client)
        falls = "alert me if the S&P 500 falls more than 2% in a day"
        assert _asked(await _say(client, chat, falls))
        await _command(client, chat, "cancel")
        assert (await client.get("/api/v1/watches")).json() == []
        # Nothing waits any more: run has nothing to run.
        late = await client.post(f"/api/v1/chats/{chat}/messages", json={"command": "run"})
        assert late.status_code == 400, late.text
        assert (await client.get("/api/v1/watches")).json() == []


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("remind me when Apple's volatility exceeds 30%", ['"volatility"', '"exceeds"', '"30%"']),
        ("苹果的波动率超过30%时提醒我", ["没有读懂", "波动率"]),
    ],
)
async def test_unread_words_are_named_and_nothing_is_proposed(
    app: FastAPI, sentence: str, words: list[str]
) -> None:
    ann = key_for(app.state.store, "ann")
    async with client_of(app, ann) as client:
        chat = await _chat(client)
        chunks = await _say(client, chat, sentence)
        assert _asked(chunks) == []
        reply = _reply(chunks)
        for word in words:
            assert word in reply, reply
        late = await client.post(f"/api/v1/chats/{chat}/messages", json={"command": "run"})
        assert late.status_code == 400
        assert (await client.get("/api/v1/watches")).json() == []


async def test_a_key_bound_to_an_assistant_cannot_make_watches_in_a_chat(app: FastAPI) -> None:
    owner = key_for(app.state.store, "ann")
    async with client_of(app, owner) as client:
        desk = (await client.post("/api/v1/assistants", json={"name": "Desk"})).json()["id"]
        made = await client.post(
            "/api/v1/keys", json={"name": "bot", "scopes": ["chat"], "assistant_id": desk}
        )
        bound = made.json()["key"]
    async with client_of(app, bound) as client:
        chat = await _chat(client)
        chunks = await _say(client, chat, "tell me when Apple closes below 150")
        assert _asked(chunks) == []
        assert "bound to an assistant" in _reply(chunks)
    async with client_of(app, owner) as client:
        assert (await client.get("/api/v1/watches")).json() == []


async def test_a_question_is_still_answered_as_a_question(app: FastAPI) -> None:
    ann = key_for(app.state.store, "ann")
    async with client_of(app, ann) as client:
        chat = await _chat(client)
        chunks = await _say(client, chat, "how did Apple do in 2020")
        assert _asked(chunks) == []
        assert "AAPL" in _reply(chunks) or "Apple" in _reply(chunks)
