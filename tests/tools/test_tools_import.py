"""Importing OpenAPI documents and ai-plugin.json manifests as tools, against real loopback
servers: the Qianfan sample plugins (the to-do list with Chinese property names, also exactly as
published with its typos), a research API with `$ref` cycles, `allOf`, path/query/header/body
parameters and bearer auth, and a Swagger 2 document; through `datapilot tools …`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cryptography.fernet import Fernet
from support import paths
from support.live_server import LOOPBACK, live_server
from support.plugin_servers import PRICES, TOKEN, plugin_app
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.settings import get_settings
from datapilot.tools.openapi import load_text
from datapilot.tools.schema import has_ref
from datapilot.tools.sources import SourceIn, read_openapi

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    api = plugin_app()
    with live_server(api) as base:
        yield base, api


@pytest.fixture()
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: tuple[str, Any]
) -> Iterator[CliRunner]:
    base, _ = server
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", base.removeprefix("http://"))
    monkeypatch.setenv("DATAPILOT_SECRET_KEY", Fernet.generate_key().decode())
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def run(cli: CliRunner, *args: str) -> str:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_todo_plugin_imports_and_calls_with_chinese_arguments(
    cli: CliRunner, server: tuple[str, Any]
) -> None:
    base, api = server
    api.state.todos.clear()
    added = run(cli, "tools", "add", f"{base}/plugins/todo/ai-plugin.json")
    assert "ToDoList" in added and "ToDoList.todo" in added and "problem" not in added
    run(cli, "tools", "call", "ToDoList.todo", '{"操作": "插入", "事项": "买牛奶"}')
    listed = run(cli, "tools", "call", "ToDoList.todo", '{"操作": "查询"}')
    assert json.loads(listed) == {"result": "1. 买牛奶"}
    # The request the server received carried the Chinese property names as JSON.
    assert api.state.seen[-1][3] == {"操作": "查询"}


def test_invalid_arguments_name_the_field_and_send_nothing(
    cli: CliRunner, server: tuple[str, Any]
) -> None:
    base, api = server
    run(cli, "tools", "add", f"{base}/plugins/todo/ai-plugin.json")
    before = len(api.state.seen)
    missing = cli.invoke(app, ["tools", "call", "ToDoList.todo", '{"事项": "x"}'])
    assert missing.exit_code != 0 and "操作" in missing.output
    wrong = cli.invoke(app, ["tools", "call", "ToDoList.todo", '{"操作": 3}'])
    assert wrong.exit_code != 0 and "操作" in wrong.output and "string" in wrong.output
    typo = cli.invoke(app, ["tools", "call", "ToDoList.todo", '{"操作": "查询", "事情": "x"}'])
    assert typo.exit_code != 0 and "事情" in typo.output
    not_json = cli.invoke(app, ["tools", "call", "ToDoList.todo", "{操作"])
    assert not_json.exit_code != 0 and "JSON" in not_json.output
    assert len(api.state.seen) == before


def test_todo_as_published_imports_what_it_can_and_names_each_problem(
    cli: CliRunner, server: tuple[str, Any]
) -> None:
    base, api = server
    api.state.todos.clear()
    shown = run(cli, "tools", "add", f"{base}/plugins/todo-as-published/ai-plugin.json")
    problems = [line for line in shown.splitlines() if "problem:" in line]
    text = "\n".join(problems)
    assert "ai-plugin.json line" in text and "JSON" in text  # the trailing comma
    assert "type:object" in text and "space" in text  # the missing space, with its line
    assert "required: true" in text  # property-level required
    assert "ToDoList.todo" in shown
    # What was read still works, and `required: true` on 操作 became a real requirement.
    assert json.loads(run(cli, "tools", "call", "ToDoList.todo", '{"操作": "查询"}'))
    refused = cli.invoke(app, ["tools", "call", "ToDoList.todo", "{}"])
    assert refused.exit_code != 0 and "操作" in refused.output


def test_as_published_fixture_is_kept_byte_identical() -> None:
    # The typos are the point of this fixture: a "fix" here would hide the tolerant reader.
    raw = (paths.FIXTURES / "plugins/todo-as-published/ai-plugin.json").read_text()
    assert raw.rstrip().endswith('",\n}') and "type:object" in (
        paths.FIXTURES / "plugins/todo-as-published/openapi.yaml"
    ).read_text(encoding="utf-8")


def test_longtext_plugin_round_trip(cli: CliRunner, server: tuple[str, Any]) -> None:
    base, _ = server
    run(cli, "tools", "add", f"{base}/plugins/longtext/ai-plugin.json")
    out = run(cli, "tools", "call", "LongtextSummary.exampleOperation", '{"example_param": "年报"}')
    assert json.loads(out) == "摘要: 年报"


def test_research_api_schema_is_flat_and_ref_free(server: tuple[str, Any]) -> None:
    base, _ = server
    from datapilot.net import OutboundPolicy

    policy = OutboundPolicy.from_entries([base.removeprefix("http://")])
    imported = read_openapi(SourceIn(url=f"{base}/research/ai-plugin.json"), policy)
    ops = {op.operation: op for op in imported.operations}
    assert set(ops) == {"getPrices", "post_notes", "deleteNote"}
    prices = ops["getPrices"]
    assert prices.base_url == f"{base}/api" and prices.method == "GET"
    assert set(prices.parameters["properties"]) == {"symbol", "limit", "X-Desk"}
    assert prices.parameters["required"] == ["symbol"]
    assert {p.location for p in prices.params.values()} == {"path", "query", "header"}
    note = ops["post_notes"].parameters
    # allOf merged: both parts' properties and required lists.
    assert set(note["properties"]) == {"title", "body", "topic", "rating"}
    assert set(note["required"]) == {"title", "body"}
    assert "oneOf" in note["properties"]["rating"]  # kept as it is
    assert note["properties"]["topic"]["properties"]["parent"] == {"type": "object"}  # cycle cut
    assert not has_ref(note) and not any(has_ref(op.parameters) for op in ops.values())
    assert any("refers to itself" in p for p in imported.problems)
    assert any("asks for service_http auth" in p for p in imported.problems)
    # Non-GET operations ask first unless the document says they are not consequential.
    assert ops["post_notes"].consequential and not ops["deleteNote"].consequential
    assert not prices.consequential


def test_bearer_auth_secret_is_stored_encrypted_and_never_shown(
    cli: CliRunner, server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, api = server
    added = run(
        cli,
        "tools",
        "add",
        f"{base}/research/ai-plugin.json",
        "--auth",
        "service_http",
        "--secret",
        TOKEN,
    )
    assert TOKEN not in added and "stored encrypted" in added
    out = run(cli, "tools", "call", "Research.getPrices", '{"symbol": "ACME", "limit": 3}')
    assert json.loads(out)["rows"] == PRICES[:3]
    method, path, headers, _ = api.state.seen[-1]
    assert (method, path) == ("GET", "/api/prices/ACME")
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in run(cli, "tools", "show", "Research")
    # The database holds a Fernet token, not the secret.
    url = get_settings().database_url
    assert url is not None
    database = Path(url.get_secret_value().removeprefix("sqlite:///"))
    assert TOKEN.encode() not in database.read_bytes()
    # Another key cannot read it back: the call fails saying so, and nothing is sent.
    monkeypatch.setenv("DATAPILOT_SECRET_KEY", Fernet.generate_key().decode())
    get_settings.cache_clear()
    failed = cli.invoke(app, ["tools", "call", "Research.getPrices", '{"symbol": "ACME"}'])
    assert failed.exit_code != 0 and "DATAPILOT_SECRET_KEY" in failed.output


def test_secret_from_environment(
    cli: CliRunner, server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _ = server
    monkeypatch.setenv("RESEARCH_TOKEN", TOKEN)
    monkeypatch.delenv("DATAPILOT_SECRET_KEY")
    get_settings.cache_clear()
    refused = cli.invoke(
        app,
        [
            "tools",
            "add",
            f"{base}/research/ai-plugin.json",
            "--auth",
            "service_http",
            "--secret",
            TOKEN,
        ],
    )
    assert refused.exit_code != 0 and "DATAPILOT_SECRET_KEY" in refused.output
    run(
        cli,
        "tools",
        "add",
        f"{base}/research/ai-plugin.json",
        "--auth",
        "service_http",
        "--secret-env",
        "RESEARCH_TOKEN",
    )
    out = run(cli, "tools", "call", "Research.getPrices", '{"symbol": "ACME"}')
    frame = pd.DataFrame(json.loads(out)["rows"])
    assert frame["close"].tolist() == [row["close"] for row in PRICES]


def test_swagger_2_document(cli: CliRunner, server: tuple[str, Any]) -> None:
    base, api = server
    run(
        cli,
        "tools",
        "add",
        f"{base}/research/swagger.json",
        "--name",
        "Legacy",
        "--auth",
        "service_http",
        "--secret",
        TOKEN,
    )
    shown = run(cli, "tools", "show", "Legacy")
    assert "Legacy.getPrices GET /prices/{symbol}" in shown and "Legacy.addNote" in shown
    out = run(cli, "tools", "call", "Legacy.addNote", '{"title": "Q4", "body": "ok"}')
    assert json.loads(out) == {"stored": len(api.state.notes)}
    assert api.state.seen[-1][3] == {"title": "Q4", "body": "ok"}
    missing = cli.invoke(app, ["tools", "call", "Legacy.addNote", '{"body": "ok"}'])
    assert missing.exit_code != 0 and "title" in missing.output


def test_list_remove_and_trust(cli: CliRunner, server: tuple[str, Any]) -> None:
    base, _ = server
    run(cli, "tools", "add", f"{base}/plugins/todo/ai-plugin.json")
    assert "asks first in chats" in run(cli, "tools", "list")
    assert "trusted" in run(cli, "tools", "trust", "ToDoList.todo")
    assert "[trusted]" in run(cli, "tools", "list")
    run(cli, "tools", "remove", "ToDoList")
    assert "no imported tools" in run(cli, "tools", "list")
    gone = cli.invoke(app, ["tools", "call", "ToDoList.todo", "{}"])
    assert gone.exit_code != 0 and "no imported tool" in gone.output


def test_unreadable_document_is_a_clear_error(tmp_path: Path, cli: CliRunner) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("openapi: 3.0.1\npaths: [unclosed\n", encoding="utf-8")
    result = cli.invoke(app, ["tools", "add", str(bad)])
    assert result.exit_code != 0 and "line" in result.output and "fix the file" in result.output
    problems: list[str] = []
    assert load_text('{"a": 1,}', "x.json", problems) == {"a": 1} and "line 1" in problems[0]
