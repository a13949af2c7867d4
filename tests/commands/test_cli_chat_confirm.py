"""`datapilot chat` when the model calls a tool that needs the user's go-ahead: the terminal
shows the tool, its arguments and why, and asks — y runs it, e edits the arguments first, n
cancels — answering through the same service as the REST route. On SQLite and PostgreSQL,
against a real to-do plugin on loopback and a scripted model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.live_server import LOOPBACK, live_server
from support.plugin_servers import plugin_app
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.settings import get_settings

pytestmark = LOOPBACK
TOOL = "ToDoList_todo"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    api = plugin_app()
    with live_server(api) as base:
        yield base, api


def todo_model(arguments: dict[str, Any]) -> Any:
    """Calls the to-do tool on each new human message, then repeats what the tool said."""

    def reply(request: ChatRequest) -> Reply:
        if request.response_format is not None:  # the memory pass: nothing to remember
            return Reply(content='{"operations": []}')
        results = [m for m in request.messages if m.get("role") == "tool"]
        if not results or request.messages[-1].get("role") == "user":
            call = {"id": f"c{len(request.messages)}", "name": TOOL}
            return Reply(
                tool_calls=[{**call, "arguments": json.dumps(arguments, ensure_ascii=False)}]
            )
        return Reply(content=f"tool said: {results[-1]['content']}")

    return reply


@pytest.fixture()
def cli(
    store_url: str, server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[CliRunner, ScriptedEndpoint]]:
    base, api = server
    api.state.todos.clear()
    with ScriptedEndpoint([Reply(content="hello")]) as endpoint:
        forget_endpoint_modes()
        for name, value in {
            "DATAPILOT_DATABASE_URL": store_url,
            "DATAPILOT_LLM_BASE_URL": endpoint.base_url,
            "DATAPILOT_LLM_MODEL": "scripted",
            "DATAPILOT_LLM_MAX_RETRIES": "0",
            "DATAPILOT_BRAIN": "offline",
            "DATAPILOT_OUTBOUND_ALLOW": base.removeprefix("http://"),
        }.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        runner = CliRunner()
        added = runner.invoke(app, ["tools", "add", f"{base}/plugins/todo/ai-plugin.json"])
        assert added.exit_code == 0, added.output
        made = runner.invoke(app, ["assistants", "create", "Helper", "--tools", TOOL])
        assert made.exit_code == 0, made.output
        yield runner, endpoint
    get_settings.cache_clear()


def test_chat_asks_before_a_consequential_call_and_runs_edits_or_cancels(
    cli: tuple[CliRunner, ScriptedEndpoint], server: tuple[str, Any]
) -> None:
    runner, endpoint = cli
    _, api = server
    endpoint.load(todo_model({"操作": "插入", "事项": "买牛奶"}))

    # Edit the arguments, then run: the edited call is the one that ran.
    edited = json.dumps({"操作": "插入", "事项": "买面包"}, ensure_ascii=False)
    first = runner.invoke(app, ["chat", "Helper"], input=f"记下买牛奶\ne\n{edited}\n\n")
    assert first.exit_code == 0, first.output
    assert TOOL in first.output and "POST" in first.output and "买牛奶" in first.output
    assert api.state.todos == ["买面包"]
    assert "tool said" in first.output and "1. 买面包" in first.output
    chat_id = first.output.strip().split("--chat ")[-1].strip()

    # Cancel: nothing is sent, and the terminal says so.
    second = runner.invoke(app, ["chat", "--chat", chat_id], input="再记一个\nn\n\n")
    assert second.exit_code == 0, second.output
    assert "did not run" in second.output and api.state.todos == ["买面包"]

    # A wrong answer and malformed JSON are asked again; then yes runs the call as proposed.
    third = runner.invoke(app, ["chat", "--chat", chat_id], input="第三个\nmaybe\ne\n{oops\ny\n\n")
    assert third.exit_code == 0, third.output
    assert "not JSON" in third.output and "Traceback" not in third.output
    assert "[y]es, [e]dit arguments, [n]o" in third.output
    assert api.state.todos == ["买面包", "买牛奶"]

    # Ending the input at the question leaves the call waiting; nothing ran.
    fourth = runner.invoke(app, ["chat", "--chat", chat_id], input="第四个\n")
    assert fourth.exit_code == 0, fourth.output
    assert api.state.todos == ["买面包", "买牛奶"]
