"""Memory through the platform, on SQLite and PostgreSQL: explicit statements offline, the model's
ADD / UPDATE / DELETE events (malformed replies included), the audit, the switches (per
assistant, for the OpenAI-compatible API, guests) and one user never seeing another's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.llm import LOOPBACK
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.assistants.context import SUMMARY_PROMPT
from datapilot.assistants.memory import explicit
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint


async def send(client: Any, chat_id: str, text: str) -> dict[str, Any]:
    sent = await client.post(
        f"/api/v1/chats/{chat_id}/messages", json={"content": text, "stream": False}
    )
    assert sent.status_code == 200, sent.text
    return sent.json()


def reply_of(body: dict[str, Any]) -> str:
    return body["replies"][-1]["content"]


@pytest.mark.parametrize(
    ("text", "action", "kept"),
    [
        ("Remember that I hold AAPL and MSFT.", "remember", "I hold AAPL and MSFT"),
        ("please remember: report in CNY", "remember", "report in CNY"),
        ("记住：报告用人民币。", "remember", "报告用人民币"),
        ("forget about my MSFT position", "forget", "my MSFT position"),
        ("忘记我持有的苹果股票", "forget", "我持有的苹果股票"),
        ("How did Apple do in 2021?", None, None),
        ("Do you remember Apple's 2021 return?", None, None),
    ],
)
def test_explicit_statements_are_recognised(text: str, action: str | None, kept: str) -> None:
    command = explicit(text)
    assert (command.action if command else None) == action
    if command:
        assert command.text == kept


async def test_explicit_memory_offline(store_url: str) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        first = await send(client, chat["id"], "Remember that I hold AAPL and MSFT")
        second = await send(client, chat["id"], "记住：报告用人民币")
        listed = (await client.get("/api/v1/memories")).json()
        forgot = await send(client, chat["id"], "forget that I hold AAPL")
        after = (await client.get("/api/v1/memories")).json()
        missing = await send(client, chat["id"], "forget my bond ladder")
        everything = await send(client, chat["id"], "忘记所有")
        empty = (await client.get("/api/v1/memories")).json()
        events = (await client.get("/api/v1/memories/events")).json()

    assert "I will remember: I hold AAPL and MSFT" in reply_of(first)
    assert reply_of(second).startswith("好的，我记住了：报告用人民币")  # answered in Chinese
    assert [m["text"] for m in listed] == ["I hold AAPL and MSFT", "报告用人民币"]
    assert "I forgot: I hold AAPL and MSFT" in reply_of(forgot)
    assert [m["text"] for m in after] == ["报告用人民币"]
    assert "nothing in memory matching" in reply_of(missing)
    assert reply_of(everything).startswith("好的，我已忘记")
    assert empty == []
    assert [(e["event"], e["text"], e["source"]) for e in events] == [
        ("ADD", "I hold AAPL and MSFT", "explicit"),
        ("ADD", "报告用人民币", "explicit"),
        ("DELETE", "I hold AAPL and MSFT", "explicit"),
        ("DELETE", "报告用人民币", "explicit"),
    ]
    assert all(e["chat_id"] == chat["id"] for e in events[:3])


async def test_memory_routes_delete_and_keep_users_apart(store_url: str) -> None:
    app = app_for(platform_settings(store_url))
    alice, bob = key_for(app.state.store, "alice"), key_for(app.state.store, "bob")
    async with client_of(app, alice) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        for text in ("remember I hold AAPL", "remember I prefer CNY", "remember my horizon is 5y"):
            await send(client, chat["id"], text)
        mine = (await client.get("/api/v1/memories")).json()
    async with client_of(app, bob) as client:
        theirs = (await client.get("/api/v1/memories")).json()
        stolen = await client.delete(f"/api/v1/memories/{mine[0]['id']}")
        wiped = (await client.delete("/api/v1/memories")).json()
        bob_events = (await client.get("/api/v1/memories/events")).json()
    async with client_of(app, alice) as client:
        one = await client.delete(f"/api/v1/memories/{mine[0]['id']}")
        again = await client.delete(f"/api/v1/memories/{mine[0]['id']}")
        left = (await client.get("/api/v1/memories")).json()
        wiped_mine = (await client.delete("/api/v1/memories")).json()
        events = (await client.get("/api/v1/memories/events")).json()

    assert len(mine) == 3 and theirs == [] and bob_events == []
    assert stolen.status_code == 404 and wiped == {"deleted": 0}
    assert one.status_code == 204
    assert again.status_code == 404 and "GET /api/v1/memories" in again.json()["detail"]
    assert [m["text"] for m in left] == ["I prefer CNY", "my horizon is 5y"]
    assert wiped_mine == {"deleted": 2}
    assert [e["event"] for e in events] == ["ADD", "ADD", "ADD", "DELETE", "DELETE", "DELETE"]


async def test_a_disabled_assistant_neither_stores_nor_reads(store_url: str) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app) as client:
        quiet = (
            await client.post("/api/v1/assistants", json={"name": "Quiet", "disable_memory": True})
        ).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": quiet["id"]})).json()
        body = await send(client, chat["id"], "remember I hold TSLA")
        listed = (await client.get("/api/v1/memories")).json()
    assert listed == []
    assert "I will remember" not in reply_of(body)  # the offline brain answered instead


# --- with a scripted model ------------------------------------------------------------------


def is_summary(request: ChatRequest) -> bool:
    """The rolling summary's request (every model turn streams now, so its prompt tells it)."""
    return request.messages[0].get("content") == SUMMARY_PROMPT


