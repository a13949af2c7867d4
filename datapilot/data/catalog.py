"""The catalog: every entity the warehouse knows, plus a directory of well-known entities without
data, with EN/ZH names, lookup by id, alias or fuzzy name, and mention finding in free text."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from rapidfuzz import fuzz, process

from datapilot.core.intent import EntityKind, Frequency
from datapilot.data import text
from datapilot.data.entity import Entity, Match
from datapilot.data.matcher import EXACT_SCORE, WEAK_SCORE, Matcher
from datapilot.data.owners import PREFIX
from datapilot.data.vocabulary import (
    MatchingRules,
    Vocabulary,
    admit,
    check_names,
    clashes,
    load_vocabulary,
    name_index,
    shipped_files,
    user_files,
)

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse

__all__ = ["Catalog", "Entity", "Match", "infer_frequency"]

_FUZZY_LOOKUP_CUTOFF = 75.0


class Catalog:
    """Entities by id, with name lookup. Safe to read from many threads."""

    def __init__(
        self,
        entities: Iterable[Entity] = (),
        rules: MatchingRules | None = None,
        *,
        checked: bool = False,
        index_state: dict[str, Any] | None = None,
    ) -> None:
        """`checked`: the entities' names were checked when this set was first built (a
        catalog read back from `catalog_cache`), so they are not checked again; `index_state`:
        its name index as `index_state()` gave it then, used instead of building it."""
        self._entities: dict[str, Entity] = {}
        self._rules = rules or MatchingRules()
        self._lock = threading.Lock()
        self._matcher: Matcher | None = None
        self._index_state = index_state
        self._names: dict[str, str] | None = None
        for entity in entities:
            self._entities[entity.id.upper()] = entity
        if not checked:
            check_names(self._entities.values())

    @classmethod
    def load(cls, warehouse: Warehouse | None = None, data_dir: Path | None = None) -> Catalog:
        """The shipped vocabulary (+ user files in `data_dir/entities`), with availability,
        dates and sources taken from the warehouse, plus entities only the warehouse knows."""
        files = shipped_files() + (user_files(data_dir) if data_dir else [])
        vocabulary: Vocabulary = load_vocabulary(files)
        entities = {e.id.upper(): e for e in vocabulary.entities}
        if warehouse is not None:
            # A stored entity named like one already known is left out, never failing the rest.
            admit(entities, warehouse.entity_metadata(), str(warehouse.path))
            _apply_coverage(entities, warehouse.coverage())
        return cls(entities.values(), vocabulary.rules)

    def with_owned(self, entities: list[Entity], coverage: pd.DataFrame, where: str) -> Catalog:
        """This catalog (everyone's) plus one user's: the entities their imports added (one
        named like an entity here is left out, see `admit`) and the availability their rows
        give; `coverage` is the warehouse's as that user reads it."""
        merged = dict(self._entities)
        admit(merged, entities, where)
        owned = coverage["source"].str.startswith(PREFIX)
        for entity_id in coverage.loc[owned, "id"].unique():
            entity = merged.get(str(entity_id).upper())
            if entity is not None:
                rows = coverage[coverage["id"] == entity_id]
                merged[entity.id.upper()] = with_coverage(entity, rows)
        return Catalog(merged.values(), self._rules)

    @property
    def rules(self) -> MatchingRules:
        """The matching rules of its entity files."""
        return self._rules

    def get(self, entity_id: str) -> Entity | None:
        """The entity with this id (case-insensitive: `aapl` → AAPL), or None."""
        return self._entities.get(entity_id.strip().upper())

    def entities(
        self, kind: EntityKind | None = None, available: bool | None = None
    ) -> list[Entity]:
        """All entities, optionally only one kind and/or only those with (or without) data."""
        return [
            e
            for e in self._entities.values()
            if (kind is None or e.kind == kind) and (available is None or e.available == available)
        ]

    def clashes(self, entity: Entity) -> list[tuple[str, Entity]]:
        """(name, entity) for each name of `entity` (its id, tickers, display name, aliases)
        another entity of the catalog already answers to: a new entity must not take them."""
        with self._lock:
            if self._names is None:
                self._names = name_index(self._entities.values())
            index = self._names
        return [(name, self._entities[other]) for name, other in clashes(entity, index)]

    def add(self, entity: Entity) -> None:
        """Add or replace an entity (live providers register what they discover)."""
        with self._lock:
            merged = {**self._entities, entity.id.upper(): entity}
            check_names(merged.values())
            self._entities = merged
            self._matcher = None
            self._index_state = None  # of the entities before this one
            self._names = None

    def lookup(self, name: str, limit: int = 5) -> list[Match]:
        """Best candidates for a name: exact id or alias score 100, otherwise fuzzy (< 100)."""
        name = name.strip()
        if not name:
            return []
        matcher = self._index()
        key = text.key(name)
        scored: dict[str, float] = {}

        def offer(entity_id: str | None, score: float) -> None:
            if entity_id is not None and score > scored.get(entity_id, -1.0):
                scored[entity_id] = score

        offer(matcher.name_key_owner(key), EXACT_SCORE)
        if entity := self.get(name):
            offer(entity.id, EXACT_SCORE)
        offer(matcher.ticker_owner(name), EXACT_SCORE)
        offer(matcher.code_owner(name), EXACT_SCORE)
        offer(matcher.weak_key_owner(key), WEAK_SCORE)
        if len(scored) < limit:
            names, owners = self._choices
            for choice, score, index in process.extract(
                key, names, scorer=fuzz.WRatio, limit=limit * 4, score_cutoff=_FUZZY_LOOKUP_CUTOFF
            ):
                offer(owners[index], EXACT_SCORE if choice == key else min(float(score), 99.0))
        ranked = sorted(scored.items(), key=lambda item: -item[1])[:limit]
        return [Match(entity=self._entities[i.upper()], score=s, matched=name) for i, s in ranked]

    def mentions(self, question: str) -> list[Match]:
        """Every entity the question names, once each, best score first, then text order."""
        best: dict[str, Match] = {}
        for found in self._index().find(question):
            entity = self._entities[found.entity_id.upper()]
            match = Match(
                entity=entity,
                score=found.score,
                matched=question[found.start : found.end],
                start=found.start,
                end=found.end,
                how=found.how,
            )
            kept = best.get(entity.id)
            if kept is None or (match.score, -match.start) > (kept.score, -kept.start):
                best[entity.id] = match
        return sorted(best.values(), key=lambda m: (-m.score, m.start))

    def index_state(self) -> dict[str, Any]:
        """The name index as JSON-ready data (built now if it was not), for `index_state=`."""
        matcher = self._index()
        return {"matcher": matcher.state(), "choices": list(self._choices)}

    def _index(self) -> Matcher:
        with self._lock:
            if self._matcher is None:
                state, self._index_state = self._index_state, None
                if state is not None:
                    with contextlib.suppress(KeyError, TypeError, ValueError):
                        names, owners = state["choices"]
                        self._matcher = Matcher.from_state(state["matcher"], self._rules)
                        self._choices = (names, owners)
                        return self._matcher
                self._matcher = Matcher(list(self._entities.values()), self._rules)
                pairs = [
                    (key, e.id)
                    for e in self._entities.values()
                    for name in {e.id, e.name, *e.aliases}
                    # Short keys are left to the exact paths: as fuzzy partial matches
                    # "t" or "mo" would sit inside every word.
                    if len(key := text.key(name)) >= 4
                ]
                self._choices = ([k for k, _ in pairs], [i for _, i in pairs])
            return self._matcher


def infer_frequency(rows: int, first: pd.Timestamp, last: pd.Timestamp) -> Frequency:
    """The frequency of a series from its observation count per year."""
    years = max((last - first).days / 365.25, 1e-9)
    per_year = (rows - 1) / years if rows > 1 else 0
    if per_year > 120:
        return "daily"
    if per_year > 26:
        return "weekly"
    if per_year > 6:
        return "monthly"
    if per_year > 2:
        return "quarterly"
    return "annual"


def _apply_coverage(entities: dict[str, Entity], coverage: pd.DataFrame) -> None:
    """Mark entities with data available and take their dates and sources from the warehouse."""
    for entity_id, rows in coverage.groupby("id", sort=False):
        entity = entities.get(str(entity_id).upper())
        if entity is not None:
            entities[entity.id.upper()] = with_coverage(entity, rows)


def with_coverage(entity: Entity, rows: pd.DataFrame) -> Entity:
    """`entity` with its availability, first/last dates, sources and frequency taken from its
    warehouse coverage rows (`Warehouse.coverage(id)`); unchanged when there are none."""
    if rows.empty:
        return entity
    first, last = rows["first"].min(), rows["last"].max()
    longest = rows.sort_values("rows", ascending=False).iloc[0]
    return entity.model_copy(
        update={
            "available": True,
            "first": first.date(),
            "last": last.date(),
            "source": ", ".join(sorted(rows["source"].unique())),
            "frequency": infer_frequency(int(longest["rows"]), longest["first"], longest["last"]),
        }
    )
