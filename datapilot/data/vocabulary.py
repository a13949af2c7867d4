"""The entity vocabulary: TOML files naming entities in English and Chinese, validated at load.

Each file may hold `defaults` (an inline table of fields applied to every entity of the file;
put it before `entity`), `entity` (a list of tables: id, kind, name, aliases, frequency, units,
measure (`returns` for series of period returns in %), symbols, weak_aliases), `[aliases]`
(extra names for entities defined elsewhere: `AAPL = ["果子"]`)
and `[matching]` (rules for free text).
The files shipped in `datapilot/data/entities/` come first; a user adds more in
`<data dir>/entities/*.toml`.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from datapilot.data import text
from datapilot.data.entity import Entity

log = logging.getLogger(__name__)
_ENTITY_FIELDS = {
    "id",
    "kind",
    "name",
    "aliases",
    "frequency",
    "units",
    "measure",
    "symbols",
    "weak_aliases",
}


class VocabularyError(ValueError):
    """An entity file is malformed or contradicts another one."""


@dataclass(frozen=True)
class MatchingRules:
    weak_context: tuple[str, ...] = ()
    common_words: frozenset[str] = frozenset()
    not_tickers: frozenset[str] = frozenset()
    # Chinese words that stand for each other inside names (国债 / 美债 / 国库券).
    zh_interchangeable: tuple[tuple[str, ...], ...] = ()


@dataclass
class Vocabulary:
    entities: list[Entity] = field(default_factory=list)
    rules: MatchingRules = field(default_factory=MatchingRules)


def shipped_files() -> list[Path]:
    """The entity files shipped with the package, in a stable order."""
    folder = resources.files("datapilot.data") / "entities"
    return sorted(Path(str(item)) for item in folder.iterdir() if item.name.endswith(".toml"))


def user_files(data_dir: Path) -> list[Path]:
    """Entity files a user keeps in `<data dir>/entities/`."""
    folder = data_dir / "entities"
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def load_vocabulary(files: Iterable[Path]) -> Vocabulary:
    """Read and validate entity files; every entity comes back with `available=False`."""
    entities: dict[str, Entity] = {}
    origin: dict[str, Path] = {}
    extra_aliases: list[tuple[Path, str, list[str]]] = []
    weak_context: list[str] = []
    common_words: set[str] = set()
    not_tickers: set[str] = set()
    interchangeable: list[tuple[str, ...]] = []
    for path in files:
        document = _read(path)
        defaults = document.get("defaults", {})
        for raw in document.get("entity", []):
            entity = _entity(path, {**defaults, **raw})
            previous = origin.get(entity.id.upper())
            if previous is not None:
                raise VocabularyError(
                    f"{path}: entity id {entity.id!r} is already defined in {previous}; "
                    "use [aliases] to add names to an existing entity."
                )
            entities[entity.id.upper()] = entity
            origin[entity.id.upper()] = path
        for entity_id, names in document.get("aliases", {}).items():
            extra_aliases.append((path, entity_id, list(names)))
        rules = document.get("matching", {})
        weak_context.extend(rules.get("weak_context", []))
        common_words.update(word.lower() for word in rules.get("common_words", []))
        not_tickers.update(rules.get("not_tickers", []))
        interchangeable.extend(tuple(group) for group in rules.get("zh_interchangeable", []))
    for path, entity_id, names in extra_aliases:
        target = entities.get(entity_id.upper())
        if target is None:
            raise VocabularyError(f"{path}: [aliases] names unknown entity id {entity_id!r}.")
        target.aliases.extend(name for name in names if name not in target.aliases)
    result = list(entities.values())
    check_names(result, origin)
    rules = MatchingRules(
        tuple(weak_context),
        frozenset(common_words),
        frozenset(not_tickers),
        tuple(interchangeable),
    )
    return Vocabulary(result, rules)


def check_names(entities: Iterable[Entity], origin: dict[str, Path] | None = None) -> None:
    """Raise if one name (alias, weak alias or display name) is claimed by two entities."""
    owner: dict[str, Entity] = {}
    for entity in entities:
        for name in {entity.name, *entity.aliases, *entity.weak_aliases}:
            name_key = text.key(name)
            if not name_key:
                continue
            other = owner.setdefault(name_key, entity)
            if other.id != entity.id:
                where = ""
                if origin:
                    files = {str(origin.get(e.id.upper(), "?")) for e in (other, entity)}
                    where = f" (in {', '.join(sorted(files))})"
                raise VocabularyError(
                    f"the name {name!r} is claimed by both {other.id} and {entity.id}{where}; "
                    "keep it on one entity."
                )


def name_keys(entity: Entity, tickers: bool = True) -> dict[str, str]:
    """The keys a question may name `entity` by (its id and tickers unless `tickers` is False,
    display name, aliases), each with the name it comes from."""
    names = [entity.name, *entity.aliases, *entity.weak_aliases]
    if tickers:
        names = [entity.id, *entity.symbols, *names]
    return {key: name for name in names if (key := text.key(name))}


def name_index(entities: Iterable[Entity], tickers: bool = True) -> dict[str, str]:
    """Name key → the id of the (first) entity answering to it."""
    index: dict[str, str] = {}
    for entity in entities:
        for key in name_keys(entity, tickers):
            index.setdefault(key, entity.id.upper())
    return index


def clashes(entity: Entity, index: dict[str, str], tickers: bool = True) -> list[tuple[str, str]]:
    """(name, other id) for each name of `entity` another entity of `index` answers to."""
    return [
        (name, other)
        for key, name in name_keys(entity, tickers).items()
        if (other := index.get(key)) is not None and other != entity.id.upper()
    ]


def admit(
    entities: MutableMapping[str, Entity], extra: Iterable[Entity], where: str
) -> list[tuple[Entity, str, str]]:
    """Add the `extra` entities (stored ones: imports, discoveries) whose ids are new and whose
    names no entity of `entities` answers to; those already there win. A clashing one is left
    out with a warning, never failing the whole catalog. Returns (entity, name, other id) for
    each one left out."""
    # The names `check_names` keeps apart; a ticker named like another entity is only ambiguous.
    index = name_index(entities.values(), tickers=False)
    left_out = []
    for entity in extra:
        if entity.id.upper() in entities:
            continue
        found = clashes(entity, index, tickers=False)
        if found:
            name, other = found[0]
            log.warning(
                "%s: entity %s left out: its name %r is %s's (rename it by importing it again "
                "with another name, or run `datapilot data seed --force` to drop it)",
                where,
                entity.id,
                name,
                other,
            )
            left_out.append((entity, name, other))
            continue
        entities[entity.id.upper()] = entity
        for key in name_keys(entity, tickers=False):
            index.setdefault(key, entity.id.upper())
    return left_out


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise VocabularyError(f"{path}: not valid TOML: {error}") from error


def _entity(path: Path, raw: dict[str, Any]) -> Entity:
    unknown = set(raw) - _ENTITY_FIELDS
    label = raw.get("id", "<no id>")
    if unknown:
        raise VocabularyError(
            f"{path}: entity {label!r} has unknown field(s) {sorted(unknown)}; "
            f"allowed: {sorted(_ENTITY_FIELDS)}."
        )
    try:
        return Entity(**raw, available=False)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise VocabularyError(f"{path}: entity {label!r} is invalid: {problems}") from error
