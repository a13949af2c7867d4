"""Fill a warehouse from the bundled provider, atomically.

The new warehouse is built in a temporary file beside the real one and renamed into place only
once complete, so an interrupted seed is never used. A version stamp (schema + versions of the
packages the data comes from) makes a changed bundle reseed. Data from other sources (imports,
live providers) is carried over into the new file.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from datapilot.data.duckdb_engine import duckdb
from datapilot.data.owners import ENTITIES_SQL, entities_of
from datapilot.data.providers.bundle_packages import SOURCES, package_versions
from datapilot.data.single_writer import lock_path
from datapilot.data.warehouse_file import (
    WarehouseDamaged,
    WarehouseError,
    database,
    opening_error,
)

SCHEMA_VERSION = "1"
_TEMP_MARK = ".seeding-"


@dataclass(frozen=True)
class SeedReport:
    path: Path
    rows: int
    seconds: float
    size_bytes: int
    moved_aside: Path | None = None  # where a damaged previous file went
    # Stored entities left behind: named like another entity (what an older version let in).
    dropped: tuple[str, ...] = ()


def bundle_version() -> str:
    """Changes whenever the bundled data would: the schema or a source package's version."""
    return json.dumps({"schema": SCHEMA_VERSION, **package_versions()}, sort_keys=True)


def is_seeded(path: Path) -> bool:
    """True when `path` holds a complete warehouse seeded from the current bundle."""
    if not path.exists():
        return False
    try:
        # The file layer alone, no data frame: every process that reads data checks this first
        # (and keeps the connection it opened for the reads that follow).
        meta = database(path).meta("complete", "bundle")
    except (duckdb.Error, WarehouseError):
        return False
    return meta.get("complete") == "1" and meta.get("bundle") == bundle_version()


