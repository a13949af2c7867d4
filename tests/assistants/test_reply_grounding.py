"""A data chat never shows a model's own figures: a sentence quoting a number the turn's data
does not hold is left out (marked, and named in a note in the user's language); a reply made only
of such figures, without a tool call, gives way to the data's answer. Expected figures come from
skfolio's shipped prices with pandas (support.platform_app)."""

from __future__ import annotations

import json

import pytest
from support.llm import LOOPBACK
from support.platform_app import (
    QUESTION,
    app_for,
    apple_2021_return_pct,
    client_of,
    lmc_events,
    platform_settings,
)

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK

INVENTED = "5.3%"


@pytest.fixture()
def endpoint():  # type: ignore[no-untyped-def]
    with ScriptedEndpoint([]) as served:
        yield served


@pytest.fixture()
def app(tmp_path, endpoint, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}", endpoint))


def shown(text: str) -> str:
    return "".join(
        c["content"]
        for c in lmc_events(text)
        if c.get("role") == "assistant" and c.get("type") == "message" and c.get("content")
    )


def notes(text: str) -> list[str]:
    answer = next(c for c in lmc_events(text) if c.get("type") == "answer")["content"]
    return list(answer["notes"])


async def ask(app, question: str) -> tuple[str, dict]:  # type: ignore[no-untyped-def,type-arg]
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()["id"]
        sent = await client.post(f"/api/v1/chats/{chat}/messages", json={"content": question})
        stored = (await client.get(f"/api/v1/chats/{chat}/messages")).json()
    return sent.text, stored[-1]


async def test_a_reply_of_invented_figures_without_a_tool_call_gives_way_to_the_data(
    app, endpoint
) -> None:  # type: ignore[no-untyped-def]
    endpoint.load(lambda request: Reply(content=f"Apple returned {INVENTED} in 2021."))
    text, stored = await ask(app, QUESTION)
    expected = f"{apple_2021_return_pct():.2f}%"
    assert expected in shown(text)
    assert expected in stored["content"] and INVENTED not in stored["content"]


async def test_an_invented_sentence_after_a_tool_call_is_left_out_and_named(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    expected = f"{apple_2021_return_pct():.2f}%"

    def model(request: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in request.messages):
            arguments = json.dumps({"question": QUESTION})
            return Reply(tool_calls=[{"id": "c1", "name": "ask_data", "arguments": arguments}])
        return Reply(
            content=f"Apple returned {expected} in 2021. The S&P 500 gained 123.45% that year. "
            "The table has the closes."
        )

    endpoint.load(model)
    text, stored = await ask(app, QUESTION)
    reply = shown(text)
    assert f"Apple returned {expected} in 2021." in reply
    assert "The table has the closes." in reply  # sentences without figures stream on
    assert "123.45" not in reply and "123.45" not in stored["content"]
    assert any("123.45%" in note and "not found in the data" in note for note in notes(text))


async def test_the_note_speaks_chinese_to_a_chinese_question(app, endpoint) -> None:  # type: ignore[no-untyped-def]
    question = "苹果公司2021年的回报率是多少？"

    def model(request: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in request.messages):
            arguments = json.dumps({"question": question})
            return Reply(tool_calls=[{"id": "c1", "name": "ask_data", "arguments": arguments}])
        return Reply(content="苹果2021年上涨了77.77%。")

    endpoint.load(model)
    text, stored = await ask(app, question)
    assert "77.77" not in shown(text) and "77.77" not in stored["content"]
    # Nothing of the reply could be shown: the data's own summary stands in, with its figure.
    assert f"{apple_2021_return_pct():.2f}%" in stored["content"]
    assert any("77.77%" in note and "不在数据结果中" in note for note in notes(text))
