"""The `datapilot` command: one Typer app; every command comes from a plugin, built-ins included
(`datapilot.commands.plugin`), through the `register_commands` hook."""

from __future__ import annotations

from datapilot.commands.collection import fewer_collections

# Building the command line imports typer, rich and every command's module: fewer collector
# passes over them (~80 at the default threshold).
with fewer_collections():
    import typer

    from datapilot import __version__
    from datapilot.commands.errors import guard_commands
    from datapilot.plugins import plugin_manager

    app = typer.Typer(
        name="datapilot",
        help="A data copilot for finance: ask in English or Chinese, get charts, tables and a "
        "summary.",
        no_args_is_help=True,
        add_completion=False,
    )
    plugin_manager().hook.register_commands(cli=app)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


# Last, once every command is registered: failures the user can act on end in a message.
guard_commands(app)


if __name__ == "__main__":
    app()
