"""`GET /health`: the version and what data is available."""

from __future__ import annotations

import asyncio
from datetime import date

from fastapi import APIRouter
from pydantic import BaseModel, Field

from datapilot import __version__

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
async def health() -> Health:
    return Health(data=await asyncio.to_thread(data_coverage))


def data_coverage() -> DataCoverage:
    """Count entities with data and their overall date range; never raises."""
    try:
        from datapilot.data import get_catalog

        entities = get_catalog().entities(available=True)
    except Exception as error:
        return DataCoverage(entities=0, error=f"{type(error).__name__}: {error}")
    firsts = [entity.first for entity in entities if entity.first]
    lasts = [entity.last for entity in entities if entity.last]
    return DataCoverage(
        entities=len(entities),
        first=min(firsts) if firsts else None,
        last=max(lasts) if lasts else None,
    )
