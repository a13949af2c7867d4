"""`datapilot serve`: the HTTP server (OpenBB agent, native API, health)."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
    offline: Annotated[bool, typer.Option(help="Forbid every network access.")] = False,
) -> None:
    """Start the server (default http://127.0.0.1:7777)."""
    import uvicorn

    from datapilot.server.app import create_app
    from datapilot.settings import get_settings

    settings = get_settings()
    if offline:
        settings.offline = True
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level="info",
    )
