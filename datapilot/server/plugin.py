"""The built-in routes, registered through the `register_routes` hook: health, the OpenBB
Workspace agent and the native API."""

from __future__ import annotations

from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from fastapi import FastAPI


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_routes(app: FastAPI) -> None:
    from datapilot.server import api, health
    from datapilot.server.openbb import routes as openbb

    app.include_router(health.router)
    app.include_router(openbb.router)
    app.include_router(api.router)
