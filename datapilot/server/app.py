"""The FastAPI application: health now; the OpenBB agent and native API mount here."""

from __future__ import annotations

from fastapi import FastAPI

from datapilot import __version__
from datapilot.settings import Settings, get_settings


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="Datapilot", version=__version__)
    app.state.settings = settings

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    return app
