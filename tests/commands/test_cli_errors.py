"""Every `datapilot` command ends a failure the user can act on with a message, never a
traceback: a bad or unreachable store, a store migrated by a newer Datapilot, a data dir that
cannot be used, unknown names, malformed JSON."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer.main
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.data import access as data_access
from datapilot.settings import get_settings

UNREACHABLE = "postgresql://someone:hunter2@127.0.0.1:9/nowhere"


@pytest.fixture()
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("DATAPILOT_OFFLINE", "true")
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def _leaves() -> list[tuple[list[str], click.Command]]:
    """Every registered command (plugins' included), by its words."""
    root = typer.main.get_command(app)
    context = click.Context(root)
    found: list[tuple[list[str], click.Command]] = []

    def walk(command: click.Command, words: list[str]) -> None:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(context):  # type: ignore[attr-defined]
                walk(command.get_command(context, name), [*words, name])  # type: ignore[attr-defined]
        else:
            found.append((words, command))

    walk(root, [])
    return found


def _arguments(command: click.Command) -> list[str]:
    """Plausible values for the command's required parameters."""
    given: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        # Typer builds parameter types lazily: a missing `type` has no choices either.
        choices = getattr(getattr(param, "type", None), "choices", None)
        value = str(getattr(choices[0], "value", choices[0])) if choices else "x"
        if param.opts[0].startswith("-"):
            given += [param.opts[0], value]
        else:
            given.append(value)
    return given


def _invoke(runner: CliRunner, words: list[str]) -> click.testing.Result:
    get_settings.cache_clear()
    return runner.invoke(app, words, input="\n")


@pytest.mark.slow
def test_every_command_with_a_broken_store_and_data_dir_says_what_to_do(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data dir should be")
    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(not_a_folder))
    # `data seed` forgets every data dir this process opened: here only the ones opened in this
    # test, so that the session's shared warehouse stays the one `get_warehouse()` returns.
    monkeypatch.setattr(data_access, "_opened", dict(data_access._opened))
    commands = _leaves()
    assert {"keys list", "chat", "serve", "tools call", "db upgrade"} <= {
        " ".join(w) for w, _ in commands
    }
    for url in ("mysql://someone@db/x", UNREACHABLE):
        monkeypatch.setenv("DATAPILOT_DATABASE_URL", url)
        for words, command in commands:
            result = _invoke(runner, [*words, *_arguments(command)])
            shown = " ".join(words)
            # A traceback in-process shows as the exception CliRunner caught.
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                shown,
                repr(result.exception),
            )
            assert "Traceback" not in result.output, shown
            assert "hunter2" not in result.output, shown  # the password is never shown
    # The store's commands fail, naming the setting to fix.
    for words in (["keys", "list"], ["assistants", "list"], ["tools", "list"], ["db", "upgrade"]):
        result = _invoke(runner, words)
        assert result.exit_code == 1, words
        assert "DATAPILOT_DATABASE_URL" in result.output and "127.0.0.1:9" in result.output
        assert len(result.output.strip().splitlines()) <= 3  # a message, not a dump


def test_serve_refuses_to_start_on_a_store_it_cannot_reach(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", UNREACHABLE)
    result = _invoke(runner, ["serve", "--port", "9"])
    assert result.exit_code == 1 and "Could not use the store" in result.output


def test_a_store_from_a_newer_datapilot_is_named(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{path}")
    assert _invoke(runner, ["db", "upgrade"]).exit_code == 0
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999_future'")
    for words in (["db", "upgrade"], ["keys", "list"], ["chat"]):
        # Each process migrates once; a fresh check per command as a new process would do.
        monkeypatch.setattr("datapilot.store._migrated", set())
        result = _invoke(runner, words)
        assert result.exit_code == 1, words
        assert "9999_future" in result.output and "upgrade Datapilot" in result.output
        assert "Traceback" not in result.output


def test_unknown_names_and_malformed_json_are_messages(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    cases = {
        ("assistants", "show", "nobody"): "no assistant",
        ("assistants", "delete", "nobody"): "no assistant",
        ("chat", "nobody"): "no assistant",
        ("chat", "--chat", "nope"): "no chat",
        ("keys", "revoke", "nope"): "no key",
        ("tools", "show", "nope"): "nope",
        ("tools", "call", "nope.op", "{"): "JSON",
        ("memories", "forget", "nope"): "no memory",
    }
    for words, said in cases.items():
        result = _invoke(runner, list(words))
        assert result.exit_code == 1, (words, result.output)
        assert said in result.output, (words, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_read_only_store_is_named_with_what_to_do(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "readonly.sqlite3"
    sqlite3.connect(path).close()
    # Opened read-only (as a file the user may not write would be): migrating cannot write.
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///file:{path}?mode=ro&uri=true")
    for words in (["keys", "list"], ["memories", "list"], ["assistants", "create", "A"]):
        monkeypatch.setattr("datapilot.store._migrated", set())
        result = _invoke(runner, words)
        assert result.exit_code == 1, (words, result.output)
        assert "cannot be written" in result.output and "write access" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