class Model:
    """A scripted model: memory extraction replies in order, summaries, and chat replies that
    echo what the system prompt says the user holds."""

    def __init__(self, extractions: list[str]) -> None:
        self.extractions = extractions
        self.served = 0
        self.turns: list[ChatRequest] = []
        self.extraction_requests: list[ChatRequest] = []

    def __call__(self, request: ChatRequest) -> Reply:
        if request.response_format is not None:
            self.extraction_requests.append(request)
            n, self.served = self.served, self.served + 1
            return Reply(content=self.extractions[n] if n < len(self.extractions) else "{}")
        if is_summary(request):
            return Reply(content="summary")
        self.turns.append(request)
        return Reply(content="Understood.")


def events_json(*events: dict[str, Any]) -> str:
    return json.dumps({"events": list(events)}, ensure_ascii=False)


@pytest.fixture()
def endpoint():  # type: ignore[no-untyped-def]
    with ScriptedEndpoint([Reply(content="hello")]) as served:
        yield served


@LOOPBACK[0]
@LOOPBACK[1]
async def test_the_model_adds_updates_and_deletes_memories(
    store_url: str, endpoint: ScriptedEndpoint
) -> None:
    model = Model(
        [
            events_json({"event": "ADD", "text": "I hold 300 NVDA shares"}),
            events_json({"event": "UPDATE", "id": 1, "text": "I hold 500 NVDA shares"}),
            "Sure! I noted that.",  # malformed: no JSON at all
            events_json(
                {"event": "ADD", "text": "用户偏好用人民币报告"},
                {"event": "EXPLODE", "id": 1},  # malformed event: skipped alone
                {"event": "UPDATE", "id": 9, "text": "a memory it was never shown"},
                {"event": "NONE"},
            ),
            events_json({"event": "DELETE", "id": 1}),
        ]
    )
    endpoint.load(model)
    app = app_for(platform_settings(store_url, endpoint))
    async with client_of(app) as client:
        chat = (await client.post("/api/v1/chats", json={})).json()
        await send(client, chat["id"], "I bought 300 NVDA shares today.")
        await send(client, chat["id"], "I added 200 more NVDA.")
        await send(client, chat["id"], "Nice weather.")
        after_malformed = (await client.get("/api/v1/memories")).json()
        await send(client, chat["id"], "以后请用人民币报告。")
        middle = (await client.get("/api/v1/memories")).json()
        await send(client, chat["id"], "I sold all my NVDA.")
        final = (await client.get("/api/v1/memories")).json()
        events = (await client.get("/api/v1/memories/events")).json()

    assert [m["text"] for m in after_malformed] == ["I hold 500 NVDA shares"]
    assert {m["text"] for m in middle} == {"I hold 500 NVDA shares", "用户偏好用人民币报告"}
    assert [m["text"] for m in final] == ["用户偏好用人民币报告"]
    assert [(e["event"], e["text"], e["previous"]) for e in events] == [
        ("ADD", "I hold 300 NVDA shares", None),
        ("UPDATE", "I hold 500 NVDA shares", "I hold 300 NVDA shares"),
        ("ADD", "用户偏好用人民币报告", None),
        ("DELETE", "I hold 500 NVDA shares", None),
    ]
    assert {e["source"] for e in events} == {"model"}
    # The model was shown the user's memories when reconciling, and the exchange itself.
    shown = model.extraction_requests[1].messages[-1]["content"]
    assert "1. I hold 300 NVDA shares" in shown and "200 more NVDA" in shown
    # Later turns carry the memories in their system prompt; a Chinese question, a Chinese heading.
    assert "I hold 500 NVDA shares" in model.turns[2].messages[0]["content"]
    assert "你记得以下内容" in model.turns[3].messages[0]["content"]


