"""`GET /health`: the version and what data is available.

Public (monitors and load balancers call it without a key), so it says only whether the server
can answer and how much data it holds: why the data cannot be read, and the fix, are for the
authenticated `/api/v1/features` (its `data` part) and `datapilot doctor`. An error names paths
and, once, carried text an importer chose; neither is for anyone who can reach the port."""

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
        default="ok",
        description="ok, or degraded when the data cannot be read (HTTP 503; why and the fix "
        "are in `/api/v1/features` and `datapilot doctor`).",
    )
    version: str = __version__
    data: DataCoverage | None = Field(
        default=None, description="The data's coverage; absent while it cannot be read."
    )


@router.get(
    "/health",
    response_model=Health,
    summary="Version and data coverage",
    responses={503: {"model": Health, "description": "The data cannot be read."}},
)
async def health(settings: SettingsDep) -> Health | JSONResponse:
    coverage = await asyncio.to_thread(data_coverage, settings)
    if coverage.error is None:
        return Health(data=DataCoverage.model_validate(coverage, from_attributes=True))
    # Load balancers and monitors read the status code: a server whose answers would all be
    # errors is not healthy, even though it is up.
    body = Health(status="degraded")
    return JSONResponse(body.model_dump(mode="json"), status_code=503)
