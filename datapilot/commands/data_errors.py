"""One mapping from the data layer's failures to messages for `datapilot data …` commands.

A command that fails prints what happened and what to do, and exits with code 1; it never shows
a traceback for a fault of the environment (a locked, damaged or unwritable warehouse)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console

P = ParamSpec("P")
R = TypeVar("R")


def error_message(error: BaseException) -> str | None:
    """The message for a failure the user can act on, or None for a bug (left to propagate)."""
    import duckdb

    from datapilot.data.warehouse import WarehouseError

    if isinstance(error, WarehouseError):
        return str(error)  # says what to do already
    if isinstance(error, PermissionError):
        where = error.filename or "the data dir"
        return (
            f"Permission denied on {where}. Give your user write access to it, or point "
            "DATAPILOT_DATA_DIR at a folder you can write."
        )
    if isinstance(error, duckdb.Error):
        return (
            f"The warehouse could not be read or written: {error}. If another Datapilot process "
            "(a server) is using it, stop it and try again; if the file is damaged, "
            "`datapilot data seed --force` moves it aside and rebuilds it."
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
    Console(stderr=True).print(f"[red]Error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


def friendly_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so that environment faults end in a message (see `error_message`)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except Exception as error:
            message = error_message(error)
            if message is None:
                raise
            fail(message)
            raise  # unreachable: fail exits

    return wrapper
