"""One mapping from failures to messages for every `datapilot` command.

A command that fails for a reason the user can act on (a bad or unreachable store, a store
migrated by a newer Datapilot, a locked, damaged or unwritable data dir, an unknown name, a
malformed JSON argument) prints what happened and what to do on stderr and exits with code 1;
it never shows a traceback. `guard_commands` applies this to every registered command, plugins'
included; anything not recognised here is a bug and propagates as usual.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import typer

if TYPE_CHECKING:
    from typer import Typer
    from typer.models import CommandInfo, TyperInfo

P = ParamSpec("P")
R = TypeVar("R")

STORE_HINT = (
    "Fix DATAPILOT_DATABASE_URL (unset it to use SQLite in the data dir) or start that database, "
    "then run `datapilot db upgrade`."
)


def _store_url() -> str:
    """The store's URL without its password, for messages (or a generic name)."""
    try:
        from datapilot.settings import get_settings
        from datapilot.store import database_url

        return database_url(get_settings()).render_as_string(hide_password=True)
    except Exception:
        return "the store"


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _store_message(error: BaseException) -> str | None:
    """Messages for the SQL store's failures (imports kept inside: sqlalchemy is heavy)."""
    if "sqlalchemy" not in sys.modules:  # nothing touched the store: not one of its failures
        return None
    import sqlalchemy.exc

    from datapilot.store import MigrationError, StoreConfigError

    if isinstance(error, StoreConfigError):
        return f"{error}."
    if isinstance(error, MigrationError):
        return f"The store could not be brought up to date: {error}."
    if isinstance(error, sqlalchemy.exc.OperationalError | sqlalchemy.exc.InterfaceError):
        reason = _first_line(error)
        if "readonly" in reason or "unable to open" in reason:
            return (
                f"The store {_store_url()} cannot be written ({reason}). Give your user write "
                "access to it, or point DATAPILOT_DATA_DIR at a folder you can write."
            )
        if "locked" in reason:
            return (
                f"The store {_store_url()} is locked by another process ({reason}). Wait for it "
                "to finish, or stop it, and try again."
            )
        return f"Could not use the store {_store_url()}: {reason}. {STORE_HINT}"
    if isinstance(error, sqlalchemy.exc.SQLAlchemyError):
        return f"The store {_store_url()} failed: {_first_line(error)}. {STORE_HINT}"
    return None


def _data_message(error: BaseException) -> str | None:
    import duckdb

    from datapilot.data.warehouse_file import WarehouseError

    if isinstance(error, WarehouseError):
        return str(error)  # says what to do already
    if isinstance(error, duckdb.Error):
        return (
            f"The warehouse could not be read or written: {error}. If another Datapilot process "
            "(a server) is using it, stop it and try again; if the file is damaged, "
            "`datapilot data seed --force` moves it aside and rebuilds it."
        )
    return None


def _input_message(error: BaseException) -> str | None:
    """Messages for what the user typed: unknown names, malformed JSON, invalid values."""
    from pydantic import ValidationError

    from datapilot.assistants.repo import NotFound, PlatformError
    from datapilot.store import AccountError

    if isinstance(error, json.JSONDecodeError):
        return (
            f"Malformed JSON ({error.msg} at line {error.lineno}, column {error.colno}); "
            'quote it whole, e.g. \'{"field": "value"}\'.'
        )
    if isinstance(error, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
            for e in error.errors()[:3]
        )
        return f"Invalid input: {problems}."
    if isinstance(error, NotFound | PlatformError | AccountError):
        return str(error)
    return None


def error_message(error: BaseException) -> str | None:
    """The message for a failure the user can act on, or None for a bug (left to propagate)."""
    for mapping in (_store_message, _data_message, _input_message):
        message = mapping(error)
        if message is not None:
            return message
    if isinstance(error, PermissionError):
        where = error.filename or "the data dir"
        return (
            f"Permission denied on {where}. Give your user write access to it, or point "
            "DATAPILOT_DATA_DIR at a folder you can write."
        )
    if isinstance(error, FileExistsError | NotADirectoryError):
        return (
            f"{error.filename or 'A path'} is a file where Datapilot needs a folder. Point "
            "DATAPILOT_DATA_DIR at a folder (it is created when missing), or move the file."
        )
    if isinstance(error, OSError):
        where = f" ({error.filename})" if error.filename else ""
        return (
            f"{error.strerror or error}{where}. Check that DATAPILOT_DATA_DIR names a folder "
            "you can write, with room to spare."
        )
    return None


def fail(message: str) -> None:
    """Print `message` as an error on stderr and exit with code 1."""
    from rich.console import Console
    from rich.markup import escape

    # Escaped: messages quote commands such as `pip install 'datapilot[live]'`, whose brackets
    # rich would otherwise take for markup and drop.
    Console(stderr=True).print(
        f"[red]Error:[/red] {escape(message)}", highlight=False, soft_wrap=True
    )
    raise typer.Exit(code=1)


def friendly_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so that failures the user can act on end in a message."""
    if getattr(command, "__friendly__", False):
        return command

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):  # the command's own way out: nothing to translate
            raise
        except Exception as error:
            message = error_message(error)
            if message is None:
                raise
            fail(message)
            raise  # unreachable: fail exits

    wrapper.__friendly__ = True  # type: ignore[attr-defined]
    return wrapper


def guard_commands(app: Typer) -> None:
    """Apply `friendly_errors` to every command and group callback of `app`, recursively."""
    import inspect

    # Typer keeps unset group callbacks as placeholders: only real functions are wrapped.
    infos: list[CommandInfo | TyperInfo] = [*app.registered_commands, *app.registered_groups]
    if app.registered_callback is not None:
        infos.append(app.registered_callback)
    for info in infos:
        if inspect.isfunction(info.callback):
            info.callback = friendly_errors(info.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            guard_commands(group.typer_instance)
