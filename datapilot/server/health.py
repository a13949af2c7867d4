"""`GET /health`: the version and what data is available."""

from __future__ import annotations

import asyncio
from datetime import date

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from datapilot import __version__
from datapilot.settings import Settings

router = APIRouter(tags=["Health"])


class DataCoverage(BaseModel):
    entities: int = Field(description="Entities with data in the warehouse.")
    first: date | None = Field(default=None, description="Earliest date of any series.")
    last: date | None = Field(default=None, description="Latest date of any series.")
    error: str | None = Field(default=None, description="Why coverage could not be read.")


class Health(BaseModel):
    status: str = "ok"
    version: str = __version__
    data: DataCoverage


@router.get("/health", response_model=Health, summary="Version and data coverage")
async def health(request: Request) -> Health:
    return Health(data=await asyncio.to_thread(data_coverage, request.app.state.settings))


def data_coverage(settings: Settings) -> DataCoverage:
    """Count entities with data and their overall date range; never raises."""
    try:
        from datapilot.data import open_data

        entities = open_data(settings).catalog.entities(available=True)
    except Exception as error:
        return DataCoverage(entities=0, error=f"{type(error).__name__}: {error}")
    firsts = [entity.first for entity in entities if entity.first]
    lasts = [entity.last for entity in entities if entity.last]
    return DataCoverage(
        entities=len(entities),
        first=min(firsts) if firsts else None,
        last=max(lasts) if lasts else None,
    )
