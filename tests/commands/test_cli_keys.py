"""`datapilot keys` and `datapilot users` on both backends: the key shown once, alone on the last
line; lists without it; revocation by prefix; clear errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.settings import Settings, get_settings
from datapilot.store import Keys, open_store


@pytest.fixture()
def run(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", store_url)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_keys_create_list_revoke(run: CliRunner, store_url: str) -> None:
    created = run.invoke(app, ["keys", "create", "--name", "laptop", "--scopes", "chat,manage"])
    assert created.exit_code == 0, created.output
    key = created.stdout.splitlines()[-1]
    assert key.startswith("dp_") and " " not in key and len(key) > 40

    store = open_store(Settings())
    with store.session() as session:
        principal = Keys(session).authenticate(key)
    assert principal is not None and principal.scopes == {"chat", "manage"}

    listed = run.invoke(app, ["keys", "list"])
    assert listed.exit_code == 0
    assert key not in listed.stdout
    assert (
        key[:11] in listed.stdout and "laptop" in listed.stdout and "chat,manage" in listed.stdout
    )
    assert "owner" in listed.stdout  # the first key made the first user

    revoked = run.invoke(app, ["keys", "revoke", key[:11]])
    assert revoked.exit_code == 0 and "Revoked" in revoked.stdout
    with store.session() as session:
        assert Keys(session).authenticate(key) is None
        (info,) = Keys(session).list()
    assert info.revoked_at is not None
    assert info.revoked_at.strftime("%Y-%m-%d") in run.invoke(app, ["keys", "list"]).stdout


def test_users_and_clear_errors(run: CliRunner) -> None:
    assert run.invoke(app, ["users", "create", "alice"]).exit_code == 0
    assert run.invoke(app, ["users", "create", "bob"]).exit_code == 0
    ambiguous = run.invoke(app, ["keys", "create", "--name", "x"])
    assert ambiguous.exit_code == 1
    assert "--user" in ambiguous.stderr and "dp_" not in ambiguous.stdout
    bobs = run.invoke(app, ["keys", "create", "--name", "x", "--user", "bob"])
    assert bobs.exit_code == 0 and "for user bob" in bobs.stdout
    unknown = run.invoke(app, ["keys", "create", "--name", "y", "--scopes", "root"])
    assert unknown.exit_code == 1 and "chat, manage, admin" in unknown.stderr
    missing = run.invoke(app, ["keys", "revoke", "dp_nothing"])
    assert missing.exit_code == 1 and "keys list" in missing.stderr


def test_db_upgrade_reports_the_schema(run: CliRunner) -> None:
    from datapilot.store import head_revision

    first = run.invoke(app, ["db", "upgrade"])
    again = run.invoke(app, ["db", "upgrade"])
    assert first.exit_code == again.exit_code == 0
    assert first.stdout.strip().endswith(f"schema {head_revision()}")
    assert first.stdout == again.stdout
