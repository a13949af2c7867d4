"""`datapilot doctor`: what this installation has and what it misses, with the fix for each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from datapilot.server.parts import Part


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
) -> None:
    """Check every part (data, database, interpreter, Chinese font, Redis, model, live data).

    Exits with code 1 only when a required part (the data, the database) is broken; a missing
    optional part is reported with its fix and leaves the exit code 0. A configured model
    endpoint is given at most 3 s to answer (1.5 s to accept the connection).
    """
    from datapilot.server.parts import each_part
    from datapilot.settings import get_settings

    found = each_part(get_settings())
    if as_json:
        from pydantic import TypeAdapter

        from datapilot.server.parts import Part

        parts = dict(found)
        typer.echo(TypeAdapter(dict[str, Part]).dump_json(parts, indent=2).decode())
    else:
        parts = {}
        typer.echo("Datapilot parts:")
        # A line per part as soon as it is checked: the slow ones (the data, a model endpoint)
        # never leave the screen blank.
        for name, part in found:
            parts[name] = part
            typer.echo(_line(name, part))
    if any(part.required and not part.available for part in parts.values()):
        raise typer.Exit(code=1)


def _line(name: str, part: Part) -> str:
    """`  ok       data`, or the status, why, and the fix."""
    if part.available:
        return f"  {typer.style('ok', fg='green'):<8} {name}"
    status = "broken" if part.required else "missing (optional)"
    color = "red" if part.required else "yellow"
    line = f"  {typer.style(status, fg=color)} {name}: {part.reason}"
    return line + (f" — fix: {part.fix}" if part.fix else "")
