"""Malformed requests found by review and fuzzing: each gets a 4xx in its route's error shape
(OpenAI's on `/v1/chat/completions`, the 422 problem list elsewhere), never a 500; a lone
surrogate escaped in JSON (`"\\ud800"`, not text) becomes U+FFFD at the door, so answers and
streams run to their end."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from support.live_server import LOOPBACK
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.server.limits import json_without_surrogates

pytestmark = LOOPBACK  # the scripted model listens on loopback
JSON = {"content-type": "application/json"}
WIDGET_UUID = "7d0e6b4e-0000-4000-8000-000000000001"


@pytest.fixture()
def app(tmp_path: Path, data: object) -> FastAPI:
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))


@pytest.fixture()
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(app, key_for(app.state.store, "ana", "chat,manage")) as client:
        yield client


def _raw(body: Any) -> bytes:
    # ASCII JSON: a lone surrogate travels as the escape "\ud800", as a browser would send it.
    return json.dumps(body).encode()


def _problem_fields(response: httpx.Response) -> list[str]:
    assert response.status_code == 422, response.text[:500]
    return [problem["field"] for problem in response.json()["detail"]]


def _openai_error(response: httpx.Response) -> dict[str, Any]:
    """The error of an OpenAI-shaped 400: `{"error": {message, type, param, code}}`."""
    assert response.status_code == 400, response.text[:500]
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    assert error["type"] == "invalid_request_error"
    return dict(error)


@pytest.mark.parametrize(
    ("message", "param"),
    [
        ({"role": "user", "content": ["hi"]}, "messages.0.content"),
        ({"role": "user", "content": [1, 2]}, "messages.0.content"),
        ({"role": "assistant", "content": "x", "tool_calls": "abc"}, "messages.0.tool_calls"),
        ({"role": "assistant", "content": "x", "tool_calls": ["abc"]}, "messages.0.tool_calls"),
        (
            {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": "f"}]},
            "messages.0.tool_calls.0.function",
        ),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": "http://x/a.png"}]},
            "messages.0.content",
        ),
        ({"role": "robot", "content": "hi"}, "messages.0.role"),
    ],
)
async def test_a_malformed_openai_message_is_a_400_in_openai_shape(
    client: httpx.AsyncClient, message: dict[str, Any], param: str
) -> None:
    body = {"model": "datapilot", "messages": [message]}
    response = await client.post("/v1/chat/completions", json=body)
    error = _openai_error(response)
    assert error["param"].startswith(param), error
    assert param in error["message"]


async def test_malformed_client_tools_are_a_400_in_openai_shape(
    client: httpx.AsyncClient,
) -> None:
    body = {
        "model": "datapilot",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": "get_weather"}],
    }
    error = _openai_error(await client.post("/v1/chat/completions", json=body))
    assert error["param"].startswith("tools.0.function"), error


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("model", ["datapilot", "assistant"])
async def test_a_lone_surrogate_reaches_the_model_as_a_replacement_character(
    tmp_path: Path, data: object, stream: bool, model: str
) -> None:
    with ScriptedEndpoint([Reply(content="Noted.")]) as endpoint:
        app = app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint))
        async with client_of(app, key_for(app.state.store, "ana", "chat,manage")) as client:
            if model == "assistant":
                created = await client.post("/api/v1/assistants", json={"name": "Analyst"})
                model = created.json()["id"]
            body = {"model": model, "messages": [{"role": "user", "content": "hi \ud800 there"}]}
            response = await client.post(
                "/v1/chat/completions", content=_raw({**body, "stream": stream}), headers=JSON
            )
    assert response.status_code == 200, response.text[:500]
    if stream:
        datas = [line[5:].strip() for line in response.text.splitlines() if line[:5] == "data:"]
        assert datas[-1] == "[DONE]"  # the stream ran to its end
        finishes = [json.loads(d)["choices"] for d in datas[:-1]]
        assert [c[0]["finish_reason"] for c in finishes if c][-1] == "stop"
    else:
        assert response.json()["choices"][0]["message"]["content"] == "Noted."
    sent = [m["content"] for r in endpoint.requests for m in r.messages if m["role"] == "user"]
    assert "hi \ufffd there" in sent


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\ud800b", "a\ufffdb"),
        ("\udc00\ud800", "\ufffd\ufffd"),
        ("\U0001f600", "\U0001f600"),  # a valid pair (an emoji) is text
        ("\ud800\U0001f600", "\ufffd\U0001f600"),
        ("\\ud800", "\\ud800"),  # an escaped backslash, then the letters: text
        ("x\\\udbff", "x\\\ufffd"),
    ],
)
def test_lone_surrogate_escapes_become_replacement_characters(text: str, expected: str) -> None:
    raw = _raw({"key \udbff": text})[:-1] + b', "n": 1.50}'
    fixed = json_without_surrogates(raw)
    assert json.loads(fixed) == {"key \ufffd": expected, "n": 1.5}
    assert fixed.endswith(b'"n": 1.50}')  # the rest as sent
    assert json_without_surrogates(_raw({"plain": "text"})) == _raw({"plain": "text"})


async def test_interpreter_code_with_a_lone_surrogate_is_confirmed_with_a_replacement(
    client: httpx.AsyncClient,
) -> None:
    code = {"role": "user", "type": "code", "format": "python", "content": "print('\ud800')"}
    response = await client.post("/api/v1/interpreter", content=_raw([code]), headers=JSON)
    assert response.status_code == 200, response.text[:500]
    chunks = [json.loads(line) for line in response.text.splitlines() if line]
    confirmation = next(c for c in chunks if c["type"] == "confirmation")
    assert confirmation["content"]["content"] == "print('\ufffd')"
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}


def test_the_interpreter_socket_refuses_a_lone_surrogate_and_goes_on(app: FastAPI) -> None:
    from starlette.testclient import TestClient

    complete = {"role": "server", "type": "status", "content": "complete"}

    def exchange(socket: Any, text: str) -> list[dict[str, Any]]:
        socket.send_text(text)
        chunks = [json.loads(socket.receive_text())]
        while chunks[-1] != complete:
            chunks.append(json.loads(socket.receive_text()))
        return chunks

    code = {"role": "user", "type": "code", "format": "python", "content": "print('\udc00')"}
    auth = {"Authorization": f"Bearer {key_for(app.state.store, 'ana', 'chat')}"}
    with TestClient(app).websocket_connect("/api/v1/interpreter", headers=auth) as socket:
        refused = exchange(socket, json.dumps([code]))  # ASCII: the escape, not the character
        assert refused[0]["type"] == "error" and "surrogate" in refused[0]["content"]
        code["content"] = "print(1)"
        assert any(c["type"] == "confirmation" for c in exchange(socket, json.dumps([code])))


@pytest.mark.parametrize(
    ("patch", "field"), [({"name": None}, "name"), ({"assistant_id": ""}, "assistant_id")]
)
async def test_a_chat_patch_of_the_wrong_shape_is_a_422(
    client: httpx.AsyncClient, patch: dict[str, Any], field: str
) -> None:
    chat = (await client.post("/api/v1/chats", json={"name": "mine"})).json()
    response = await client.patch(f"/api/v1/chats/{chat['id']}", json=patch)
    assert field in _problem_fields(response)
    unchanged = (await client.get(f"/api/v1/chats/{chat['id']}")).json()
    assert (unchanged["name"], unchanged["assistant_id"]) == ("mine", None)


async def test_a_chat_patch_can_still_rename_and_detach(client: httpx.AsyncClient) -> None:
    assistant = (await client.post("/api/v1/assistants", json={"name": "Analyst"})).json()
    chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
    response = await client.patch(
        f"/api/v1/chats/{chat['id']}", json={"name": "renamed", "assistant_id": None}
    )
    assert response.status_code == 200, response.text
    assert (response.json()["name"], response.json()["assistant_id"]) == ("renamed", None)


async def test_an_assistant_patch_of_the_wrong_shape_is_a_4xx(client: httpx.AsyncClient) -> None:
    # Found by fuzzing: null on a NOT NULL column, or another assistant's name, was a 500.
    first = (await client.post("/api/v1/assistants", json={"name": "Analyst"})).json()
    second = (await client.post("/api/v1/assistants", json={"name": "Trader"})).json()
    path = f"/api/v1/assistants/{second['id']}"
    for field in ("name", "description", "prompt", "public", "disable_memory"):
        assert _problem_fields(await client.patch(path, json={field: None})) == [field]
    for name in (first["name"], " Analyst ", "   "):
        response = await client.patch(path, json={"name": name})
        assert response.status_code == 400, response.text
    renamed = await client.patch(path, json={"name": " Trader ", "model": None})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Trader"


@pytest.mark.parametrize("kind", [{}, [], 1, None])
async def test_a_widget_parameter_type_that_is_not_text_is_a_422(
    client: httpx.AsyncClient, kind: Any
) -> None:
    assistant = (await client.post("/api/v1/assistants", json={"name": "Analyst"})).json()
    widget = {"uuid": WIDGET_UUID, "name": "Prices", "params": [{"name": "s", "type": kind}]}
    body = {
        "messages": [{"role": "human", "content": "this widget"}],
        "widgets": {"primary": [widget]},
    }
    for path in ("/v1/query", f"/assistants/{assistant['id']}/v1/query"):
        response = await client.post(path, json=body)
        if kind is None:  # no type: the lenient default (text) answers
            assert response.status_code == 200, response.text[:500]
            continue
        assert "widgets.primary.0.params.0.type" in _problem_fields(response), path


@pytest.mark.parametrize(
    "message_id", ["99999999999999999999", str(2**63), str(-(2**63) - 1), "0", "-1"]
)
async def test_an_out_of_range_message_id_is_a_4xx(
    client: httpx.AsyncClient, message_id: str
) -> None:
    chat = (await client.post("/api/v1/chats", json={})).json()
    response = await client.get(f"/api/v1/chats/{chat['id']}/messages/{message_id}/context")
    assert response.status_code in (404, 422), response.text[:500]


@pytest.fixture()
def short_questions(tmp_path: Path, data: object) -> FastAPI:
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    return app_for(settings.model_copy(update={"max_question_chars": 100}))


async def test_a_chat_question_over_the_limit_is_a_422_before_it_is_stored(
    short_questions: FastAPI,
) -> None:
    # Found by fuzzing: 20,000 digits as a chat message kept a worker busy for ~50 s.
    key = key_for(short_questions.state.store, "ana", "chat,manage")
    async with client_of(short_questions, key) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        path = f"/api/v1/chats/{chat['id']}/messages"
        response = await client.post(path, json={"content": "0" * 101, "stream": False})
        assert _problem_fields(response) == ["content"]
        assert "DATAPILOT_MAX_QUESTION_CHARS" in response.json()["message"]
        later = {"content": "0" * 101, "role": "human_later", "stream": False}
        assert (await client.post(path, json=later)).status_code == 200  # stored, not answered
        stored = (await client.get(path)).json()
    assert [m["role"] for m in stored] == ["human_later"]


@pytest.mark.parametrize("content", ["0" * 101, [{"type": "text", "text": "0" * 101}]])
async def test_an_openai_question_over_the_limit_is_a_400(
    short_questions: FastAPI, content: Any
) -> None:
    key = key_for(short_questions.state.store, "ana", "chat")
    messages = [{"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]
    async with client_of(short_questions, key) as client:
        body = {"model": "datapilot", "messages": messages}
        error = _openai_error(await client.post("/v1/chat/completions", json=body))
    assert (error["param"], error["code"]) == ("messages.0.content", "question_too_long")
    assert "DATAPILOT_MAX_QUESTION_CHARS" in error["message"]


async def test_the_pipeline_refuses_a_question_over_the_limit_from_anywhere(
    data: object,
) -> None:
    from datapilot.brains import answer
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext
    from datapilot.settings import Settings

    settings = Settings(brain="offline", offline=True, max_question_chars=100)
    context = QuestionContext(today=date(2022, 12, 28), brain="offline", offline=True)
    request = RequestContext.for_request(context, settings)
    started = time.perf_counter()
    refused = await answer("0" * 20_000, request)
    assert time.perf_counter() - started < 2
    assert refused.status == "error" and "DATAPILOT_MAX_QUESTION_CHARS" in (refused.message or "")
