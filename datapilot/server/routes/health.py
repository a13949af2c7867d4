"""`GET /health`: the version and what data is available.

Public (monitors and load balancers call it without a key), so it says only whether the server
can answer and how much data it holds: why the data cannot be read, and the fix, are for the
authenticated `/api/v1/features` (its `data` part) and `datapilot doctor`. An error names paths
and, once, carried text an importer chose; neither is for anyone who can reach the port."""

from __future__ import annotations

import asyncio
from datetime import date

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from datapilot import __version__
from datapilot.server.deps import SettingsDep
from datapilot.settings import Settings

router = APIRouter(tags=["Health"])


class DataCoverage(BaseModel):
    entities: int = Field(description="Entities with data in the warehouse.")
    first: date | None = Field(default=None, description="Earliest date of any series.")
    last: date | None = Field(default=None, description="Latest date of any series.")


class Coverage(DataCoverage):
    """What the data check found, for the authenticated parts (`server.parts`)."""

    error: str | None = Field(default=None, description="Why coverage could not be read.")
    fix: str | None = Field(
        default=None, description="The command or step that repairs it, when data is broken."
    )


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


def data_coverage(settings: Settings) -> Coverage:
    """Count entities with data and their overall date range; never raises."""
    try:
        from datapilot.data import open_data

        entities = open_data(settings).catalog.entities(available=True)
    except Exception as error:
        # A damaged or missing file is repaired by a reseed; a locked one by waiting.
        fix = getattr(error, "fix", None) or "datapilot data seed --force"
        return Coverage(entities=0, error=f"{type(error).__name__}: {error}", fix=fix)
    firsts = [entity.first for entity in entities if entity.first]
    lasts = [entity.last for entity in entities if entity.last]
    return Coverage(
        entities=len(entities),
        first=min(firsts) if firsts else None,
        last=max(lasts) if lasts else None,
    )
