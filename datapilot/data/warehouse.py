"""The warehouse: one embedded DuckDB file read through one query API.

Tables: `prices` (daily bars), `series` (id, date, value), `entities` (metadata of entities the
shipped vocabulary does not know, e.g. imports), `sources` (declared priority per source),
`coverage` (rows and date range per id and source, refreshed by every write) and `meta`.
Every row keeps its source and a `fetched_at` timestamp; several sources may hold the same entity
and the query chooses per field (see `warehouse_sql`). A user's own imports are read only by a
view of that user (`Warehouse.viewed_by`, `owners`).

The file is opened read-only between writes, so several processes (a server, a terminal) can
read it at once; a write reopens it for writing for one transaction. Within a process, reads run
side by side (each on a cursor of its own) and a write waits for them, then excludes them.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

import pandas as pd

from datapilot.data.duckdb_engine import duckdb, register
from datapilot.data.entity import Entity
from datapilot.data.owners import (
    ENTITIES_SQL,
    VISIBLE,
    entities_of,
    mine,
    owned_entities,
    owners_in,
)
from datapilot.data.warehouse_file import Rank, WarehouseError, database
from datapilot.data.warehouse_sql import (
    COVERAGE_SQL,
    PRICES_OUT_SQL,
    PRICES_SQL,
    REFRESH_COVERAGE_SQL,
    RESAMPLE_SQL,
    SERIES_SQL,
    SINGLE_SOURCE_PRICES_SQL,
    source_ranks,
)

PriceFreq = Literal["daily", "weekly", "monthly"]
PRICE_FIELDS = ("open", "high", "low", "close", "adj_close", "volume")
PRICE_COLUMNS = ["id", "date", *PRICE_FIELDS]
SERIES_COLUMNS = ["id", "date", "value"]
COVERAGE_COLUMNS = ["id", "source", "table", "rows", "first", "last"]
DEFAULT_PRIORITY = 0


class Warehouse:
    """Query and write API over the warehouse file. Safe to share between threads.

    It reads everyone's data, and with `owner` (see `viewed_by`) that user's own imports too
    (`data.owners`); never another user's."""

    def __init__(self, path: Path | str, owner: str | None = None) -> None:
        self.path = Path(path)
        self.owner = owner
        self._db = database(self.path)

    def viewed_by(self, owner: str | None) -> Warehouse:
        """This warehouse as `owner` reads it: everyone's data and `owner`'s own imports."""
        if owner == self.owner:
            return self
        view = copy.copy(self)
        view.owner = owner
        return view

    def _view(self, cursor: duckdb.DuckDBPyConnection) -> str | None:
        """Whose imports this read sees: the owner's when they have any, else None (everyone's
        data only; such views share what is cached). Called inside a read."""
        if self.owner is None:
            return None
        return self.owner if self.owner in self._owners(cursor) else None

    def _owners(self, cursor: duckdb.DuckDBPyConnection) -> frozenset[str]:
        if self._db.owners is None:
            self._db.owners = owners_in(cursor)
        return self._db.owners

    def owners(self) -> frozenset[str]:
        """The users who have imported anything (`data.owners`)."""
        with self._db.reading() as cursor:
            return self._owners(cursor)

    def owns_data(self) -> bool:
        """Whether this view's owner has imported anything."""
        return self.owner is not None and self.owner in self.owners()

    def owned_entities(self) -> list[Entity]:
        """The entities this view's owner imported (none without an owner)."""
        if self.owner is None:
            return []
        with self._db.reading() as cursor:
            return owned_entities(cursor, self.owner)

    # ---- reading ---------------------------------------------------------------------------

    def prices(
        self,
        ids: list[str],
        start: date | None = None,
        end: date | None = None,
        freq: PriceFreq = "daily",
    ) -> pd.DataFrame:
        """Tidy bars `[id, date, open, high, low, close, adj_close, volume]`, sorted by id and
        date; weekly/monthly bars are dated on the last trading day of the period.
        `close` is the price as traded: sources that publish only adjusted closes leave it
        empty. `frame.attrs["sources"]` names the sources the values came from."""
        if freq not in ("daily", "weekly", "monthly"):
            raise ValueError(f"freq must be daily, weekly or monthly, not {freq!r}")
        wanted = _ids(ids)
        key = ("prices", tuple(wanted), start, end, freq)
        # The ranks and the rows come from one read, so no write can come between them.
        return self._cached(
            key, lambda cursor: _priced(self._read_prices(cursor, wanted, start, end, freq))
        )

    def _cached(
        self, key: Hashable, read: Callable[[duckdb.DuckDBPyConnection], pd.DataFrame]
    ) -> pd.DataFrame:
        """`read(cursor)`'s frame, kept until the warehouse may change. The cache is looked up
        and filled inside the read, so a write that follows clears what it stores."""
        with self._db.reading() as cursor:
            key = (self._view(cursor), key)
            cached = self._db.frames.get(key)
            if cached is not None:
                return cached
            frame = read(cursor)
            self._db.frames.put(key, frame)
        return frame

    def derived(self, key: Hashable, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """`compute()`'s frame, kept like a read's until the warehouse may change.

        For work done on what the warehouse holds, with everything else it depends on in `key`
        (an interface's arguments): a repeated question costs one lookup. A write while it is
        computed leaves it unserved: it is kept under the count of changes it started under.
        """
        self._db.notice_replaced()
        generation = self._db.generation
        if self.owner is not None:  # what it computes from depends on whose imports it sees
            with self._db.reading() as cursor:
                key = (self._view(cursor), key)
        held = self._db.frames.get(("derived", generation, key))
        if held is not None:
            return held
        frame = compute()
        if self._db.generation == generation:
            self._db.frames.put(("derived", generation, key), frame)
        return frame

    def _read_prices(
        self,
        cursor: duckdb.DuckDBPyConnection,
        wanted: list[str],
        start: date | None,
        end: date | None,
        freq: PriceFreq,
    ) -> pd.DataFrame:
        ranks = self._ranks(cursor, wanted, "prices")
        held = Counter(entity_id for entity_id, _, _ in ranks)
        multi = [i for i in dict.fromkeys(wanted) if held[i] > 1]
        single = [i for i in dict.fromkeys(wanted) if held[i] <= 1]
        params: dict[str, object] = {"single": single, "start": start, "end": end}
        params["mine"] = mine(self.owner)
        sql = f"SELECT * FROM ({SINGLE_SOURCE_PRICES_SQL.format(visible=VISIBLE)})"
        if multi:
            chosen = [(i, src, r) for i, src, r in ranks if held[i] > 1]
            bar_rank = _case([(i, src, str(r.bar_rank)) for i, src, r in chosen])
            adj = _case([(i, None, _literal(src)) for i, src, r in chosen if r.adj_rank == 1])
            picked = PRICES_SQL.format(bar_rank=bar_rank, adj_source=adj, visible=VISIBLE)
            sql = f"WITH picked AS ({picked}) {PRICES_OUT_SQL} UNION ALL {sql}"
            params["multi"] = multi
        if freq != "daily":
            unit = "week" if freq == "weekly" else "month"
            sql = f"WITH daily AS ({sql}) {RESAMPLE_SQL.format(unit=unit)}"
        return cursor.execute(f"{sql} ORDER BY id, date", params).df()

    def series(
        self, ids: list[str], start: date | None = None, end: date | None = None
    ) -> pd.DataFrame:
        """Tidy values `[id, date, value]` sorted by id and date; `attrs["sources"]` as above."""
        wanted = _ids(ids)
        key = ("series", tuple(wanted), start, end)
        return self._cached(key, lambda cursor: self._read_series(cursor, wanted, start, end))

    def _read_series(
        self,
        cursor: duckdb.DuckDBPyConnection,
        wanted: list[str],
        start: date | None,
        end: date | None,
    ) -> pd.DataFrame:
        ranks = self._ranks(cursor, wanted, "series")
        rank = _case([(i, src, str(r.series_rank)) for i, src, r in ranks])
        params = {"ids": wanted, "start": start, "end": end, "mine": mine(self.owner)}
        frame = cursor.execute(SERIES_SQL.format(rank=rank, visible=VISIBLE), params).df()
        sources = sorted(frame["source"].unique().tolist())
        frame = frame[SERIES_COLUMNS]
        frame.attrs["sources"] = sources
        return frame

    def coverage(self, id: str | None = None) -> pd.DataFrame:
        """`[id, source, table, rows, first, last]`, one row per id and source."""
        where = VISIBLE if id is None else f"id = $id AND {VISIBLE}"
        params = {"mine": mine(self.owner)}
        if id is not None:
            params["id"] = id.strip().upper()
        return self._query(
            f'SELECT id, source, "table", rows, first, last FROM coverage WHERE {where} '
            "ORDER BY id, source",
            params,
        )

    def sources(self, id: str) -> list[str]:
        """The sources holding data for an id, most rows first."""
        frame = self.coverage(id)
        return frame.sort_values("rows", ascending=False)["source"].tolist()

    def entity_metadata(self) -> list[Entity]:
        """Entities described in the warehouse itself for everyone (imports from the terminal,
        live discoveries); a user's own are `owned_entities`."""
        return entities_of(self._query(ENTITIES_SQL, {}))

    def meta(self, key: str) -> str | None:
        return self._db.meta(key).get(key)

    def query(self, sql: str, params: dict[str, object] | None = None) -> pd.DataFrame:
        """A read-only SQL query on the warehouse (for tables other modules add)."""
        return self._query(sql, params or {})

    def _query(self, sql: str, params: Mapping[str, object]) -> pd.DataFrame:
        with self._db.reading() as cursor:
            return cursor.execute(sql, params).df()

    def _ranks(
        self, cursor: duckdb.DuckDBPyConnection, ids: list[str], table: str
    ) -> list[tuple[str, str, Rank]]:
        """(id, source, ranks) for these ids (see `source_ranks`), cached until the next write.
        Called inside a read, so a write that follows clears what it stores."""
        view = self._view(cursor)
        cached = self._db.ranks.get(view)
        if cached is None:
            sql = COVERAGE_SQL.format(visible=VISIBLE)  # `source` is the coverage row's
            rows = cursor.execute(sql, {"mine": mine(view)}).fetchall()
            self._db.ranks[view] = cached = source_ranks(rows)
        return [
            (entity_id, source, rank)
            for entity_id in ids
            for source, rank in cached.get((entity_id, table), [])
        ]

    # ---- writing ---------------------------------------------------------------------------

    def write_prices(
        self,
        frame: pd.DataFrame,
        source: str,
        *,
        replace: bool = False,
        priority: int | None = None,
    ) -> int:
        """Store daily bars `[id, date, <any of open…volume>]` from `source` in one transaction.
        Existing rows of that source on the same dates are replaced (all its rows for those ids
        with `replace=True`). Returns the number of rows written."""
        rows = _price_rows(frame)
        with self._db.writer() as connection:
            _write(connection, "prices", rows, source, replace, priority)
        return len(rows)

    def write_series(
        self,
        frame: pd.DataFrame,
        source: str,
        *,
        replace: bool = False,
        priority: int | None = None,
    ) -> int:
        """Store `[id, date, value]` from `source` in one transaction (see `write_prices`)."""
        rows = _series_rows(frame)
        with self._db.writer() as connection:
            _write(connection, "series", rows, source, replace, priority)
        return len(rows)

    def write_entities(self, entities: list[Entity]) -> None:
        """Describe entities the shipped vocabulary does not know (kind, name, aliases…)."""
        with self._db.writer() as connection:
            write_entities_in(connection, entities)

    def set_meta(self, values: dict[str, str]) -> None:
        with self._db.writer() as connection:
            for key, value in values.items():
                connection.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One write transaction for bulk loaders (seeding): use `write_*_in` with it."""
        with self._db.writer() as connection:
            yield connection

    def close(self) -> None:
        self._db.close()


def write_prices_in(
    connection: duckdb.DuckDBPyConnection,
    frame: pd.DataFrame,
    source: str,
    priority: int | None = None,
    replace: bool = False,
) -> int:
    """`Warehouse.write_prices` inside an open `Warehouse.transaction()`."""
    rows = _price_rows(frame)
    _write(connection, "prices", rows, source, replace, priority)
    return len(rows)


def write_series_in(
    connection: duckdb.DuckDBPyConnection,
    frame: pd.DataFrame,
    source: str,
    priority: int | None = None,
    replace: bool = False,
) -> int:
    """`Warehouse.write_series` inside an open `Warehouse.transaction()`."""
    rows = _series_rows(frame)
    _write(connection, "series", rows, source, replace, priority)
    return len(rows)


def write_entities_in(connection: duckdb.DuckDBPyConnection, entities: list[Entity]) -> None:
    """`Warehouse.write_entities` inside an open `Warehouse.transaction()`."""
    now = _now()
    for e in entities:
        connection.execute(
            "INSERT OR REPLACE INTO entities VALUES (?, ?, ?, ?, ?, ?, ?)",
            [e.id.upper(), e.kind, e.name, e.aliases, e.frequency, e.units, now],
        )


def set_meta_in(connection: duckdb.DuckDBPyConnection, values: dict[str, str]) -> None:
    for key, value in values.items():
        connection.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])


def _priced(frame: pd.DataFrame) -> pd.DataFrame:
    """The price columns of a read, `attrs["sources"]` naming the sources its rows came from."""
    sources = {
        name
        for column in ("bar_source", "adj_source")
        for joined in frame[column].dropna().unique()
        for name in str(joined).split(",")
    }
    priced = frame[PRICE_COLUMNS]
    priced.attrs["sources"] = sorted(sources)
    return priced


def _ids(ids: list[str] | str) -> list[str]:
    if isinstance(ids, str):
        ids = [ids]
    return [i.strip().upper() for i in ids]


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _case(values: list[tuple[str, str | None, str]]) -> str:
    """A SQL CASE giving rows of (id[, source]) their value; NULL for every other row."""
    if not values:
        return "NULL"
    whens = " ".join(
        f"WHEN id = {_literal(entity_id)}"
        + (f" AND source = {_literal(source)}" if source is not None else "")
        + f" THEN {value}"
        for entity_id, source, value in values
    )
    return f"CASE {whens} END"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _base_rows(frame: pd.DataFrame, value_columns: list[str]) -> pd.DataFrame:
    missing = [c for c in ("id", "date") if c not in frame.columns]
    if missing:
        raise WarehouseError(f"rows to write lack column(s) {missing}")
    rows = pd.DataFrame(
        {
            "id": frame["id"].astype(str).str.strip().str.upper(),
            "date": pd.to_datetime(frame["date"]).dt.date,
        }
    )
    for column in value_columns:
        rows[column] = (
            pd.to_numeric(frame[column]).astype("float64") if column in frame.columns else None
        )
    rows = rows.dropna(subset=value_columns, how="all")
    duplicated = rows.duplicated(subset=["id", "date"])
    if duplicated.any():
        first = rows[duplicated].iloc[0]
        raise WarehouseError(
            f"{int(duplicated.sum())} duplicate (id, date) row(s), e.g. {first['id']} "
            f"{first['date']}"
        )
    return rows.sort_values(["id", "date"]).reset_index(drop=True)


def _price_rows(frame: pd.DataFrame) -> pd.DataFrame:
    if not any(c in frame.columns for c in ("close", "adj_close")):
        raise WarehouseError("price rows need a close or an adj_close column")
    return _base_rows(frame, list(PRICE_FIELDS))


def _series_rows(frame: pd.DataFrame) -> pd.DataFrame:
    if "value" not in frame.columns:
        raise WarehouseError("series rows need a value column")
    return _base_rows(frame, ["value"])


def _write(
    connection: duckdb.DuckDBPyConnection,
    table: str,
    rows: pd.DataFrame,
    source: str,
    replace: bool,
    priority: int | None,
) -> None:
    if not source.strip():
        raise WarehouseError("a source name is required")
    connection.execute(
        "INSERT INTO sources VALUES ($name, $priority, NULL) ON CONFLICT (name) DO UPDATE "
        "SET priority = CASE WHEN $given THEN excluded.priority ELSE sources.priority END",
        {
            "name": source,
            "priority": DEFAULT_PRIORITY if priority is None else priority,
            "given": priority is not None,
        },
    )
    if rows.empty:
        return
    ids = sorted(rows["id"].unique().tolist())
    register(connection, "incoming", rows)
    try:
        if replace:
            connection.execute(
                f"DELETE FROM {table} WHERE source = $source AND list_contains($ids, id)",
                {"source": source, "ids": ids},
            )
        else:
            connection.execute(
                f"DELETE FROM {table} t USING incoming i "
                "WHERE t.source = $source AND t.id = i.id AND t.date = i.date",
                {"source": source},
            )
        columns = ", ".join(c for c in rows.columns if c not in ("id", "date"))
        connection.execute(
            f"INSERT INTO {table} (id, date, source, {columns}, fetched_at) "
            f"SELECT id, date, $source, {columns}, $now FROM incoming",
            {"source": source, "now": _now()},
        )
    finally:
        connection.unregister("incoming")
    for statement in REFRESH_COVERAGE_SQL:
        connection.execute(statement, {"ids": ids})
