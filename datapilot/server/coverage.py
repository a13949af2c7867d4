"""What data the warehouse holds, for `GET /health` and `datapilot doctor`: a module of its own,
so that the doctor reads it without importing the web framework."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from datapilot.settings import Settings


class DataCoverage(BaseModel):
    entities: int = Field(description="Entities with data in the warehouse.")
    first: date | None = Field(default=None, description="Earliest date of any series.")
    last: date | None = Field(default=None, description="Latest date of any series.")


class Coverage(DataCoverage):
    """What the data check found, with why it failed: for the authenticated parts and the
    doctor, never for the public `/health`."""

    error: str | None = Field(default=None, description="Why coverage could not be read.")
    fix: str | None = Field(
        default=None, description="The command or step that repairs it, when data is broken."
    )


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
