"""The OpenAI-compatible face honours every Chat Completions parameter or refuses it with a 400
naming it, sends its notice beside the answer, and delivers charts and tables as Markdown (the
`openai` SDK over the ASGI app; a scripted model endpoint where a model is needed)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import numpy as np
import openai
import pytest
from pydantic import BaseModel
from support.knowledge import ScriptedVectors, hashed_vector
from support.llm import LOOPBACK
from support.openai_face import apple_2021_closes, offline_app, sdk_for
from support.platform_app import (
    QUESTION,
    app_for,
    apple_2021_return_pct,
    client_of,
    key_for,
    platform_settings,
)

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK
ASK = [{"role": "user", "content": QUESTION}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


@pytest.fixture()
async def offline(tmp_path, data) -> AsyncIterator[openai.AsyncOpenAI]:  # type: ignore[no-untyped-def]
    app, key = offline_app(tmp_path)
    async for client in sdk_for(app, key):
        yield client


async def whole_answer(client: openai.AsyncOpenAI) -> str:
    reply = await client.chat.completions.create(model="datapilot", messages=ASK)  # type: ignore[arg-type]
    return reply.choices[0].message.content or ""


# --- the notice leaves the text ----------------------------------------------------------------


async def test_the_reply_is_the_answer_and_the_notice_travels_beside_it(offline) -> None:  # type: ignore[no-untyped-def]
    reply = await offline.chat.completions.create(model="datapilot", messages=ASK)
    content = reply.choices[0].message.content or ""
    assert f"{apple_2021_return_pct():.2f}%" in content
    assert "No model" not in content and "DATAPILOT_LLM" not in content
    assert "DATAPILOT_LLM_MODEL" in reply.model_extra["datapilot"]["notice"]  # type: ignore[index]


async def test_the_notice_speaks_the_questions_language(offline) -> None:  # type: ignore[no-untyped-def]
    question = "苹果2021年的收益率是多少？"
    reply = await offline.chat.completions.create(
        model="datapilot", messages=[{"role": "user", "content": question}]
    )
    notice = reply.model_extra["datapilot"]["notice"]  # type: ignore[index]
    assert "没有配置模型" in notice and "No model" not in notice
    assert "没有配置模型" not in (reply.choices[0].message.content or "")


async def test_a_stream_sends_the_notice_as_its_own_chunk(offline) -> None:  # type: ignore[no-untyped-def]
    stream = await offline.chat.completions.create(model="datapilot", messages=ASK, stream=True)
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    extras = [(c.model_extra or {}).get("datapilot") or {} for c in chunks]
    notices = [extra["message"] for extra in extras if extra.get("type") == "notice"]
    assert len(notices) == 1 and "DATAPILOT_LLM_MODEL" in notices[0]
    assert f"{apple_2021_return_pct():.2f}%" in text and "No model" not in text


# --- JSON replies without a model --------------------------------------------------------------


async def test_json_object_is_the_answer_as_json(offline) -> None:  # type: ignore[no-untyped-def]
    reply = await offline.chat.completions.create(
        model="datapilot", messages=ASK, response_format={"type": "json_object"}
    )
    answer = json.loads(reply.choices[0].message.content or "")
    assert answer["query"] == QUESTION and answer["status"] == "ok"
    assert f"{apple_2021_return_pct():.2f}%" in answer["summary"]


class Summary(BaseModel):
    query: str
    status: str
    summary: str


async def test_parse_fills_a_pydantic_model_from_the_answer(offline) -> None:  # type: ignore[no-untyped-def]
    reply = await offline.chat.completions.parse(
        model="datapilot", messages=ASK, response_format=Summary
    )
    parsed = reply.choices[0].message.parsed
    assert parsed is not None and parsed.query == QUESTION and parsed.status == "ok"
    assert f"{apple_2021_return_pct():.2f}%" in parsed.summary


async def test_a_schema_the_answer_cannot_fill_needs_a_model(offline) -> None:  # type: ignore[no-untyped-def]
    schema = {
        "type": "object",
        "properties": {"sentiment": {"type": "string"}},
        "required": ["sentiment"],
    }
    with pytest.raises(openai.BadRequestError) as caught:
        await offline.chat.completions.create(
            model="datapilot",
            messages=ASK,
            response_format={"type": "json_schema", "json_schema": {"name": "m", "schema": schema}},
        )
    assert caught.value.body["param"] == "response_format"  # type: ignore[index]
    assert "sentiment" in caught.value.message and "needs a model" in caught.value.message


async def test_a_schema_of_other_types_than_the_answers_needs_a_model(offline) -> None:  # type: ignore[no-untyped-def]
    schema = {
        "type": "object",
        "properties": {"summary": {"type": "integer"}},
        "required": ["summary"],
    }
    response_format = {"type": "json_schema", "json_schema": {"name": "m", "schema": schema}}
    with pytest.raises(openai.BadRequestError) as caught:
        await offline.chat.completions.create(
            model="datapilot", messages=ASK, response_format=response_format
        )
    assert caught.value.body["param"] == "response_format"  # type: ignore[index]
    assert "summary" in caught.value.message and "needs a model" in caught.value.message
    stream = await offline.chat.completions.create(
        model="datapilot", messages=ASK, response_format=response_format, stream=True
    )
    with pytest.raises(openai.APIError, match="needs a model"):  # the stream's error event
        [chunk async for chunk in stream]


# --- stop and max_tokens cut the text --------------------------------------------------------


async def test_stop_ends_the_text_before_the_sequence(offline) -> None:  # type: ignore[no-untyped-def]
    whole = await whole_answer(offline)
    reply = await offline.chat.completions.create(model="datapilot", messages=ASK, stop=["%"])
    assert reply.choices[0].message.content == whole[: whole.index("%")]
    assert reply.choices[0].finish_reason == "stop"
    stream = await offline.chat.completions.create(
        model="datapilot", messages=ASK, stop="%", stream=True
    )
    streamed = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert streamed == whole[: whole.index("%")]


@pytest.mark.parametrize("limit", ["max_tokens", "max_completion_tokens"])
async def test_a_token_limit_cuts_the_text_and_says_length(offline, limit: str) -> None:  # type: ignore[no-untyped-def]
    whole = await whole_answer(offline)
    reply = await offline.chat.completions.create(model="datapilot", messages=ASK, **{limit: 5})
    content = reply.choices[0].message.content or ""
    assert reply.choices[0].finish_reason == "length"
    assert content and whole.startswith(content) and len(content) < len(whole) / 4
    assert reply.usage is not None and reply.usage.completion_tokens <= 5


# --- what cannot be honoured is refused, naming it -------------------------------------------


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("n", 2),
        ("logprobs", True),
        ("top_logprobs", 3),
        ("temperature", 5),
        ("top_p", 1.5),
        ("stop", ["a", "b", "c", "d", "e"]),
        ("audio", {"voice": "alloy", "format": "wav"}),
        ("modalities", ["text", "audio"]),
        ("store", True),
        ("functions", [{"name": "f"}]),
        ("logit_bias", {"1": 5}),
        ("zorblax", 1),
    ],
)
async def test_what_cannot_be_honoured_is_a_400_naming_it(offline, param: str, value: Any) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(openai.BadRequestError) as caught:
        await offline.chat.completions.create(
            model="datapilot", messages=ASK, extra_body={param: value}
        )
    error = caught.value.body
    assert isinstance(error, dict) and error["param"] == param, error
    assert error["type"] == "invalid_request_error" and param in error["message"]


async def test_a_forced_tool_needs_a_model_and_auto_answers_from_data(offline) -> None:  # type: ignore[no-untyped-def]
    named = {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("required", named):
        with pytest.raises(openai.BadRequestError) as caught:
            await offline.chat.completions.create(
                model="datapilot",
                messages=ASK,
                tools=[WEATHER],  # type: ignore[list-item]
                tool_choice=choice,  # type: ignore[arg-type]
            )
        assert caught.value.body["param"] == "tool_choice"  # type: ignore[index]
        assert "needs a model" in caught.value.message
    reply = await offline.chat.completions.create(
        model="datapilot",
        messages=ASK,
        tools=[WEATHER],  # type: ignore[list-item]
        tool_choice="auto",
    )
    assert f"{apple_2021_return_pct():.2f}%" in (reply.choices[0].message.content or "")


# --- models, embeddings and the error shape --------------------------------------------------


async def test_a_model_is_retrieved_by_id(offline) -> None:  # type: ignore[no-untyped-def]
    assert (await offline.models.retrieve("datapilot")).id == "datapilot"
    with pytest.raises(openai.NotFoundError) as caught:
        await offline.models.retrieve("gpt-9")
    assert caught.value.body["code"] == "model_not_found"  # type: ignore[index]


async def test_embeddings_without_an_endpoint_say_how_to_configure_one(offline) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(openai.NotFoundError) as caught:
        await offline.embeddings.create(model="text-embedding-3-small", input="apple")
    assert "DATAPILOT_EMBEDDINGS_BASE_URL" in caught.value.message
    assert caught.value.body["code"] == "embeddings_not_configured"  # type: ignore[index]


async def test_embeddings_come_from_the_configured_endpoint(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    texts = ["apple stock price", "treasury bill yield"]
    with ScriptedVectors().running() as vectors:
        app, key = offline_app(
            tmp_path, embeddings_base_url=vectors.base_url, embeddings_model="vec"
        )
        async for client in sdk_for(app, key):
            floats = await client.embeddings.create(
                model="vec", input=texts, encoding_format="float"
            )
            packed = await client.embeddings.create(model="vec", input=texts)  # base64
    for reply in (floats, packed):
        for text, item in zip(texts, reply.data, strict=True):
            expected = np.array(hashed_vector(text))
            expected /= np.linalg.norm(expected)  # OpenAI's vectors are unit length
            assert np.allclose(item.embedding, expected, atol=1e-6)


async def test_every_error_of_the_face_is_in_openais_shape(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    app, key = offline_app(tmp_path, max_body_mb=0.05)
    big = json.dumps({"model": "datapilot", "messages": ASK, "user": "x" * 100_000})
    async with client_of(app) as anonymous, client_of(app, key) as keyed:
        responses = {
            "no key": await anonymous.get("/v1/models"),
            "wrong key": await client_of_key(app, "dp-wrong").get("/v1/models"),
            "no route": await keyed.get("/v1/nothing"),
            "wrong method": await keyed.get("/v1/chat/completions"),
            "too large": await keyed.post(
                "/v1/chat/completions", content=big, headers={"content-type": "application/json"}
            ),
        }
        openbb = await keyed.post("/v1/query", json={})
    expected = {
        "no key": 401,
        "wrong key": 401,
        "no route": 404,
        "wrong method": 405,
        "too large": 413,
    }
    for case, response in responses.items():
        error = response.json()["error"]
        assert response.status_code == expected[case], (case, response.text)
        assert set(error) == {"message", "type", "param", "code"} and error["message"], case
    assert "error" not in openbb.json()  # OpenBB's agent route under /v1 keeps its shape


def client_of_key(app: Any, key: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers)


# --- charts and tables reach standard clients ------------------------------------------------


async def test_charts_arrive_as_png_links_and_tables_as_markdown(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    app, key = offline_app(tmp_path)
    async for client in sdk_for(app, key):
        reply = await client.chat.completions.create(model="datapilot", messages=ASK)
    content = reply.choices[0].message.content or ""
    links = re.findall(r"!\[[^\]]+\]\((http://testserver/charts/[\w-]+\.png)\)", content)
    assert links, content
    async with client_of(app, key) as http:
        png = await http.get(links[0])
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    start, end = apple_2021_closes()
    row = next(line for line in content.splitlines() if line.startswith("| AAPL |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    numbers = [float(cell) for cell in cells if re.fullmatch(r"-?\d+(\.\d+)?", cell)]
    assert numbers == pytest.approx([start, end, apple_2021_return_pct()], abs=0.006)


# --- with a model, the parameters are forwarded ----------------------------------------------


async def with_model(tmp_path, script: Any, **create: Any) -> tuple[Any, list[ChatRequest]]:  # type: ignore[no-untyped-def]
    tmp_path.mkdir(exist_ok=True)
    with ScriptedEndpoint(script) as endpoint:
        app = app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint))
        key = key_for(app.state.store, "ana")
        async with client_of(app, key) as http:
            made = await http.post("/api/v1/assistants", json={"name": "Analyst"})
        async for client in sdk_for(app, key):
            reply = await client.chat.completions.create(
                model=made.json()["id"], messages=ASK, **create
            )
    return reply, endpoint.requests


async def test_the_clients_parameters_reach_the_model(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    reply, requests = await with_model(
        tmp_path,
        [Reply(content='{"ok": true}')],
        max_tokens=70,
        stop=["END"],
        seed=11,
        top_p=0.5,
        presence_penalty=0.1,
        tools=[WEATHER],
        tool_choice="none",
        response_format={"type": "json_object"},
    )
    sent = requests[0].body
    assert sent["max_tokens"] == 70 and sent["stop"] == ["END"] and sent["seed"] == 11
    assert sent["top_p"] == 0.5 and sent["presence_penalty"] == 0.1
    assert sent["tool_choice"] == "none" and sent["response_format"] == {"type": "json_object"}
    assert reply.choices[0].message.content == '{"ok": true}'  # JSON: no Markdown appended


async def test_a_reply_cut_at_the_clients_limit_is_length_not_an_error(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    reply, _ = await with_model(
        tmp_path, [Reply(content="Apple returned", finish_reason="length")], max_tokens=3
    )
    assert reply.choices[0].message.content == "Apple returned"
    assert reply.choices[0].finish_reason == "length"


async def test_a_forced_tool_choice_holds_for_the_first_call_only(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    def model(request: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in request.messages):
            arguments = json.dumps({"question": QUESTION})
            return Reply(tool_calls=[{"id": "a1", "name": "ask_data", "arguments": arguments}])
        return Reply(content="Apple returned what the table says.")

    reply, requests = await with_model(tmp_path, model, tools=[WEATHER], tool_choice="required")
    assert requests[0].body["tool_choice"] == "required"
    assert "tool_choice" not in requests[1].body  # the answer after the tool's result is free
    assert reply.choices[0].finish_reason == "stop"
    assert "/charts/" in (reply.choices[0].message.content or "")  # the tool's chart, as a link


async def test_n_choices_with_a_model_are_n_replies(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    answers = iter(["First view.", "Second view."])

    def model(request: ChatRequest) -> Reply:
        return Reply(content=next(answers))

    reply, requests = await with_model(tmp_path, model, n=2)
    assert len(requests) == 2
    contents = sorted(choice.message.content or "" for choice in reply.choices)
    assert contents == ["First view.", "Second view."]
    assert sorted(choice.index for choice in reply.choices) == [0, 1]
    with pytest.raises(openai.BadRequestError) as caught:
        await with_model(tmp_path / "stream", [Reply(content="x")], n=2, stream=True)
    assert caught.value.body["param"] == "n"  # type: ignore[index]
