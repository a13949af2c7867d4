"""The built-in commands, registered through the `register_commands` hook.

Command modules import their heavy dependencies inside each command, so registering them (and
`datapilot --help`) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from typer import Typer


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_commands(cli: Typer) -> None:
    from datapilot.commands import (
        accounts,
        ask,
        assistants,
        data,
        design,
        interfaces,
        interpreter,
        kb,
        mcp,
        memories,
        serve,
        tools,
    )
    from datapilot.commands import eval as eval_command

    cli.command("serve")(serve.serve)
    cli.command("ask")(ask.ask)
    cli.add_typer(data.app, name="data")
    cli.command("eval")(eval_command.eval_corpus)
    cli.command("interfaces")(interfaces.interfaces)
    cli.add_typer(accounts.db_app, name="db")
    cli.add_typer(accounts.keys_app, name="keys")
    cli.add_typer(accounts.users_app, name="users")
    cli.add_typer(assistants.assistants_app, name="assistants")
    cli.command("chat")(assistants.chat)
    cli.command("mcp")(mcp.mcp)
    cli.add_typer(tools.tools_app, name="tools")
    cli.add_typer(kb.kb_app, name="kb")
    cli.command("interpreter")(interpreter.interpreter)
    cli.add_typer(memories.memories_app, name="memories")
    cli.add_typer(design.design_app, name="design")
