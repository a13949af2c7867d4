"""The catalog, built once per version of the warehouse instead of once per process.

Building the catalog reads every entity file (TOML), validates ~300 entities, and applies the
warehouse's coverage to each: ~50 ms of every `datapilot ask`, `doctor` and server start. The
built entities are kept as JSON in `<data dir>/cache/catalog.json` under a key made of what they
are built from: this code's version, the entity files (shipped and the user's: path, size,
modification time) and the warehouse's version as the catalog sees it, the rows of its
`coverage` and `entities` tables, read in one query. An import, a fetch or a reseed changes those
rows, so the next process builds the catalog again. The JSON is validated when read back, and a
missing, damaged or stale file only means building it. The catalog's name index (the entity
matcher's tables) is kept in the same file, so a process reading it does not key every name
again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from datapilot import __version__
from datapilot.data.catalog import Catalog
from datapilot.data.entity import Entity
from datapilot.data.vocabulary import MatchingRules, shipped_files, user_files

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse

log = logging.getLogger(__name__)

FORMAT = 2  # raised when what is stored changes shape
# The warehouse's version as the catalog sees it: everything `Catalog.load` reads from it.
_VERSION_SQL = (
    "SELECT 'c', id, source, \"table\", CAST(rows AS VARCHAR), CAST(first AS VARCHAR), "
    "CAST(last AS VARCHAR) FROM coverage UNION ALL "
    "SELECT 'e', id, kind, name, CAST(aliases AS VARCHAR), frequency, units FROM entities "
    "ORDER BY 1, 2, 3, 4"
)


def cache_path(data_dir: Path) -> Path:
    return data_dir / "cache" / "catalog.json"


def load_catalog(warehouse: Warehouse, data_dir: Path) -> Catalog:
    """`Catalog.load(warehouse, data_dir)`, from the cache when it was built from the same
    files and the same version of the warehouse."""
    key = _key(warehouse, data_dir)
    path = cache_path(data_dir)
    cached = _read(path, key)
    if cached is not None:
        return cached
    catalog = Catalog.load(warehouse, data_dir)
    _write(path, key, catalog)
    return catalog


def _key(warehouse: Warehouse, data_dir: Path) -> str:
    files = []
    for file in shipped_files() + user_files(data_dir):
        stat = file.stat()
        files.append((str(file), stat.st_size, stat.st_mtime_ns))
    rows = warehouse.query(_VERSION_SQL).astype(str).values.tolist()
    fields = sorted(Entity.model_fields)
    return hashlib.sha256(repr((FORMAT, __version__, fields, files, rows)).encode()).hexdigest()


def _read(path: Path, key: str) -> Catalog | None:
    try:
        body: Any = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(body, dict) or body.get("key") != key:
            return None
        rules = body["rules"]
        return Catalog(
            [Entity.model_validate(entity) for entity in body["entities"]],
            MatchingRules(
                tuple(rules["weak_context"]),
                frozenset(rules["common_words"]),
                frozenset(rules["not_tickers"]),
                tuple(tuple(group) for group in rules.get("zh_interchangeable", [])),
            ),
            checked=True,  # built from these entities by `Catalog.load`, which checked them
            index_state=body["index"],
        )
    except FileNotFoundError:
        return None
    except Exception as error:  # damaged: built again (and written over)
        log.debug("catalog cache %s not used: %s: %s", path, type(error).__name__, error)
        return None


def _write(path: Path, key: str, catalog: Catalog) -> None:
    """Written whole or not at all (a temporary file renamed); a data dir that cannot be
    written to only means building the catalog again next time."""
    rules = catalog.rules
    body = {
        "key": key,
        "entities": [entity.model_dump(mode="json") for entity in catalog.entities()],
        # The name index too (built here, once per version, instead of in every process).
        "index": catalog.index_state(),
        "rules": {
            "weak_context": list(rules.weak_context),
            "common_words": sorted(rules.common_words),
            "not_tickers": sorted(rules.not_tickers),
            "zh_interchangeable": [list(group) for group in rules.zh_interchangeable],
        },
    }
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".catalog-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(body, file, ensure_ascii=False)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
