"""The published `ask` without a model tries the asker's own imported tools when the data cannot
answer, over MCP (`/mcp`, Streamable HTTP) and the plugin's `POST /run`: the key's owner's tools,
never another user's. The rate comes from the service (the currency asserted on its side), in
English and Chinese; adding a to-do is not sent, and the answer says how to run it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from support.live_server import LOOPBACK, live_server
from support.mcp_ask import (
    ADD_TODO,
    EUR_QUESTION,
    JPY_QUESTION,
    ask,
    import_sources,
    tool_settings,
)
from support.platform_app import app_for, client_of, key_for
from support.tool_servers import RATES, todo_and_fx

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, Any, str, Any]]:
    with todo_and_fx() as services:
        yield services


async def test_mcp_ask_calls_the_callers_tools_and_no_one_elses(
    tmp_path: Path, data: Any, servers: tuple[str, Any, str, Any]
) -> None:
    todo_base, todo, rates_base, rates = servers
    todo.state.todos.clear()
    rates.state.seen.clear()
    app = app_for(tool_settings(tmp_path, (todo_base, rates_base)))
    keys = {name: key_for(app.state.store, name) for name in ("ana", "bo")}
    await import_sources(
        app, keys["ana"], [f"{rates_base}/spec.json", f"{todo_base}/plugins/todo/ai-plugin.json"]
    )
    with live_server(app) as url:

        async def ask_as(name: str, question: str) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {keys[name]}"}
            async with (
                httpx2.AsyncClient(timeout=120, headers=headers) as http,
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
            ):
                return await ask(client, question)

        # Bo imported nothing: Ana's service is never called for him.
        others = await ask_as("bo", EUR_QUESTION)
        assert rates.state.seen == []
        assert others["status"] != "ok" and str(RATES["EUR"]) not in others["answer"]

        english = await ask_as("ana", EUR_QUESTION)
        assert rates.state.seen == [("/fx", {"currency": "EUR"})]
        assert english["status"] == "ok" and str(RATES["EUR"]) in english["answer"]

        chinese = await ask_as("ana", JPY_QUESTION)
        assert rates.state.seen[-1] == ("/fx", {"currency": "JPY"})
        assert chinese["status"] == "ok" and str(RATES["JPY"]) in chinese["answer"]

        added = await ask_as("ana", ADD_TODO)
        assert todo.state.todos == []
        assert "datapilot tools call" in added["answer"] and "买牛奶" in added["answer"]

        again = await ask_as("bo", JPY_QUESTION)
        assert len(rates.state.seen) == 2 and str(RATES["JPY"]) not in again["answer"]


async def test_run_ask_calls_the_callers_tools_and_no_one_elses(
    tmp_path: Path, data: Any, servers: tuple[str, Any, str, Any]
) -> None:
    _, _, rates_base, rates = servers
    rates.state.seen.clear()
    app = app_for(tool_settings(tmp_path, (rates_base,)))
    keys = {name: key_for(app.state.store, name) for name in ("ana", "bo")}
    await import_sources(app, keys["ana"], [f"{rates_base}/spec.json"])

    async def run_as(name: str, question: str) -> dict[str, Any]:
        async with client_of(app, keys[name]) as client:
            answered = await client.post("/run", json={"query": question})
        assert answered.status_code == 200, answered.text
        return dict(answered.json())

    others = await run_as("bo", EUR_QUESTION)
    assert rates.state.seen == []
    assert others["status"] != "ok" and str(RATES["EUR"]) not in others["answer"]

    english = await run_as("ana", EUR_QUESTION)
    chinese = await run_as("ana", JPY_QUESTION)
    assert rates.state.seen == [("/fx", {"currency": "EUR"}), ("/fx", {"currency": "JPY"})]
    assert english["status"] == "ok" and str(RATES["EUR"]) in english["answer"]
    assert chinese["status"] == "ok" and str(RATES["JPY"]) in chinese["answer"]
