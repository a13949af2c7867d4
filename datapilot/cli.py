"""The `datapilot` command: one Typer app; every command comes from a plugin, built-ins included
(`datapilot.commands.plugin`), through the `register_commands` hook."""

from __future__ import annotations

import sys
from typing import Any

from datapilot.commands.collection import fewer_collections
from datapilot.core.blas import one_thread_from_start
from datapilot.core.compiled_patterns import preload_re_cache

# Before anything loads numpy: its BLAS library starts with one thread (`datapilot.core.blas`).
one_thread_from_start()

# Reading the stored patterns and building the command line (typer, the plugins' hooks) make
# many lasting objects: fewer collector passes over them. The built-in commands are lazy
# (`datapilot.commands.lazy`): built when they run.
with fewer_collections():
    # The patterns the last command of this name compiled, ready compiled for this one's
    # imports and its own work (`datapilot.core.compiled_patterns`).
    preload_re_cache(sys.argv[1] if len(sys.argv) > 1 else "other")

    import atexit

    import typer

    from datapilot import __version__
    from datapilot.commands.errors import guard_commands
    from datapilot.commands.quick_exit import entry_point, quick_exit
    from datapilot.core.compiled_patterns import save_re_cache
    from datapilot.plugins import plugin_manager

    class App(typer.Typer):
        """The command line; a one-shot command that allowed it ends without Python's teardown
        (`datapilot.commands.quick_exit`), and compiles only the patterns the last command did
        not (`datapilot.core.compiled_patterns`)."""

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            # Patterns this command compiles that the last one did not are kept for the next.
            atexit.register(save_re_cache)
            with entry_point():
                try:
                    return super().__call__(*args, **kwargs)
                except SystemExit as done:
                    quick_exit(done.code)
                    raise

    app = App(
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
