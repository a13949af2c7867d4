"""Ground the entities a model names in the catalog: its ids are guesses, the catalog decides.

A proposed entity resolves, in order, to a client table of that name, the catalog entity with that
id, or a catalog entity whose name matches closely. A guess that matches nothing closely is still
accepted when the question itself names a catalog entity it resembles (the model misspelt what
the user wrote); otherwise it is missing, which ends in `no_data` — never a substitute. Ids inside
the plan's arguments go through the same resolver and are rewritten to catalog ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from rapidfuzz import fuzz

from datapilot.core.context import ClientTable
from datapilot.core.intent import EntityRef
from datapilot.core.plan import Call, Plan, Step
from datapilot.data.catalog import Entity, Match
from datapilot.interfaces.registry import Registry

# A name at least this close (whole-string ratio, 0-100) to an entity's name or alias is it.
ACCEPT_SCORE = 90.0
# How close a misspelt id must be to an entity the question names to count as that entity.
RESEMBLANCE = 75.0

# Arguments that hold entity ids (validated), and arguments that may hold them as column names
# (only rewritten: a column name is not necessarily an entity).
ID_ARGS = frozenset({"id", "ids", "entity", "entities", "index", "symbol", "symbols", "ticker"})
COLUMN_ARGS = frozenset({"a", "b", "market", "column", "columns", "x", "y", "by"})
TABLE_INTERFACES = {"get_client_table": "name"}


class CatalogLike(Protocol):
    def get(self, entity_id: str) -> Entity | None: ...

    def lookup(self, text: str, limit: int = 5) -> list[Match]: ...

    def mentions(self, text: str) -> list[Match]: ...

    def entities(self, kind: Any = None, available: bool | None = None) -> list[Entity]: ...


@dataclass
class Grounding:
    """What the proposed entities resolved to."""

    entities: list[EntityRef] = field(default_factory=list)
    unavailable: list[EntityRef] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)  # casefolded guess -> grounded id

    @property
    def all_refs(self) -> list[EntityRef]:
        return self.entities + self.unavailable


class Grounder:
    """Resolves names and ids for one question against the catalog and the client's tables."""

    def __init__(self, catalog: CatalogLike, question: str, tables: list[ClientTable]) -> None:
        self.catalog = catalog
        self.tables = {table.name.casefold(): table for table in tables}
        self._mentioned: list[Entity] | None = None
        self.question = question

    def resolve(self, name: str, guess: str | None = None) -> tuple[EntityRef | None, str | None]:
        """The entity meant by `name` (and the model's id `guess`), with a trace line when the
        guess was corrected; `(None, None)` when nothing in the catalog is meant."""
        for text in (guess, name):
            if text and text.strip().casefold() in self.tables:
                table = self.tables[text.strip().casefold()]
                return EntityRef(
                    id=table.name, kind="table", name=table.description or table.name
                ), None
        if guess:
            entity = self._get(guess)
            if entity is not None:
                return entity.ref(), None
        for text in (name, guess):
            entity = self._named(text) if text else None
            if entity is not None:
                return entity.ref(), _corrected(name, guess, entity)
        for text in (guess, name):
            entity = self._resembled(text) if text else None
            if entity is not None:
                return entity.ref(), _corrected(name, guess, entity)
        return None, None

    def ground(self, proposed: list[tuple[str, str | None]]) -> Grounding:
        """Resolve each `(name, id guess)`; unavailable and missing ones are kept apart."""
        result = Grounding()
        for name, guess in proposed:
            ref, note = self.resolve(name, guess)
            if note:
                result.trace.append(note)
            if ref is None:
                result.missing.append(f"{name} ({guess})" if guess and guess != name else name)
                continue
            for text in (name, guess):
                if text:
                    result.ids[text.strip().casefold()] = ref.id
            target = result.entities if self.available(ref) else result.unavailable
            if all(existing.id != ref.id for existing in result.all_refs):
                target.append(ref)
        return result

    def available(self, ref: EntityRef) -> bool:
        if ref.kind == "table":
            return True
        entity = self._get(ref.id)
        return entity is not None and getattr(entity, "available", True)

    def span(self, ref: EntityRef) -> tuple[date, date] | None:
        """First and last date of the entity's data, when the catalog knows them."""
        entity = None if ref.kind == "table" else self._get(ref.id)
        if entity is None or entity.first is None or entity.last is None:
            return None
        return entity.first, entity.last

    def _get(self, entity_id: str) -> Entity | None:
        text = entity_id.strip()
        return self.catalog.get(text) or (
            self.catalog.get(text.upper()) if text != text.upper() else None
        )

    def _named(self, text: str) -> Entity | None:
        """The catalog entity whose id, name or alias `text` spells (nearly) in full.

        The catalog's own lookup proposes candidates; a whole-string comparison decides, so a
        partial match ("Apple" inside "Apple Hospitality REIT") never stands in for an entity.
        """
        candidates = [match.entity for match in self.catalog.lookup(text, limit=3) or []]
        return _closest(text, candidates, ACCEPT_SCORE)

    def _resembled(self, text: str) -> Entity | None:
        """A catalog entity the question names that `text` is a near-spelling of."""
        if self._mentioned is None:
            self._mentioned = [match.entity for match in self.catalog.mentions(self.question) or []]
        return _closest(text, self._mentioned, RESEMBLANCE)


