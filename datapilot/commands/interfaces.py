"""`datapilot interfaces`: the typed library a plan may call, as a model or a person sees it."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer


class CategoryOption(StrEnum):
    """The registry's categories, spelled here so that `--help` needs no interface loaded."""

    acquisition = "acquisition"
    processing = "processing"
    prediction = "prediction"
    visualization = "visualization"
    frame = "frame"


def interfaces(
    name: Annotated[
        str | None, typer.Argument(help="Show one interface's JSON schema instead of the list.")
    ] = None,
    category: Annotated[
        CategoryOption | None, typer.Option(help="Only this category.", case_sensitive=False)
    ] = None,
) -> None:
    """List the interfaces plans can call (grouped by category), or one interface's schema."""
    from datapilot.engine.executor import default_registry
    from datapilot.interfaces.registry import CATEGORIES

    registry = default_registry()
    if name is None:
        typer.echo(registry.catalog([category.value] if category else CATEGORIES))
        typer.echo(f"\n{len(registry)} interfaces", err=True)
        return
    if name not in registry:
        message = f"No interface named {name!r}. Run `datapilot interfaces` for the list."
        typer.echo(message, err=True)
        raise typer.Exit(2)
    typer.echo(json.dumps(registry.get(name).json_schema(), indent=2, ensure_ascii=False))