@LOOPBACK[0]
@LOOPBACK[1]
async def test_memory_switches_with_a_model(store_url: str, endpoint: ScriptedEndpoint) -> None:
    model = Model([events_json({"event": "ADD", "text": "I hold GOOG"})] * 10)
    endpoint.load(model)
    app = app_for(platform_settings(store_url, endpoint))
    async with client_of(app) as client:
        quiet = (
            await client.post("/api/v1/assistants", json={"name": "Quiet", "disable_memory": True})
        ).json()
        chat = (await client.post("/api/v1/chats", json={"assistant_id": quiet["id"]})).json()
        await send(client, chat["id"], "I hold GOOG.")
        disabled = (await client.get("/api/v1/memories")).json()
        extractions_while_disabled = len(model.extraction_requests)
        await client.post("/api/v1/chats", json={})
        open_chat = (await client.post("/api/v1/chats", json={})).json()
        await send(client, open_chat["id"], "remember I hold AMZN")
        await send(client, chat["id"], "What do I hold?")  # the disabled assistant again
        enabled = (await client.get("/api/v1/memories")).json()

    assert disabled == [] and extractions_while_disabled == 0
    assert sorted(m["text"] for m in enabled) == ["I hold AMZN", "I hold GOOG"]
    assert "AMZN" not in model.turns[-1].messages[0]["content"]  # not read when disabled


@LOOPBACK[0]
@LOOPBACK[1]
async def test_memory_for_the_openai_api_only_when_enabled(
    store_url: str, endpoint: ScriptedEndpoint
) -> None:
    model = Model([events_json(), events_json({"event": "ADD", "text": "I hold META"})])
    endpoint.load(model)
    app = app_for(platform_settings(store_url, endpoint))
    key = key_for(app.state.store, "carol")
    question = {"messages": [{"role": "user", "content": "I hold META."}]}
    async with client_of(app, key) as client:
        for name, enabled in (("Plain", False), ("Api", True)):
            await client.post(
                "/api/v1/assistants", json={"name": name, "enable_memory_for_api": enabled}
            )
        chat = (await client.post("/api/v1/chats", json={})).json()
        await send(client, chat["id"], "remember I report in EUR")
        model.extraction_requests.clear()
        plain = await client.post("/v1/chat/completions", json={"model": "Plain", **question})
        after_plain = (await client.get("/api/v1/memories")).json()
        plain_system = model.turns[-1].messages[0]["content"]
        api = await client.post("/v1/chat/completions", json={"model": "Api", **question})
        after_api = (await client.get("/api/v1/memories")).json()
        api_system = model.turns[-1].messages[0]["content"]

    assert plain.status_code == 200 and api.status_code == 200, api.text
    assert [m["text"] for m in after_plain] == ["I report in EUR"]
    assert "I report in EUR" not in plain_system
    assert "I report in EUR" in api_system
    assert sorted(m["text"] for m in after_api) == ["I hold META", "I report in EUR"]
    assert len(model.extraction_requests) == 1  # only the enabled assistant's call


def test_guests_have_no_memory() -> None:
    from datapilot.assistants.memory import memory_on
    from datapilot.assistants.models import Tenant

    assert not memory_on(None, Tenant(guest_id="g1"))
    assert memory_on(None, Tenant(user_id="u1"))
    assert not memory_on(None, Tenant(user_id="u1"), api=True)
