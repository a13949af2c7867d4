"""Hostile and unlucky input against a real server on loopback: every case gets a clear 4xx
quickly (or a stream that ends properly), with the limit's setting named, while a small question
beside it keeps answering and the server stays healthy."""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys

# The tests run in the loop of their (async) client fixture, whose sockets belong to it.
pytestmark = [*LOOPBACK, pytest.mark.asyncio(loop_scope="session")]

SMALL = {"question": "Apple's closing price in 2021", "today": "2022-12-28"}


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.sqlite3'}"),
        **overrides,
    )


@pytest.fixture()
def server(tmp_path: Path, data) -> Iterator[str]:
    # A small body limit, so that "too large" is cheap to send; the data dir is the test one.
    app = create_app(_settings(tmp_path, max_body_mb=1.0), warm_up=False)
    with live_server(app) as url:
        yield url


@pytest.fixture()
async def client(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=60) as client:
        yield client


def human(text: str, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "human", "content": text}], "today": "2022-12-28", **extra}


def _raw(body: dict[str, Any]) -> bytes:
    # ASCII JSON: a lone surrogate travels as the escape "\udbff", as a browser would send it.
    return json.dumps(body).encode()


def _sse(text: str) -> list[tuple[str, str]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = block.strip().splitlines()
        name = next((line[6:].strip() for line in lines if line.startswith("event:")), "")
        data = "\n".join(line[5:].strip() for line in lines if line.startswith("data:"))
        if name or data:
            events.append((name, data))
    return events


def _refusal(response: httpx.Response, status: int, setting: str) -> str:
    assert response.status_code == status, response.text[:500]
    assert len(response.content) < 5_000, "an error body must stay short"
    text = response.text
    assert setting in text, f"{setting} not named in {text[:300]}"
    return text


async def test_a_declared_oversized_body_is_refused_before_it_is_read(server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 52428800\r\n\r\n{"  # claims 50 MB, sends one byte
        )
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    reply_text = reply.decode()
    assert time.perf_counter() - started < 2
    assert reply_text.startswith("HTTP/1.1 413")
    assert "DATAPILOT_MAX_BODY_MB" in reply_text


async def test_a_streamed_oversized_body_is_refused_when_it_passes_the_limit(
    client: httpx.AsyncClient,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"messages": [{"role": "human", "content": "'
        for _ in range(30):  # 3 MB, without a Content-Length: only counting can stop it
            yield b"a" * 100_000
        yield b'"}]}'

    try:
        response = await client.post(
            "/v1/query", content=chunks(), headers={"content-type": "application/json"}
        )
    except httpx.HTTPError:
        pytest.fail("the server should answer 413, not drop the connection")
    _refusal(response, 413, "DATAPILOT_MAX_BODY_MB")


@pytest.mark.parametrize("path", ["/v1/query", "/api/v1/ask"])
async def test_a_long_question_is_a_422_naming_the_limit(
    client: httpx.AsyncClient, path: str
) -> None:
    question = "Apple Microsoft " * 4_000  # 64,000 characters
    body = human(question) if path == "/v1/query" else {"question": question}
    started = time.perf_counter()
    response = await client.post(path, json=body)
    assert time.perf_counter() - started < 2
    text = _refusal(response, 422, "DATAPILOT_MAX_QUESTION_CHARS")
    assert "64,000" in text


async def test_thousands_of_bad_history_entries_get_a_short_error(
    client: httpx.AsyncClient,
) -> None:
    history = [{"role": "robot", "content": 1}] * 10_000
    response = await client.post("/api/v1/ask", json={**SMALL, "history": history})
    _refusal(response, 422, "DATAPILOT_MAX_MESSAGES")
    messages = [{"role": "human", "content": "hi"}] * 10_000
    response = await client.post("/v1/query", json={"messages": messages})
    _refusal(response, 422, "DATAPILOT_MAX_MESSAGES")


async def test_a_422_lists_at_most_ten_problems(client: httpx.AsyncClient) -> None:
    history = [{"role": "robot", "content": 1}] * 150  # within the count limit, all invalid
    response = await client.post("/api/v1/ask", json={**SMALL, "history": history})
    assert response.status_code == 422
    body = response.json()
    assert len(body["detail"]) == 10
    assert "more problems" in body["message"]


async def test_a_widget_whose_params_is_a_string_is_a_422(client: httpx.AsyncClient) -> None:
    widget = {"uuid": "7d0e6b4e-0000-4000-8000-000000000001", "name": "Prices", "params": "AAPL"}
    response = await client.post("/v1/query", json=human("this widget", widgets=[widget]))
    assert response.status_code == 422
    fields = [problem["field"] for problem in response.json()["detail"]]
    assert "widgets.0.params" in fields


async def test_a_widget_repeating_a_parameter_name_is_a_422(client: httpx.AsyncClient) -> None:
    # Found by the fuzzing run: the Workspace SDK's own check crashed the request instead.
    params = [{"name": "symbol", "type": "ticker"}, {"name": "symbol", "type": "ticker"}]
    widget = {"uuid": "7d0e6b4e-0000-4000-8000-000000000002", "name": "Prices", "params": params}
    response = await client.post("/v1/query", json=human("this widget", widgets=[widget]))
    assert response.status_code == 422
    problems = response.json()["detail"]
    assert any(
        p["field"] == "widgets.0.params.1.name" and "unique" in p["msg"] for p in problems
    ), problems


async def test_a_lone_surrogate_never_cuts_the_stream(client: httpx.AsyncClient) -> None:
    body = human("Apple's closing price in 2021 \udbff")
    response = await client.post(
        "/v1/query", content=_raw(body), headers={"content-type": "application/json"}
    )
    assert response.status_code == 200
    events = _sse(response.text)
    names = [name for name, _ in events]
    assert "copilotMessageArtifact" in names  # the chart came: the answer ran to its end
    assert names[-1] == "copilotPromptSuggestions"  # and the stream closed as usual
    ask = {**SMALL, "question": SMALL["question"] + " \udbff", "stream": True}
    response = await client.post(
        "/api/v1/ask", content=_raw(ask), headers={"content-type": "application/json"}
    )
    chunks = [json.loads(data) for _, data in _sse(response.text)]
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}
    answer = next(c for c in chunks if c.get("type") == "answer")["content"]
    assert answer["status"] == "ok" and "\ufffd" in answer["query"]


async def test_client_tables_beyond_the_cell_limit_are_refused(tmp_path: Path, data) -> None:
    app = create_app(_settings(tmp_path, max_table_cells=1_000, max_cell_chars=50), warm_up=False)
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            rows = [[f"2021-01-{d % 28 + 1:02d}", d] for d in range(600)]  # 1,200 cells
            table = {"name": "mine", "columns": ["date", "value"], "rows": rows}
            response = await client.post("/api/v1/ask", json={**SMALL, "tables": [table]})
            _refusal(response, 422, "DATAPILOT_MAX_TABLE_CELLS")
            wide = {"name": "mine", "columns": ["note"], "rows": [["x" * 51]]}
            response = await client.post("/api/v1/ask", json={**SMALL, "tables": [wide]})
            _refusal(response, 422, "DATAPILOT_MAX_CELL_CHARS")
            # Widget data in a Workspace request is held to the same limits.
            widget_data = json.dumps([{"date": r[0], "value": r[1]} for r in rows])
            item = {"uuid": "7d0e6b4e-0000-4000-8000-000000000002", "name": "mine"}
            body = human("summarize", context=[{**item, "data": widget_data}])
            response = await client.post("/v1/query", json=body)
            _refusal(response, 422, "DATAPILOT_MAX_TABLE_CELLS")


async def test_feedback_is_capped_per_record_and_in_total(tmp_path: Path, data) -> None:
    settings = _settings(
        tmp_path, data_dir=tmp_path / "fb", max_feedback_kb=4, max_feedback_mb=0.05
    )
    app = create_app(settings, warm_up=False)
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            big = {"vote": "down", "user_comment": "x" * 5_000}
            _refusal(await client.post("/v1/feedback", json=big), 422, "DATAPILOT_MAX_FEEDBACK_KB")
            note = {"vote": "up", "user_comment": "y" * 3_000}
            results = await asyncio.gather(
                *(client.post("/v1/feedback", json=note) for _ in range(60))
            )
    assert [r.status_code for r in results] == [200] * 60
    files = sorted((tmp_path / "fb").glob("feedback*.jsonl"))
    assert [f.name for f in files] == ["feedback.1.jsonl", "feedback.jsonl"]  # rotated
    assert sum(f.stat().st_size for f in files) <= 0.05 * 1024 * 1024
    for file in files:  # every line whole
        for line in file.read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["vote"] == "up"


async def test_feedback_needs_a_key_once_keys_exist(tmp_path: Path, data) -> None:
    app = create_app(_settings(tmp_path, data_dir=tmp_path / "fb"), warm_up=False)
    with app.state.store.session() as session:
        key = Keys(session).create("laptop", "chat").key.get_secret_value()
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            refused = await client.post("/v1/feedback", json={"vote": "up"})
            assert refused.status_code == 401
            accepted = await client.post(
                "/v1/feedback", json={"vote": "up"}, headers={"Authorization": f"Bearer {key}"}
            )
            assert accepted.status_code == 200
    assert not (tmp_path / "fb" / "feedback.jsonl").read_text().count("\n") > 1


@pytest.mark.perf
async def test_a_small_question_keeps_answering_beside_a_hostile_barrage(
    client: httpx.AsyncClient,
) -> None:
    async def small() -> float:
        started = time.perf_counter()
        response = await client.post("/api/v1/ask", json=SMALL)
        assert response.status_code == 200 and response.json()["status"] == "ok"
        return time.perf_counter() - started

    calm = [await small() for _ in range(3)]
    hostile = [
        client.post("/v1/query", json=human("x" * 60_000)),
        client.post("/api/v1/ask", json={**SMALL, "history": [{"role": "x"}] * 10_000}),
        client.post("/v1/query", json={"messages": [{"role": "human", "content": "q"}] * 5_000}),
        client.post("/v1/query", json=human("q", widgets=[{"uuid": "u", "params": "s"}])),
        client.post("/v1/feedback", json={"vote": "up", "user_comment": "z" * 90_000}),
    ] * 4
    barrage = asyncio.gather(*hostile)
    busy = [await small() for _ in range(3)]
    responses = await barrage
    assert all(400 <= r.status_code < 500 for r in responses)
    assert all(len(r.content) < 5_000 for r in responses)
    assert statistics.median(busy) < 3 * statistics.median(calm) + 0.5
    assert (await client.get("/health")).json()["status"] == "ok"
