"""The warehouse file: one DuckDB file per path in this process, read side by side and written
by one writer at a time (across processes too, through `single_writer`), and what its errors
mean for the user. The query API over it is `warehouse.Warehouse`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from datapilot.data import single_writer
from datapilot.data.duckdb_engine import duckdb
from datapilot.data.frame_cache import FrameCache

SCHEMA = """
CREATE TABLE IF NOT EXISTS prices (
    id VARCHAR NOT NULL, date DATE NOT NULL, source VARCHAR NOT NULL,
    open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, adj_close DOUBLE, volume DOUBLE,
    fetched_at TIMESTAMP NOT NULL);
CREATE TABLE IF NOT EXISTS series (
    id VARCHAR NOT NULL, date DATE NOT NULL, source VARCHAR NOT NULL, value DOUBLE NOT NULL,
    fetched_at TIMESTAMP NOT NULL);
CREATE TABLE IF NOT EXISTS entities (
    id VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, name VARCHAR NOT NULL, aliases VARCHAR[],
    frequency VARCHAR, units VARCHAR, updated_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS sources (
    name VARCHAR PRIMARY KEY, priority INTEGER NOT NULL, description VARCHAR);
CREATE TABLE IF NOT EXISTS coverage (
    id VARCHAR NOT NULL, source VARCHAR NOT NULL, "table" VARCHAR NOT NULL, rows BIGINT,
    first DATE, last DATE, has_bars BOOLEAN, adj_first DATE, adj_last DATE, fetched_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
"""


class Rank(NamedTuple):
    bar_rank: int
    adj_rank: int
    series_rank: int


class WarehouseError(RuntimeError):
    """The warehouse cannot be opened or written, or data given to it is malformed."""

    #: The command or step that repairs it, when there is one (health checks show it).
    fix: str | None = None


class WarehouseLocked(WarehouseError):
    """Another process holds the warehouse file (a writer, or a reader when we want to write)."""

    fix = "wait for the other Datapilot process to finish, or stop it, then try again"


class WarehouseDamaged(WarehouseError):
    """The warehouse file exists but is not a readable DuckDB database."""

    fix = "datapilot data seed --force"


def file_identity(path: Path) -> tuple[int, int] | None:
    """The file behind `path` (device, inode), or None when there is none: a reseed or a copy
    puts a new file in place, which an open connection would never see."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


class _Database:
    """One DuckDB file shared by every Warehouse on the same path in this process.

    Reads share the read-only connection through cursors (one per concurrent read, reused), so
    one thread's query never waits for another's; a write waits until no read is running and
    holds `lock` — which new reads also need — until it is done.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._reads = 0
        self._writers_waiting = 0
        self._reader: duckdb.DuckDBPyConnection | None = None
        self._idle: list[duckdb.DuckDBPyConnection] = []
        self._identity: tuple[int, int] | None = None  # the file the reader has open
        # The ranks (see `Warehouse._ranks`) per viewer: None for everyone's data only.
        self.ranks: dict[str | None, dict[tuple[str, str], list[tuple[str, Rank]]]] = {}
        self.owners: frozenset[str] | None = None  # the users who own imports (`data.owners`)
        self.frames = FrameCache()  # read results; cleared with `ranks`
        # Counts the times the contents may have changed: a frame computed from reads keeps the
        # count it started under, and is served only while it holds (see `Warehouse.derived`).
        self.generation = 0

    def forget(self) -> None:
        """Drop what was read from the file (its contents may change): call with no read running."""
        self.generation += 1
        self.ranks = {}
        self.owners = None
        self.frames.clear()

    def notice_replaced(self) -> None:
        """Read the new file from now on if it was replaced under us (a reseed in another
        process), forgetting what was read from the old one."""
        if self._reader is not None and file_identity(self.path) != self._identity:
            self.close()
            self.forget()

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of the read-only connection for one read, alongside other threads' reads."""
        if not self.path.exists():
            with self.writer():
                pass
        self.notice_replaced()
        try:
            cursor = self._checkout()
        except WarehouseLocked:
            # Another process writes the file in place: read once its write is done (its lock
            # first, then ours, in the order writers take them).
            with single_writer.write_lock(self.path):
                cursor = self._checkout()
        try:
            yield cursor
        finally:
            with self._changed:
                self._reads -= 1
                self._idle.append(cursor)
                self._changed.notify_all()

    def _checkout(self) -> duckdb.DuckDBPyConnection:
        """A cursor for one read (the connection opened first if need be), counted as running."""
        with self._changed:
            while self._writers_waiting:
                self._changed.wait()
            if self._reader is None:
                # Before connecting: should the file change in between, the next read reopens.
                self._identity = file_identity(self.path)
                self._reader = _connect(self.path, read_only=True)
            cursor = self._idle.pop() if self._idle else self._reader.cursor()
            self._reads += 1
            return cursor

    def meta(self, *keys: str) -> dict[str, str]:
        """Those of `keys` the `meta` table holds, with their values: read as plain rows, so
        checking a warehouse needs neither pandas nor a data frame per row."""
        with self.reading() as cursor:
            rows = cursor.execute(
                "SELECT key, value FROM meta WHERE list_contains($keys, key)", {"keys": list(keys)}
            ).fetchall()
        return {str(key): str(value) for key, value in rows}

    @contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection for one transaction; the file goes back to read-only after.

        One writer at a time across processes (`single_writer`): in place when no other process
        reads the file, else on a copy put in place after the commit."""
        # The cross-process lock first, then this process's (always in this order: waiting for
        # readers below releases `lock` for a while, and another writer must not take it then).
        with single_writer.write_lock(self.path), self.lock:
            self.close()
            self.forget()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            copy: Path | None = None
            try:
                connection = _connect(self.path, read_only=False)
            except WarehouseLocked:
                # Another process (a running server's workers) reads the file.
                copy = single_writer.copy_for_writing(self.path)
                connection = _connect(copy, read_only=False)
            try:
                connection.execute(SCHEMA)
                connection.execute("BEGIN TRANSACTION")
                try:
                    yield connection
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
                connection.execute("COMMIT")
                if copy is not None:
                    connection.execute("CHECKPOINT")  # everything in the file, nothing in a WAL
                    connection.close()
                    single_writer.put_in_place(copy, self.path)
                    copy = None
            finally:
                connection.close()
                if copy is not None:
                    single_writer.discard(copy)

    def close(self) -> None:
        """Close the read-only connection and its cursors once no read is running."""
        with self._changed:
            self._writers_waiting += 1
            try:
                while self._reads:
                    self._changed.wait()
            finally:
                self._writers_waiting -= 1
                self._changed.notify_all()
            for cursor in self._idle:
                cursor.close()
            self._idle.clear()
            if self._reader is not None:
                self._reader.close()
                self._reader = None


_databases: dict[Path, _Database] = {}
_databases_lock = threading.Lock()


def database(path: Path) -> _Database:
    resolved = path.expanduser().resolve()
    with _databases_lock:
        return _databases.setdefault(resolved, _Database(resolved))


def close_all() -> None:
    """Close every open warehouse file of this process (tests, reseeding)."""
    with _databases_lock:
        for database in _databases.values():
            database.close()
        _databases.clear()


def finish_writes() -> None:
    """Wait until no write of this process is under way (a process ending without teardown):
    writes close their connection as they end, and the read-only connections left hold nothing
    unwritten, so the files are left to the system to close (~4 ms of closing DuckDB)."""
    with _databases_lock:
        databases = list(_databases.values())
    for database in databases:
        with database.lock:  # a write holds it from its start to its connection's close
            pass


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as error:
        raise opening_error(path, error) from error


def opening_error(path: Path, error: duckdb.Error) -> WarehouseError:
    """What DuckDB's refusal to open `path` means for the user, and what to do about it."""
    text = str(error)
    if "lock" in text.lower():
        return WarehouseLocked(
            f"Cannot open the warehouse {path}: another Datapilot process has it open (writing "
            "locks out everyone; any reader, such as a running server, locks out writers). "
            "Wait for it or stop it, then try again."
        )
    if "permission denied" in text.lower():
        return WarehouseError(
            f"Cannot open the warehouse {path}: permission denied. Give your user access to "
            f"{path.parent}, or point DATAPILOT_DATA_DIR at a folder you can write."
        )
    return WarehouseDamaged(
        f"The warehouse {path} is damaged ({text}). Run `datapilot data seed --force`: it "
        "moves the damaged file aside and rebuilds the warehouse from the bundled data."
    )
