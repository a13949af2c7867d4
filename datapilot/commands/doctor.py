"""`datapilot doctor`: what this installation has and what it misses, with the fix for each."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

# Piped output (no terminal) gets a wide table rather than one squeezed into 80 columns.
console = Console(width=None if Console().is_terminal else 160)


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
) -> None:
    """Check every part (data, database, interpreter, Chinese font, Redis, model, live data).

    Exits with code 1 only when a required part (the data, the database) is broken; a missing
    optional part is reported with its fix and leaves the exit code 0. A configured model
    endpoint is given at most 3 s to answer (1.5 s to accept the connection).
    """
    from datapilot.server.parts import check_parts
    from datapilot.settings import get_settings

    parts = check_parts(get_settings())
    if as_json:
        from pydantic import TypeAdapter

        from datapilot.server.parts import Part

        typer.echo(TypeAdapter(dict[str, Part]).dump_json(parts, indent=2).decode())
    else:
        table = Table(title="Datapilot parts")
        for column in ("part", "status", "why", "fix"):
            table.add_column(column)
        for name, part in parts.items():
            status = "[green]ok[/green]" if part.available else "[red]broken[/red]"
            if not part.available and not part.required:
                status = "[yellow]missing (optional)[/yellow]"
            # Reasons and fixes quote commands like `pip install 'datapilot[live]'`: escaped,
            # or rich would take `[live]` for markup and drop it.
            table.add_row(name, status, escape(part.reason), escape(part.fix))
        console.print(table)
    if any(part.required and not part.available for part in parts.values()):
        raise typer.Exit(code=1)
