"""`datapilot serve`: the HTTP server (OpenBB agent, native API, health)."""

from __future__ import annotations

import os
from datetime import datetime
from typing import Annotated

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
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (requests are stateless).")
    ] = 1,
    log_level: Annotated[str, typer.Option(help="Uvicorn log level.")] = "info",
) -> None:
    """Start the server (default http://127.0.0.1:7777); add it to OpenBB Workspace by URL."""
    import uvicorn

    from datapilot.settings import get_settings

    # Options travel as environment variables so that every worker process reads the same.
    overrides = {
        "DATAPILOT_OFFLINE": "true" if offline else None,
        "DATAPILOT_BRAIN": brain,
        "DATAPILOT_TODAY": today.date().isoformat() if today else None,
        "DATAPILOT_REQUEST_TIMEOUT_S": str(timeout) if timeout else None,
    }
    os.environ.update({key: value for key, value in overrides.items() if value is not None})
    get_settings.cache_clear()
    settings = get_settings()
    uvicorn.run(
        "datapilot.server.app:create_app",
        factory=True,
        host=host or settings.host,
        port=port or settings.port,
        workers=workers,
        log_level=log_level,
        proxy_headers=True,
    )
