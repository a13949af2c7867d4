"""`datapilot memories list|forget`: the local user's memories from the terminal, on SQLite and
PostgreSQL; another user's memories are neither listed nor forgotten."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from datapilot.assistants.memory import Memories
from datapilot.assistants.models import Tenant
from datapilot.assistants.repo import local_user
from datapilot.cli import app
from datapilot.settings import get_settings
from datapilot.store import Users, open_store


@pytest.fixture()
def runner(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", store_url)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def _remember(user_id: str, *texts: str) -> list[str]:
    store = open_store(get_settings())
    with store.session(write=True) as session:
        memories = Memories(session, Tenant(user_id=user_id))
        return [event.memory_id for text in texts if (event := memories.add(text))]


def test_list_and_forget_the_local_users_memories(runner: CliRunner) -> None:
    store = open_store(get_settings())
    with store.session(write=True) as session:
        me = local_user(session)
        other = Users(session).create("someone-else").id
    mine = _remember(me, "Reports in CNY", "Prefers bar charts")
    theirs = _remember(other, "Lives in Oslo")

    listed = runner.invoke(app, ["memories", "list"])
    assert listed.exit_code == 0, listed.output
    assert "Reports in CNY" in listed.output and "Prefers bar charts" in listed.output
    assert "Oslo" not in listed.output and all(m in listed.output for m in mine)

    # Another user's memory is not the local user's to forget.
    refused = runner.invoke(app, ["memories", "forget", theirs[0]])
    assert refused.exit_code == 1 and "no memory" in refused.output

    one = runner.invoke(app, ["memories", "forget", mine[0]])
    assert one.exit_code == 0 and "Forgot 1 memory" in one.output
    after = runner.invoke(app, ["memories", "list"]).output
    assert "Reports in CNY" not in after and "Prefers bar charts" in after

    both = runner.invoke(app, ["memories", "forget"])
    assert both.exit_code == 1 and "--all" in both.output
    everything = runner.invoke(app, ["memories", "forget", "--all"])
    assert everything.exit_code == 0 and "Forgot 1 memory" in everything.output
    assert "No memories yet" in runner.invoke(app, ["memories", "list"]).output
    # The other user's memory is still there.
    with store.session() as session:
        assert [m.text for m in Memories(session, Tenant(user_id=other)).all()] == ["Lives in Oslo"]