def _closest(text: str, entities: list[Entity], threshold: float) -> Entity | None:
    folded = " ".join(text.split()).casefold()
    best: tuple[float, Entity | None] = (0.0, None)
    for entity in entities:
        names = (entity.id, entity.name, *entity.aliases, *getattr(entity, "symbols", []))
        for candidate in names:
            score = fuzz.ratio(folded, candidate.casefold())
            if score > best[0]:
                best = (score, entity)
    return best[1] if best[0] >= threshold else None


def ground_plan(
    plan: Plan, grounder: Grounder, grounding: Grounding, registry: Registry
) -> tuple[Plan, list[str]]:
    """The plan with entity arguments rewritten to catalog ids, and the problems found.

    A problem is an id the catalog does not know; an unavailable entity is added to
    `grounding.unavailable` (the question then ends in `no_data`).
    """
    problems: list[str] = []
    steps = []
    for step in plan.steps:
        calls = []
        for call in step.calls:
            args = dict(call.args)
            if call.interface in registry:
                params = registry.get(call.interface).params
                for name, value in call.args.items():
                    if name not in params:
                        continue
                    if name in ID_ARGS or TABLE_INTERFACES.get(call.interface) == name:
                        args[name] = _ground_ids(value, call, name, grounder, grounding, problems)
                    elif name in COLUMN_ARGS:
                        args[name] = _rename(value, grounding.ids)
            calls.append(call.model_copy(update={"args": args}))
        steps.append(Step(calls=calls))
    return plan.model_copy(update={"steps": steps}), problems


def _ground_ids(
    value: Any,
    call: Call,
    arg: str,
    grounder: Grounder,
    grounding: Grounding,
    problems: list[str],
) -> Any:
    if isinstance(value, list):
        return [_ground_ids(item, call, arg, grounder, grounding, problems) for item in value]
    if not isinstance(value, str):
        return value
    known = grounding.ids.get(value.strip().casefold())
    if known is not None:
        return known
    ref, note = grounder.resolve(value, value)
    if ref is None:
        problems.append(
            f"call {call.output!r} ({call.interface}) names {value!r} in {arg!r}, which is not "
            "an entity here; use the id of an entity from intent.entities"
        )
        return value
    if note:
        grounding.trace.append(note)
    grounding.ids[value.strip().casefold()] = ref.id
    if all(existing.id != ref.id for existing in grounding.all_refs):
        target = grounding.entities if grounder.available(ref) else grounding.unavailable
        target.append(ref)
    return ref.id


def _rename(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_rename(item, ids) for item in value]
    if isinstance(value, str):
        return ids.get(value.strip().casefold(), value)
    return value


def _corrected(name: str, guess: str | None, entity: Entity) -> str | None:
    if guess and guess == entity.id:
        return None
    said = f"{name!r} (id {guess!r})" if guess else repr(name)
    return f"The model named {said}; the catalog entity is {entity.name} ({entity.id})."
