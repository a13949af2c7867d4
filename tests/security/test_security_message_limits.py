"""`DATAPILOT_MAX_MESSAGES` and `DATAPILOT_MAX_MESSAGE_CHARS` hold on the OpenAI-compatible face
too: one message too many (or one too long) is a 400 in OpenAI's error shape naming the limit,
before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, platform_settings

LIMIT = 5


@pytest.fixture()
def app(tmp_path: Path) -> FastAPI:
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    return app_for(settings.model_copy(update={"max_messages": LIMIT, "max_message_chars": 50}))


def _conversation(count: int) -> list[dict[str, str]]:
    roles = ["user", "assistant"]
    return [{"role": roles[i % 2], "content": f"turn {i}"} for i in range(count - 1)] + [
        {"role": "user", "content": "How much did Apple return in 2021?"}
    ]


def _openai_error(body: dict[str, object]) -> dict[str, object]:
    error = body["error"]
    assert isinstance(error, dict) and set(error) == {"message", "type", "param", "code"}, body
    assert error["type"] == "invalid_request_error"
    return error


async def test_one_message_too_many_is_refused_naming_the_limit(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        answer = await client.post(
            "/v1/chat/completions",
            json={"model": "datapilot", "messages": _conversation(LIMIT + 1)},
        )
    assert answer.status_code == 400, answer.text
    error = _openai_error(answer.json())
    assert error["param"] == "messages" and error["code"] == "too_many_messages"
    message = str(error["message"])
    assert f"{LIMIT + 1} messages" in message and f"limit is {LIMIT}" in message
    assert "DATAPILOT_MAX_MESSAGES" in message


async def test_a_message_too_long_is_refused_naming_the_limit(app: FastAPI) -> None:
    messages = _conversation(2)
    messages[0]["content"] = "x" * 51
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        answer = await client.post(
            "/v1/chat/completions", json={"model": "datapilot", "messages": messages}
        )
    assert answer.status_code == 400, answer.text
    error = _openai_error(answer.json())
    assert error["param"] == "messages.0.content" and error["code"] == "message_too_long"
    assert "DATAPILOT_MAX_MESSAGE_CHARS" in str(error["message"])


CODE = {"role": "assistant", "type": "code", "format": "python", "content": "print(1)"}


def _lmc(count: int) -> list[dict[str, str]]:
    """`count` LMC messages ending with code to confirm (nothing runs unasked)."""
    return [
        {"role": "user", "type": "message", "content": f"turn {i}"} for i in range(count - 1)
    ] + [CODE]


async def test_the_interpreter_refuses_one_message_too_many(app: FastAPI) -> None:
    async with client_of(app, key_for(app.state.store, "alice", "chat")) as client:
        for body in (_lmc(LIMIT + 1), {"messages": _lmc(LIMIT + 1)}):
            answer = await client.post("/api/v1/interpreter", json=body)
            assert answer.status_code == 422, answer.text
            problem = answer.json()["detail"][0]
            assert problem["field"] == "messages", problem
            assert (
                f"limit is {LIMIT}" in problem["msg"] and "DATAPILOT_MAX_MESSAGES" in problem["msg"]
            )


def test_the_interpreter_socket_refuses_one_message_too_many(app: FastAPI) -> None:
    from starlette.testclient import TestClient

    auth = {"Authorization": f"Bearer {key_for(app.state.store, 'alice', 'chat')}"}
    with TestClient(app).websocket_connect("/api/v1/interpreter", headers=auth) as socket:
        socket.send_text(json.dumps(_lmc(LIMIT + 1)))
        first = json.loads(socket.receive_text())
    assert first["type"] == "error" and "DATAPILOT_MAX_MESSAGES" in first["content"], first
