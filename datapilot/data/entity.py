"""What the catalog knows about one entity, and a piece of text that may name it."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from datapilot.core.intent import EntityKind, EntityRef, Frequency


class Entity(BaseModel):
    """A stock, ETF, index, macro or commodity series, or factor, with its names in EN and ZH."""

    id: str = Field(description="Stable user-facing id: AAPL, ^GSPC, UNRATE, 600519.SH …")
    kind: EntityKind
    name: str
    aliases: list[str] = Field(default_factory=list, description="English and Chinese names.")
    frequency: Frequency = "daily"
    units: str = ""
    measure: Literal["levels", "returns"] = Field(
        default="levels",
        description="`returns` for series whose values are period returns in % (Fama–French "
        "factors): they are compounded, never treated as levels.",
    )
    source: str = Field(default="", description="Where the warehouse data came from, if any.")
    first: date | None = None
    last: date | None = None
    available: bool = Field(
        default=True,
        description="False for well-known entities with no data in the warehouse: a planner "
        "should say so (or fetch them live) instead of substituting something else.",
    )
    symbols: list[str] = Field(
        default_factory=list,
        description="Other tickers for the same entity (META for FB); matched like the id.",
    )
    weak_aliases: list[str] = Field(
        default_factory=list,
        description="Everyday words (momentum, value) that name this entity only when the "
        "question also says factor or ETF.",
    )

    def ref(self) -> EntityRef:
        return EntityRef(id=self.id, kind=self.kind, name=self.name)


class Match(BaseModel):
    """A catalog entity a piece of text may name, with a 0–100 score."""

    entity: Entity
    score: float
    matched: str = Field(description="The text that matched.")
    start: int = -1
    end: int = -1
    how: str = Field(
        default="name",
        description="How it matched: name, ticker, code, weak, spelling or prefix.",
    )