def seed(path: Path, *, show_progress: bool = True, repair: bool = False) -> SeedReport:
    """Build a fresh warehouse at `path` from the bundled data (keeping non-bundled data).

    A damaged file at `path` raises `WarehouseDamaged`, or with `repair` is moved aside under a
    timestamped name (kept, in case it can be rescued) and the warehouse is built anew."""
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(path)
    moved_aside = None
    try:
        check_file(path)
    except WarehouseDamaged:
        if not repair:
            raise
        moved_aside = _move_aside(path)
    temp = path.with_name(f"{path.name}{_TEMP_MARK}{os.getpid()}")
    _remove(temp)
    rows = 0
    dropped: list[str] = []
    # Here, not at the top: every process checks `is_seeded`, few seed (rich: ~20 ms to import;
    # pandas and the bundled provider, where nothing else needs them).
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from datapilot.data.providers.bundled import BundledProvider
    from datapilot.data.warehouse import Warehouse, set_meta_in, write_prices_in, write_series_in

    console = Console(stderr=True)
    try:
        building = Warehouse(temp)
        datasets = BundledProvider().datasets()
        with (
            Progress(
                TextColumn("Preparing offline data: {task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
                disable=not (show_progress and console.is_terminal),
            ) as progress,
            building.transaction() as connection,
        ):
            task = progress.add_task("starting", total=len(datasets) + 1)
            for dataset in datasets:
                progress.update(task, description=f"{dataset.source}: {dataset.name}")
                frame = dataset.load()
                write = write_prices_in if dataset.table == "prices" else write_series_in
                rows += write(connection, frame, dataset.source)
                progress.advance(task)
            progress.update(task, description="keeping your own data")
            if path.exists():
                Warehouse(path).close()
                _carry_over(connection, path)
                dropped = _drop_clashing_entities(connection, path.parent)
            set_meta_in(
                connection,
                {
                    "bundle": bundle_version(),
                    "seeded_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "complete": "1",
                },
            )
            progress.advance(task)
        building.close()
        Warehouse(path).close()
        os.replace(temp, path)
    finally:
        _remove(temp)
    seconds = time.perf_counter() - started
    return SeedReport(path, rows, seconds, path.stat().st_size, moved_aside, tuple(dropped))


def check_file(path: Path) -> None:
    """Raise `WarehouseDamaged` when `path` exists but is no readable warehouse (garbage, cut
    short, another format), `WarehouseLocked` when another process writes it; else nothing."""
    if not path.exists():
        return
    try:
        connection = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as error:
        raise opening_error(path, error) from error
    try:
        connection.execute("SELECT count(*) FROM duckdb_tables()").fetchall()
    except duckdb.Error as error:
        raise WarehouseDamaged(
            f"The warehouse {path} is damaged ({error}). Run `datapilot data seed --force`: it "
            "moves the damaged file aside and rebuilds the warehouse from the bundled data."
        ) from error
    finally:
        connection.close()


def _move_aside(path: Path) -> Path:
    """Rename a damaged warehouse (and its write-ahead log) to `<name>.damaged-<UTC time>`."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    os.replace(path, target)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        os.replace(wal, target.with_name(target.name + ".wal"))
    return target


def _carry_over(connection: duckdb.DuckDBPyConnection, old: Path) -> None:
    """Copy every row not from a bundled source out of the previous warehouse file."""
    bundled = list(SOURCES)
    connection.execute(f"ATTACH '{_sql_path(old)}' AS old (READ_ONLY)")
    try:
        for table in ("prices", "series"):
            connection.execute(
                f"INSERT INTO {table} BY NAME SELECT * FROM old.{table} "
                "WHERE NOT list_contains($bundled, source)",
                {"bundled": bundled},
            )
        connection.execute(
            "INSERT OR REPLACE INTO sources BY NAME SELECT * FROM old.sources "
            "WHERE NOT list_contains($bundled, name)",
            {"bundled": bundled},
        )
        connection.execute("INSERT OR REPLACE INTO entities BY NAME SELECT * FROM old.entities")
        connection.execute(
            "INSERT INTO coverage BY NAME SELECT * FROM old.coverage "
            "WHERE NOT list_contains($bundled, source)",
            {"bundled": bundled},
        )
        # Tables other parts of Datapilot add (fetch log, fundamentals, news…) come over whole.
        ours = {"prices", "series", "sources", "entities", "coverage", "meta"}
        others = connection.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'old'"
        ).fetchall()
        for (table,) in others:
            if table not in ours:
                connection.execute(f'CREATE TABLE "{table}" AS SELECT * FROM old."{table}"')
    except duckdb.Error as error:
        if "lock" in str(error).lower():  # a writer started meanwhile: say so, not "move aside"
            raise opening_error(old, error) from error
        raise WarehouseError(
            f"Could not carry your own data over from {old} into the new warehouse: {error}. "
            f"Move {old} aside to start fresh (your imports would need importing again)."
        ) from error
    # No DETACH: it is refused inside the open transaction; closing the connection releases it.


def _drop_clashing_entities(connection: duckdb.DuckDBPyConnection, data_dir: Path) -> list[str]:
    """Delete the stored entities a question could not tell from another entity (a name the
    vocabulary or an earlier stored entity answers to): the catalog leaves them out anyway.
    Their rows stay, reachable by id. Returns "ID (name: OTHER's)" for each one."""
    from datapilot.data.vocabulary import admit, load_vocabulary, shipped_files, user_files

    vocabulary = load_vocabulary(shipped_files() + user_files(data_dir))
    known = {e.id.upper(): e for e in vocabulary.entities}
    stored = entities_of(connection.execute(ENTITIES_SQL).df())
    left_out = admit(known, stored, "seeding")
    for entity, _name, _other in left_out:
        connection.execute("DELETE FROM entities WHERE id = ?", [entity.id])
    return [f"{e.id} ({name!r} is {other}'s)" for e, name, other in left_out]


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def _remove(path: Path) -> None:
    # The file, its WAL, and the lock file its writes took (`single_writer`).
    for leftover in (path, path.with_name(path.name + ".wal"), lock_path(path)):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def _remove_stale_temps(path: Path) -> None:
    """Delete temporary files left by seeds that were killed (their process is gone)."""
    for temp in path.parent.glob(f"{path.name}{_TEMP_MARK}*"):
        pid = temp.name.rsplit(_TEMP_MARK, 1)[-1].removesuffix(".wal").removesuffix(".write-lock")
        if pid.isdigit() and not _alive(int(pid)):
            _remove(temp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
