"""A chat without a model answering with the user's imported tools: a read-only rate runs with
the currency the question names, a missing currency is named and nothing is sent, and adding a
to-do waits for `run` before the plugin sees it; an MCP server's read-only tool runs and its
note-filing tool waits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.mcp_quotes_server import CLOSES, NOTES, quotes_server
from support.platform_app import app_for, client_of, lmc_events, platform_settings
from support.tool_servers import RATES, todo_and_fx

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, Any, str, Any]]:
    with todo_and_fx() as services:
        yield services


async def test_offline_chat_calls_the_tool_the_question_names(
    store_url: str, servers: tuple[str, Any, str, Any]
) -> None:
    todo_base, todo, rates_base, rates = servers
    todo.state.todos.clear()
    settings = platform_settings(store_url).model_copy(
        update={
            "outbound_allow": [b.removeprefix("http://") for b in (todo_base, rates_base)],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
        }
    )
    async with client_of(app_for(settings)) as client:
        names = []
        for url in (f"{todo_base}/plugins/todo/ai-plugin.json", f"{rates_base}/spec.json"):
            added = await client.post("/api/v1/tools/sources", json={"url": url})
            assert added.status_code == 201, added.text
            names += [t["name"] for t in added.json()["tools"]]
        assistant = await client.post("/api/v1/assistants", json={"name": "Helper", "tools": names})
        assert assistant.status_code == 201, assistant.text
        chat = (
            await client.post("/api/v1/chats", json={"assistant_id": assistant.json()["id"]})
        ).json()["id"]

        async def ask(text: str) -> dict[str, Any]:
            sent = await client.post(
                f"/api/v1/chats/{chat}/messages", json={"content": text, "stream": False}
            )
            assert sent.status_code == 200, sent.text
            return dict(sent.json()["answer"])

        answer = await ask("What is the EUR exchange rate per USD?")
        assert rates.state.seen[-1] == ("/fx", {"currency": "EUR"})
        assert answer["status"] == "ok" and str(RATES["EUR"]) in answer["summary"]
        assert any("currency = question: EUR" in note for note in answer["notes"])
        # The words the data brain could not place are read by the tool now.
        read = {e["text"]: e["reading"] for e in answer["intent"]["ledger"]["entries"]}
        assert read["EUR"] == "tool" and "unread" not in read.values()

        chinese = await ask("日元汇率是多少？")
        assert rates.state.seen[-1] == ("/fx", {"currency": "JPY"})
        assert chinese["status"] == "ok" and str(RATES["JPY"]) in chinese["summary"]
        assert "返回" in chinese["summary"]

        seen = len(rates.state.seen)
        missing = await ask("What is the exchange rate?")
        assert missing["status"] == "no_data" and "`currency`: one of EUR" in missing["message"]
        assert len(rates.state.seen) == seen

        sent = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"content": "插入待办事项：买牛奶"}
        )
        asked = [c for c in lmc_events(sent.text) if c.get("type") == "confirmation"]
        assert len(asked) == 1 and asked[0]["content"]["arguments"] == {
            "操作": "插入",
            "事项": "买牛奶",
        }
        assert todo.state.todos == []  # it waits for the go-ahead
        ran = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"command": "run", "stream": False}
        )
        assert ran.status_code == 200, ran.text
        assert todo.state.todos == ["买牛奶"]


@pytest.fixture(scope="module")
def mcp_base() -> Iterator[str]:
    with live_server(quotes_server().streamable_http_app(), lifespan="on") as base:
        yield base


async def test_offline_chat_uses_mcp_tools(store_url: str, mcp_base: str) -> None:
    NOTES.clear()
    settings = platform_settings(store_url).model_copy(
        update={
            "outbound_allow": [mcp_base.removeprefix("http://")],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
        }
    )
    async with client_of(app_for(settings)) as client:
        added = await client.post(
            "/api/v1/tools/sources", json={"kind": "mcp", "url": f"{mcp_base}/mcp"}
        )
        assert added.status_code == 201, added.text
        names = [t["name"] for t in added.json()["tools"]]
        assistant = await client.post("/api/v1/assistants", json={"name": "Quotes", "tools": names})
        chat = (
            await client.post("/api/v1/chats", json={"assistant_id": assistant.json()["id"]})
        ).json()["id"]
        sent = await client.post(
            f"/api/v1/chats/{chat}/messages",
            json={"content": "daily closes of ZZQX, limit 3", "stream": False},
        )
        assert sent.status_code == 200, sent.text
        answer = sent.json()["answer"]
        assert answer["status"] == "ok", answer
        # The server's rows for limit 3, its first three closes, drawn as dated closes.
        (chart,) = answer["outputs"]
        assert chart["kind"] == "chart" and chart["chart_type"] == "line"
        assert [row[1] for row in chart["spec"]["rows"]] == CLOSES[:3]
        assert f"the MCP server mcp ({mcp_base}/mcp)" in answer["sources"][0]
        assert f"from {CLOSES[0]:.2f} on" in answer["summary"], answer["summary"]
        # Filing a note changes the server: it waits for the go-ahead.
        waiting = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"content": "file a note: call the broker"}
        )
        asked = [c for c in lmc_events(waiting.text) if c.get("type") == "confirmation"]
        assert len(asked) == 1 and asked[0]["content"]["arguments"] == {"text": "call the broker"}
        assert NOTES == []
        ran = await client.post(
            f"/api/v1/chats/{chat}/messages", json={"command": "run", "stream": False}
        )
        assert ran.status_code == 200, ran.text
        assert NOTES == ["call the broker"]
        # The confirmed call's answer is shown as one that ran at once: quoted with its source.
        done = ran.json()["answer"]
        assert done["status"] == "ok" and "call the broker" in done["summary"]
        assert f"({mcp_base}/mcp)" in done["summary"] and done["sources"], done
