"""`datapilot assistants …` and `datapilot chat` against a store of the test's own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.platform_app import QUESTION, apple_2021_return_pct
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.settings import get_settings


@pytest.fixture()
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: object) -> Iterator[CliRunner]:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite3'}")
    monkeypatch.setenv("DATAPILOT_OFFLINE", "true")
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_assistants_create_list_show_delete(cli: CliRunner) -> None:
    created = cli.invoke(app, ["assistants", "create", "Analyst", "--prompt", "Be brief."])
    assert created.exit_code == 0, created.output
    assistant_id = created.output.strip().splitlines()[-1]
    listed = cli.invoke(app, ["assistants", "list"])
    assert assistant_id in listed.output and "Analyst" in listed.output
    shown = json.loads(cli.invoke(app, ["assistants", "show", "Analyst"]).output)
    assert shown["id"] == assistant_id and shown["prompt"] == "Be brief."
    twice = cli.invoke(app, ["assistants", "create", "Analyst"])
    assert twice.exit_code == 1 and "already" in twice.output
    assert cli.invoke(app, ["assistants", "delete", assistant_id]).exit_code == 0
    missing = cli.invoke(app, ["assistants", "show", assistant_id])
    assert missing.exit_code == 1 and "no assistant" in missing.output


def test_chat_answers_and_can_be_continued(cli: CliRunner) -> None:
    cli.invoke(app, ["assistants", "create", "Analyst"])
    first = cli.invoke(app, ["chat", "Analyst"], input=f"{QUESTION}\n\n")
    assert first.exit_code == 0, first.output
    assert f"{apple_2021_return_pct():.2f}%" in first.output
    chat_id = first.output.strip().split("--chat ")[-1].strip()
    again = cli.invoke(app, ["chat", "--chat", chat_id], input="\n")
    assert again.exit_code == 0 and chat_id in again.output
    # Named after what it is about, as the page names its chats (not "terminal").
    from datapilot.assistants.conversations import Chats
    from datapilot.assistants.models import Tenant
    from datapilot.assistants.repo import local_user
    from datapilot.store import open_store

    with open_store(get_settings()).session() as session:
        name = Chats(session, Tenant(user_id=local_user(session))).get(chat_id).name
    assert name.startswith("Apple") and "2021" in name, name
    unknown = cli.invoke(app, ["chat", "--chat", "nope"], input="\n")
    assert unknown.exit_code == 1 and "no chat" in unknown.output
