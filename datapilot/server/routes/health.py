"""`GET /health`: the version and what data is available."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from datapilot import __version__
from datapilot.server.coverage import DataCoverage, data_coverage
from datapilot.server.deps import SettingsDep

router = APIRouter(tags=["Health"])


class Health(BaseModel):
    status: str = Field(
        default="ok", description="ok, or degraded when the data cannot be read (HTTP 503)."
    )
    version: str = __version__
    data: DataCoverage


@router.get(
    "/health",
    response_model=Health,
    summary="Version and data coverage",
    responses={503: {"model": Health, "description": "The data cannot be read: why, and the fix."}},
)
async def health(settings: SettingsDep) -> Health | JSONResponse:
    coverage = await asyncio.to_thread(data_coverage, settings)
    if coverage.error is None:
        return Health(data=coverage)
    # Load balancers and monitors read the status code: a server whose answers would all be
    # errors is not healthy, even though it is up.
    body = Health(status="degraded", data=coverage)
    return JSONResponse(body.model_dump(mode="json"), status_code=503)
