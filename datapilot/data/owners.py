"""Whose data a warehouse row is.

Everyone's: the bundled data, what live providers fetch, and what the operator imports from the
server's terminal (`datapilot data import`). One user's: what that user imports through the API
(or the page): its rows are stored under the source `user:<user id>:<label>`, its new entities in
`owned_entities` and its tables in `owned_tables`, and only a warehouse viewed by that user
(`Warehouse.viewed_by`) reads them. Replicas replay a user's import with its owner, so it stays
that user's on every replica.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from datapilot.data.duckdb_engine import duckdb

if TYPE_CHECKING:
    import pandas as pd

    from datapilot.data.entity import Entity

PREFIX = "user:"
# The rows (of `prices`, `series`, `coverage`) a viewer may read: everyone's and, with `$mine`
# (`mine(owner)`) set, the viewer's own; another user's never.
VISIBLE = f"(NOT starts_with(source, '{PREFIX}') OR starts_with(source, $mine))"

HAS_TABLE_SQL = (
    "SELECT count(*) FROM duckdb_tables() WHERE table_name = $name "
    "AND database_name = current_database()"
)
ENTITIES_SQL = "SELECT id, kind, name, aliases, frequency, units FROM entities ORDER BY id"
_OWNED_ENTITIES = """
CREATE TABLE IF NOT EXISTS owned_entities (
    owner VARCHAR NOT NULL, id VARCHAR NOT NULL, kind VARCHAR NOT NULL, name VARCHAR NOT NULL,
    aliases VARCHAR[], frequency VARCHAR, units VARCHAR, updated_at TIMESTAMP,
    PRIMARY KEY (owner, id))
"""
_OWNED_ENTITIES_SQL = (
    "SELECT id, kind, name, aliases, frequency, units FROM owned_entities "
    "WHERE owner = $owner ORDER BY id"
)
_OWNERS_SQL = (
    f"SELECT DISTINCT split_part(source, ':', 2) FROM coverage WHERE starts_with(source, "
    f"'{PREFIX}')"
)


def owned_source(owner: str, label: str) -> str:
    """The source a user's import is stored under: no one else's, never a bundled one."""
    return f"{PREFIX}{owner}:{label}"


def mine(owner: str | None) -> str | None:
    """The `$mine` parameter of `VISIBLE` for a viewer (None: everyone's rows only)."""
    return None if owner is None else f"{PREFIX}{owner}:"


def owners_in(cursor: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The users who own anything in the warehouse (rows, entities or tables)."""
    found = {str(row[0]) for row in cursor.execute(_OWNERS_SQL).fetchall()}
    for table in ("owned_entities", "owned_tables"):
        if has_table(cursor, table):  # else nothing of that kind imported yet
            rows = cursor.execute(f"SELECT DISTINCT owner FROM {table}").fetchall()
            found.update(str(row[0]) for row in rows)
    return frozenset(found)


def has_table(cursor: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the warehouse has table `name` (asked first: DuckDB would otherwise look for a
    Python variable of that name to read)."""
    row = cursor.execute(HAS_TABLE_SQL, {"name": name}).fetchone()
    return bool(row and row[0])


def entities_of(frame: pd.DataFrame) -> list[Entity]:
    """The entities of rows read with `ENTITIES_SQL` (or of `owned_entities`)."""
    from datapilot.data.entity import Entity

    return [
        Entity(
            id=row.id,
            kind=row.kind,
            name=row.name,
            aliases=list(row.aliases) if row.aliases is not None else [],
            frequency=row.frequency or "daily",
            units=row.units or "",
        )
        for row in frame.itertuples(index=False)
    ]


def owned_entities(cursor: duckdb.DuckDBPyConnection, owner: str) -> list[Entity]:
    """The entities `owner`'s imports added."""
    if not has_table(cursor, "owned_entities"):  # no user has imported an entity yet
        return []
    return entities_of(cursor.execute(_OWNED_ENTITIES_SQL, {"owner": owner}).df())


def write_owned_entities_in(
    connection: duckdb.DuckDBPyConnection, owner: str, entities: list[Entity]
) -> None:
    """Describe entities of `owner`'s import (inside an open `Warehouse.transaction()`)."""
    connection.execute(_OWNED_ENTITIES)
    now = datetime.now(UTC).replace(tzinfo=None)
    for e in entities:
        connection.execute(
            "INSERT OR REPLACE INTO owned_entities VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [owner, e.id.upper(), e.kind, e.name, e.aliases, e.frequency, e.units, now],
        )
