"""Commands registered by name, built when they run.

Building a Typer command means importing its module and reading its function's signature into
Click parameters; doing that for every command on every run costs `datapilot ask` ~50 ms of a
<1 s answer. A lazy command is a name, a `module:attribute` target (a command function or a
`typer.Typer` group) and the one-line help `datapilot --help` lists: the listing is printed
from these lines (no command module imported), and the target is imported and built only when
that command runs or its own help is asked for. `tests/commands/test_cli_startup.py` checks the
lines match the commands' own help.

Plugins add theirs with `add_lazy(cli, LazyCommand(...))` from the `register_commands` hook,
or register ordinary Typer commands as before.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_group


@dataclass(frozen=True)
class LazyCommand:
    """A command by name: `target` is `module:attribute`, a function or a Typer group."""

    name: str
    target: str
    help: str  # the first paragraph of the command's help on one line, as `--help` lists it
    group: bool = False  # a `typer.Typer` of sub-commands (listed after the commands)
    # Runs once and lets the process end (`ask`): parsed and built without collector passes
    # (`collection.hold_for_one_shot`).
    one_shot: bool = False


class _Placeholder(TyperCommand):
    """Stands for a lazy command in the group's listing until it is built."""

    lazy: LazyCommand


def _placeholder(entry: LazyCommand) -> _Placeholder:
    # One line, as the built command's help will be (`_unwrap_help`).
    command = _Placeholder(name=entry.name, help=" ".join(entry.help.split("\n")), callback=None)
    command.lazy = entry
    return command


def build(entry: LazyCommand) -> Any:
    """The real Click command or group of `entry` (its module imported now), with the same
    failure messages as every other command (`guard_commands`).

    Importing the module and, for a command, parsing its arguments (Typer builds a pydantic
    adapter per option: pydantic's import) run with fewer collector passes; the command itself
    runs at the process's own threshold, so a server keeps Python's usual collector."""
    from datapilot.commands.collection import fewer_collections
    from datapilot.commands.errors import guard_commands

    with fewer_collections():
        module, _, attribute = entry.target.partition(":")
        target = getattr(importlib.import_module(module), attribute)
        holder = typer.Typer()
        if isinstance(target, typer.Typer):
            holder.add_typer(target, name=entry.name)
        else:
            holder.command(entry.name)(target)
        guard_commands(holder)
        command = get_group(holder).commands[entry.name]
        _unwrap_help(command)
    if not entry.group:
        parse = command.make_context

        def make_context(*args: Any, **kwargs: Any) -> Any:
            with fewer_collections():
                return parse(*args, **kwargs)

        command.make_context = make_context  # type: ignore[method-assign]
    return command


def _unwrap_help(command: Any) -> None:
    """Join the lines of each help paragraph, so that the terminal wraps it at its own width:
    Typer's rich help keeps a docstring's line breaks, in the command's own help and in its
    group's listing (the first paragraph), which broke sentences in the middle. A list or a
    paragraph marked \\b keeps its lines."""
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(
            p if _laid_out(p) else " ".join(p.split("\n")) for p in paragraphs
        )
    for sub in getattr(command, "commands", {}).values():
        _unwrap_help(sub)


def _laid_out(paragraph: str) -> bool:
    """A paragraph whose lines are its layout: marked with \\b, a list or an indented block."""
    lines = paragraph.split("\n")
    return paragraph.startswith("\b") or any(line.startswith(("-", "*", " ")) for line in lines)


class LazyGroup(TyperGroup):
    """A Typer group whose lazy commands are built on first use, listed from their help line."""

    lazy: tuple[LazyCommand, ...] = ()

    def __init__(self, *, commands: Any = None, **attrs: Any) -> None:
        # Typer's order: commands, then groups, each in registration order (the built-in
        # plugin registers first; plugins' and `version` come after it).
        given = dict(commands or {})
        listed: dict[str, Any] = {}
        for groups in (False, True):
            listed.update((e.name, _placeholder(e)) for e in self.lazy if e.group is groups)
            listed.update((n, c) for n, c in given.items() if isinstance(c, TyperGroup) is groups)
        super().__init__(commands=listed, **attrs)
        self._listing = False

    @contextmanager
    def _help_listing(self) -> Iterator[None]:
        self._listing = True
        try:
            yield
        finally:
            self._listing = False

    def make_context(self, info_name: Any, args: list[str], *rest: Any, **kwargs: Any) -> Any:
        from datapilot.commands.collection import fewer_collections, hold_for_one_shot

        named = next((arg for arg in args if not arg.startswith("-")), None)
        if any(e.one_shot and e.name == named for e in self.lazy):
            hold_for_one_shot()
        with fewer_collections():  # parsing the first options imports pydantic (Typer's)
            return super().make_context(info_name, args, *rest, **kwargs)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with self._help_listing():  # the listing reads help lines only: build nothing
            super().format_help(ctx, formatter)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if isinstance(command, _Placeholder) and not self._listing:
            command = self.commands[cmd_name] = build(command.lazy)
        return command


def _group() -> None:
    pass


def add_lazy(cli: typer.Typer, *entries: LazyCommand) -> None:
    """Register `entries` on `cli` (the `datapilot` app) as lazy commands."""
    if cli.registered_callback is None:
        # Typer makes an app of one registered command that command itself, not a group: the
        # lazy ones are not registered, so a group is asked for (a callback with no options).
        cli.callback()(_group)
    cls = cli.info.cls
    current = cls.lazy if isinstance(cls, type) and issubclass(cls, LazyGroup) else ()
    cli.info.cls = type("DatapilotGroup", (LazyGroup,), {"lazy": (*current, *entries)})
