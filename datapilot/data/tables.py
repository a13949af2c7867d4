"""Generic tables a user imports (`datapilot data import FILE --kind table`): any columns.

Prices and series have fixed shapes; a file of another shape (dividends per share by date and
ticker, analyst targets, holdings) is stored as it is, one warehouse table per import, with its
columns typed (numbers, dates, text) and listed in `user_tables`. No built-in interface reads such
a table: the design stage (`datapilot design`) profiles it and grows interfaces that do.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from datapilot.data.duckdb_engine import register
from datapilot.data.owners import HAS_TABLE_SQL
from datapilot.data.warehouse import Warehouse

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_REGISTRY = """
CREATE TABLE IF NOT EXISTS user_tables (
    name VARCHAR PRIMARY KEY, source VARCHAR NOT NULL, columns VARCHAR NOT NULL,
    rows BIGINT NOT NULL, imported_at TIMESTAMP NOT NULL)
"""
# Tables a user imported through the API: theirs alone (`data.owners`).
_OWNED_REGISTRY = """
CREATE TABLE IF NOT EXISTS owned_tables (
    owner VARCHAR NOT NULL, name VARCHAR NOT NULL, source VARCHAR NOT NULL,
    columns VARCHAR NOT NULL, rows BIGINT NOT NULL, imported_at TIMESTAMP NOT NULL,
    PRIMARY KEY (owner, name))
"""


class TableImportError(ValueError):
    """The file cannot be imported as a table; the message says what to do."""


@dataclass(frozen=True)
class TableInfo:
    """One imported table: its name, the file it came from, typed columns and row count."""

    name: str
    source: str
    columns: dict[str, str]  # column -> number | date | text
    rows: int
    owner: str | None = None  # the user who imported it through the API; None: everyone's

    @property
    def sql_name(self) -> str:
        return sql_name(self.name, self.owner)


def sql_name(name: str, owner: str | None = None) -> str:
    """The warehouse table holding the imported table `name` (of `owner`, if a user's)."""
    return f"user_table_{name}" if owner is None else f"owned_table_{owner}_{name}"


def table_name(path: Path, name: str | None) -> str:
    """The table's name: the one given, else the file's stem, as a lower-case identifier."""
    raw = name if name else path.name.split(".")[0]
    cleaned = re.sub(r"[^a-z0-9_]+", "_", raw.strip().lower()).strip("_")
    if cleaned and cleaned[0].isdigit():
        cleaned = f"t_{cleaned}"
    if not _NAME.match(cleaned):
        raise TableImportError(
            f"{raw!r} cannot name a table; give --name with letters, digits and _ "
            "(starting with a letter, at most 40 characters)."
        )
    return cleaned


def typed(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """Each text column as numbers when every non-empty cell is one, as dates when every cell
    is an ISO-like date, else as text; returns the frame and the column types."""
    out = pd.DataFrame(index=frame.index)
    types: dict[str, str] = {}
    for column in frame.columns:
        cells = frame[column].astype(str).str.strip()
        present = cells[cells != ""]
        numbers = pd.to_numeric(present.str.replace(",", "", regex=False), errors="coerce")
        if len(present) and numbers.notna().all():
            out[column] = pd.to_numeric(
                cells.str.replace(",", "", regex=False).replace("", None), errors="coerce"
            )
            types[column] = "number"
            continue
        dates = pd.to_datetime(present, errors="coerce", format="ISO8601")
        if len(present) and dates.notna().all():
            out[column] = pd.to_datetime(cells.replace("", None), format="ISO8601").dt.date
            types[column] = "date"
            continue
        out[column] = cells
        types[column] = "text"
    return out, types


def import_table(
    warehouse: Warehouse, path: Path, name: str | None = None, owner: str | None = None
) -> TableInfo:
    """Store the file at `path` as table `name` (replacing an earlier import of that name: of
    `owner`'s tables when given, a user's import through the API), in one transaction; raise
    `TableImportError` and write nothing when it is unusable."""
    from datapilot.data.importer import ImportFileError, _read

    try:
        raw, _ = _read(path)
    except ImportFileError as error:
        raise TableImportError(str(error)) from error
    name = table_name(path, name)
    if raw.empty:
        raise TableImportError(f"{path}: the file has no data rows.")
    headers = [str(c).strip() for c in raw.columns]
    if any(not h or h.lower().startswith("unnamed:") for h in headers):
        raise TableImportError(f"{path}: every column needs a name in the header row.")
    if len({h.lower() for h in headers}) != len(headers):
        raise TableImportError(f"{path}: two columns share a name; rename one.")
    raw.columns = headers
    frame, types = typed(raw.astype(str))
    source = f"import:{path.name}"
    info = TableInfo(name, source, types, len(frame), owner)
    now = datetime.now(UTC).replace(tzinfo=None)
    with warehouse.transaction() as connection:
        connection.execute(_REGISTRY if owner is None else _OWNED_REGISTRY)
        register(connection, "incoming", frame)
        try:
            connection.execute(
                f'CREATE OR REPLACE TABLE "{info.sql_name}" AS SELECT * FROM incoming'
            )
        finally:
            connection.unregister("incoming")
        row = [name, source, json.dumps(types), len(frame), now]
        if owner is None:
            connection.execute("INSERT OR REPLACE INTO user_tables VALUES (?, ?, ?, ?, ?)", row)
        else:
            connection.execute(
                "INSERT OR REPLACE INTO owned_tables VALUES (?, ?, ?, ?, ?, ?)", [owner, *row]
            )
    return info


def list_tables(warehouse: Warehouse) -> list[TableInfo]:
    """Every imported table the warehouse's viewer reads, by name: everyone's, and the viewer's
    own (`Warehouse.viewed_by`), which take the place of everyone's of the same name."""
    found = {t.name: t for t in _tables(warehouse, "user_tables", None)}
    if warehouse.owner is not None:
        found |= {t.name: t for t in _tables(warehouse, "owned_tables", warehouse.owner)}
    return [found[name] for name in sorted(found)]


def _tables(warehouse: Warehouse, registry: str, owner: str | None) -> list[TableInfo]:
    """The tables listed in `registry` (of `owner`, for `owned_tables`)."""
    if warehouse.query(HAS_TABLE_SQL, {"name": registry}).iloc[0, 0] == 0:
        return []  # nothing imported yet
    where = "" if owner is None else "WHERE owner = $owner"
    params: dict[str, object] = {} if owner is None else {"owner": owner}
    rows = warehouse.query(f"SELECT * FROM {registry} {where}", params)
    return [
        TableInfo(str(r.name), str(r.source), json.loads(str(r.columns)), int(r.rows), owner)
        for r in rows.itertuples()
    ]


def read_table(warehouse: Warehouse, name: str) -> pd.DataFrame:
    """The imported table `name` as a frame (dates as datetimes); a clear error if unknown."""
    known = {t.name: t for t in list_tables(warehouse)}
    if name not in known:
        listed = ", ".join(known) or "none yet"
        raise TableImportError(
            f"No imported table named {name!r} (imported: {listed}); "
            "import one with `datapilot data import FILE --kind table`."
        )
    frame = warehouse.query(f'SELECT * FROM "{known[name].sql_name}"')
    for column, kind in known[name].columns.items():
        if kind == "date":
            frame[column] = pd.to_datetime(frame[column])
    return frame
