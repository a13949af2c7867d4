"""What users add to the warehouse, shared by replicas through a log they all reach.

Each replica keeps its own warehouse file (the bundled data is seeded per replica). When the
platform runs on PostgreSQL, every write a user makes — a file imported (`data import`, the API,
the page), rows fetched live — is also recorded in the store (`store.shared_data`); before a
question, each replica applies the entries its warehouse has not applied yet, in order, and notes
the last one in the warehouse's `meta`. An import is replayed from the file itself with its
options (the importer checks it again, and a user's import stays that user's: its owner is one of
them); fetched rows from Parquet. Applying an entry twice changes nothing (a source's
rows are replaced, not added).
"""

from __future__ import annotations

import io
import logging
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

if TYPE_CHECKING:
    from datapilot.data.access import DataAccess
    from datapilot.data.providers.live import Download

log = logging.getLogger(__name__)
APPLIED = "shared_applied"  # the warehouse meta key: the last entry applied to this file


class LogEntry(Protocol):
    """One entry of the log: `kind` import | prices | series, the file's name or the source,
    the import's options or the entity, and the file or the rows (Parquet)."""

    @property
    def id(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def payload(self) -> bytes: ...


class DataLog(Protocol):
    """Where replicas share entries (the platform's store implements it)."""

    def record(self, kind: str, name: str, options: dict[str, Any], payload: bytes) -> int: ...

    def last_id(self) -> int: ...

    def after(self, entry_id: int) -> Sequence[LogEntry]: ...


_shared: dict[Path, SharedData] = {}
_shared_lock = threading.Lock()


def share(path: Path, log: DataLog) -> SharedData:
    """Keep the warehouse at `path` in step with `log` (a server on PostgreSQL does this)."""
    with _shared_lock:
        shared = _shared[path.resolve()] = SharedData(log)
        return shared


def shared_for(path: Path) -> SharedData | None:
    with _shared_lock:
        return _shared.get(path.resolve())


def unshare(path: Path) -> None:
    with _shared_lock:
        _shared.pop(path.resolve(), None)


class SharedData:
    """One warehouse kept in step with a shared log (the warehouse reached through `access`)."""

    def __init__(self, log: DataLog) -> None:
        self.log = log
        self._lock = threading.Lock()

    # ---- recording ------------------------------------------------------------------------

    def record_import(
        self, access: DataAccess, path: Path, kind: str, options: dict[str, Any]
    ) -> None:
        """A file this replica has just imported, for the others (and its own next start)."""
        self._record(access, "import", path.name, {"kind": kind, **options}, path.read_bytes())

    def record_download(self, access: DataAccess, download: Download, provider: str) -> None:
        """Rows this replica has just fetched live (prices, series) and their entity."""
        entity = download.entity.model_dump(mode="json")
        for kind, frame in (("prices", download.prices), ("series", download.series)):
            if frame is not None and not frame.empty:
                buffer = io.BytesIO()
                frame.to_parquet(buffer, index=False)
                self._record(access, kind, provider, {"entity": entity}, buffer.getvalue())

    def _record(
        self, access: DataAccess, kind: str, name: str, options: dict[str, Any], payload: bytes
    ) -> None:
        """Log an entry this warehouse already holds, and mark it applied when it is the next.
        The write here has succeeded: a store that is away costs the other replicas the entry
        (said in the log), never this answer or import."""
        try:
            entry_id = self.log.record(kind, name, options, payload)
        except Exception as error:
            log.warning("%s %s not shared: %s: %s", kind, name, type(error).__name__, error)
            return
        warehouse = access.warehouse
        if int(warehouse.meta(APPLIED) or 0) == entry_id - 1:
            warehouse.set_meta({APPLIED: str(entry_id)})

    # ---- applying -------------------------------------------------------------------------

    def catch_up(self, access: DataAccess) -> int:
        """Apply the entries this warehouse lacks; how many. Asked before every question: one
        indexed look at the log, so an import through any replica is answered at once by all."""
        with self._lock:
            applied = int(access.warehouse.meta(APPLIED) or 0)
            try:
                if self.log.last_id() <= applied:
                    return 0
                entries = self.log.after(applied)
            except Exception as error:  # the store is away: answer from what is here
                log.warning("shared data not read: %s: %s", type(error).__name__, error)
                return 0
            for entry in entries:
                try:
                    self._apply(access, entry)
                except Exception as error:  # one bad entry must not stop the others, nor answers
                    log.warning("shared data entry %s not applied: %s", entry.id, error)
                access.warehouse.set_meta({APPLIED: str(entry.id)})
            if entries:
                access.forget_catalog()  # entities imported in place: read the catalog again
            return len(entries)

    def _apply(self, access: DataAccess, entry: LogEntry) -> None:
        from datapilot.data.entity import Entity

        if entry.kind == "import":
            self._apply_import(access, entry)
            return
        frame = pd.read_parquet(io.BytesIO(entry.payload))
        if entry.kind == "prices":
            access.warehouse.write_prices(frame, entry.name)
        elif entry.kind == "series":
            access.warehouse.write_series(frame, entry.name)
        else:
            raise ValueError(f"unknown kind {entry.kind!r}")
        entity = Entity.model_validate(entry.options["entity"])
        access.router([]).register([entity], available=True)

    def _apply_import(self, access: DataAccess, entry: LogEntry) -> None:
        from datapilot.data.imports import import_path

        options = dict(entry.options)
        kind = options.pop("kind")
        with tempfile.TemporaryDirectory(prefix="dp-shared-") as folder:
            path = Path(folder) / Path(entry.name).name
            path.write_bytes(entry.payload)
            import_path(access, path, kind, options)
