"""`datapilot ask` without a model tries the user's imported tools on a question the data brain
cannot answer: the rate comes from the FX service with the currency the question names (English
and Chinese), a missing currency is named and nothing is sent, a to-do that would change the
plugin is not added (the answer says how to add it), and a question the brain answers never
reads the store."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from support.live_server import LOOPBACK
from support.tool_servers import RATES, todo_and_fx
from typer.testing import CliRunner

import datapilot.commands.local_tools as local_tools
from datapilot.cli import app
from datapilot.settings import get_settings

pytestmark = LOOPBACK
TODAY = ["--today", "2026-11-27"]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, Any, str, Any]]:
    with todo_and_fx() as services:
        yield services


@pytest.fixture()
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servers: tuple[str, Any, str, Any]
) -> Iterator[CliRunner]:
    """The local user's store with the FX service and the to-do plugin imported."""
    todo_base, todo, rates_base, _ = servers
    todo.state.todos.clear()
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    allowed = ",".join(base.removeprefix("http://") for base in (todo_base, rates_base))
    monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", allowed)
    monkeypatch.setenv("DATAPILOT_SECRET_KEY", Fernet.generate_key().decode())
    get_settings.cache_clear()
    runner = CliRunner()
    for url in (f"{rates_base}/spec.json", f"{todo_base}/plugins/todo/ai-plugin.json"):
        added = runner.invoke(app, ["tools", "add", url])
        assert added.exit_code == 0, added.output
    yield runner
    get_settings.cache_clear()


def ask_json(cli: CliRunner, question: str, code: int) -> dict[str, Any]:
    result = cli.invoke(app, ["ask", question, "--json", *TODAY])
    assert result.exit_code == code, result.output
    return dict(json.loads(result.stdout))


def test_an_fx_question_is_answered_by_the_imported_service(
    cli: CliRunner, servers: tuple[str, Any, str, Any]
) -> None:
    rates = servers[3]
    answer = ask_json(cli, "What is the EUR exchange rate per USD?", 0)
    assert rates.state.seen[-1] == ("/fx", {"currency": "EUR"})
    assert answer["status"] == "ok" and str(RATES["EUR"]) in answer["summary"]

    # The terminal view shows the service's rate too; in Chinese, 日元 is JPY on the server.
    shown = cli.invoke(app, ["ask", "美元兑日元汇率是多少？", *TODAY])
    assert shown.exit_code == 0, shown.output
    assert rates.state.seen[-1] == ("/fx", {"currency": "JPY"})
    assert str(RATES["JPY"]) in shown.stdout

    # --code has no script to print for a tool's answer: it says so and gives the answer.
    coded = cli.invoke(app, ["ask", "What is the GBP exchange rate per USD?", "--code", *TODAY])
    assert coded.exit_code == 3 and coded.stdout == ""
    assert rates.state.seen[-1] == ("/fx", {"currency": "GBP"})
    assert "No script" in coded.stderr and str(RATES["GBP"]) in coded.stderr


def test_a_missing_currency_is_named_and_nothing_is_sent(
    cli: CliRunner, servers: tuple[str, Any, str, Any]
) -> None:
    rates = servers[3]
    seen = len(rates.state.seen)
    answer = ask_json(cli, "What is the exchange rate?", 3)
    assert answer["status"] == "no_data"
    assert "`currency`: one of EUR, GBP, JPY" in answer["message"]
    assert len(rates.state.seen) == seen


def test_a_todo_is_not_added_without_confirmation(
    cli: CliRunner, servers: tuple[str, Any, str, Any]
) -> None:
    todo = servers[1]
    answer = ask_json(cli, "插入待办事项：买牛奶", 3)
    assert todo.state.todos == [] and not [s for s in todo.state.seen if s[1] == "/run"]
    message = answer["message"]
    # The command the answer gives adds the to-do when the user runs it.
    command = re.search(r"`(datapilot tools call [^`]+)`", message)
    assert command is not None, message
    words = shlex.split(command.group(1))
    assert json.loads(words[-1]) == {"操作": "插入", "事项": "买牛奶"}
    ran = cli.invoke(app, words[1:])
    assert ran.exit_code == 0, ran.output
    assert todo.state.todos == ["买牛奶"]

    # Once the user trusts the operation, `ask` runs it.
    trusted = cli.invoke(app, ["tools", "trust", "ToDoList.todo"])
    assert trusted.exit_code == 0, trusted.output
    done = ask_json(cli, "插入待办事项：买面包", 0)
    assert todo.state.todos == ["买牛奶", "买面包"] and done["status"] == "ok"


def test_the_store_is_read_only_when_the_brain_could_not_answer(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[str] = []
    real = local_tools.local_tools

    def counted(request: Any) -> dict[str, Any]:
        calls.append(request.question.today.isoformat())
        return real(request)

    monkeypatch.setattr(local_tools, "local_tools", counted)
    answered = ask_json(cli, "Apple closing price in 2020", 0)
    assert answered["status"] == "ok" and calls == []
    ask_json(cli, "What is the EUR exchange rate per USD?", 0)
    assert len(calls) == 1

    # No store yet: asking does not create one to look for tools.
    absent = tmp_path / "none" / "store.sqlite3"
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{absent}")
    get_settings.cache_clear()
    unanswered = ask_json(cli, "What is the EUR exchange rate per USD?", 3)
    assert unanswered["status"] == "no_data" and not absent.parent.exists()
