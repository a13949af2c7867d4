"""`datapilot serve`: the HTTP server (OpenBB agent, native API, health)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from datapilot.settings import BrainChoice


def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
    offline: Annotated[bool, typer.Option(help="Forbid every network access.")] = False,
    brain: Annotated[
        BrainChoice | None, typer.Option(help="Who reads questions: auto, offline or llm.")
    ] = None,
    today: Annotated[
        datetime | None,
        typer.Option(formats=["%Y-%m-%d"], help="Treat this date as today (YYYY-MM-DD)."),
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(min=1, help="Whole-request timeout in seconds.")
    ] = None,
    log_level: Annotated[str, typer.Option(help="Uvicorn log level.")] = "info",
) -> None:
    """Start the server (default http://127.0.0.1:7777); add it to OpenBB Workspace by URL."""
    import uvicorn

    from datapilot.server.app import create_app
    from datapilot.settings import get_settings

    settings = get_settings()
    changes: dict[str, Any] = {}
    if offline:
        changes["offline"] = True
    if brain:
        changes["brain"] = brain
    if today:
        changes["today"] = today.date()
    if timeout:
        changes["request_timeout_s"] = timeout
    settings = settings.model_copy(update=changes)
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level=log_level,
        proxy_headers=True,
    )
