"""The FastAPI application: OpenBB Workspace agent, native API, health, CORS, 422 errors."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from datapilot import __version__
from datapilot.server import api, health, openbb
from datapilot.server.errors import validation_error_handler
from datapilot.settings import Settings, get_settings

_ASSETS = Path(__file__).parent / "assets"


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; `settings` default to the process-wide ones."""
    settings = settings or get_settings()
    app = FastAPI(
        title="Datapilot",
        version=__version__,
        description=(
            "A data copilot for finance. `/v1/query` speaks the OpenBB Workspace agent "
            "protocol; `/api/v1/ask` is the native API (Answer JSON or LMC chunks)."
        ),
    )
    app.state.settings = settings
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_origin_regex=settings.cors_origin_regex or None,
        allow_credentials=True,
        allow_methods=["*"],
        allow_headers=["*"],
    )
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.include_router(health.router)
    app.include_router(openbb.router)
    app.include_router(api.router)
    app.mount("/assets", StaticFiles(directory=_ASSETS), name="assets")
    return app
