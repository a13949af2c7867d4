"""The `datapilot` command: one Typer app assembling the command groups in `datapilot.commands`."""

from __future__ import annotations

import typer

from datapilot import __version__
from datapilot.commands import ask, data, interfaces, serve
from datapilot.commands import eval as eval_command

app = typer.Typer(
    name="datapilot",
    help="A data copilot for finance: ask in English or Chinese, get charts, tables and a summary.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("serve")(serve.serve)
app.command("ask")(ask.ask)
app.add_typer(data.app, name="data")
app.command("eval")(eval_command.eval_corpus)
app.command("interfaces")(interfaces.interfaces)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


if __name__ == "__main__":
    app()
