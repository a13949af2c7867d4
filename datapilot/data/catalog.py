"""The catalog: every entity the warehouse knows, with EN/ZH aliases and fuzzy lookup."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from datapilot.core.intent import EntityKind, EntityRef, Frequency


class Entity(BaseModel):
    id: str = Field(description="Stable user-facing id: AAPL, ^GSPC, UNRATE, 600519.SH …")
    kind: EntityKind
    name: str
    aliases: list[str] = Field(default_factory=list, description="English and Chinese names.")
    frequency: Frequency = "daily"
    units: str = ""
    source: str = ""
    first: date | None = None
    last: date | None = None

    def ref(self) -> EntityRef:
        return EntityRef(id=self.id, kind=self.kind, name=self.name)


class Match(BaseModel):
    """A catalog entity a piece of text may name, with a 0–100 score."""

    entity: Entity
    score: float
    matched: str = Field(description="The text that matched.")
    start: int = -1
    end: int = -1


class Catalog:
    """To be implemented by the data layer (issue 2): lookup by id, alias and fuzzy name."""

    def get(self, entity_id: str) -> Entity | None: ...

    def lookup(self, text: str, limit: int = 5) -> list[Match]: ...

    def mentions(self, text: str) -> list[Match]: ...
