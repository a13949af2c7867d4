"""One way to import a file a user gives, whoever asks (`data import`, the API, the page, a
replica replaying another's import): a table, or the prices or series of entities."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from datapilot.data.changes import DataChange, announce
from datapilot.data.importer import ImportReport
from datapilot.data.tables import TableInfo

if TYPE_CHECKING:
    from datapilot.data.access import DataAccess
    from datapilot.data.shared import SharedData

FileKind = Literal["prices", "series", "table"]


def import_path(
    access: DataAccess,
    path: Path,
    kind: FileKind,
    options: dict[str, Any],
    *,
    shared: Callable[[], SharedData | None] | None = None,
) -> ImportReport | TableInfo:
    """Import the file at `path` (its own name: the type and the source are read from it) into
    `access`'s warehouse. `options`: for a table its `name`; for prices or series those of
    `import_file` (entity_id, mapping, source, name, entity_kind, units); with `owner` (a user id,
    an import through the API) for both, the import is that user's alone. The next question sees
    the new entities; with `shared` (the replicas' log, looked up once the file is in), the
    other replicas import the file too.

    Raises `ImportFileError` or `TableImportError` and writes nothing when the file is unusable."""
    from datapilot.data.importer import import_file
    from datapilot.data.tables import import_table

    outcome: ImportReport | TableInfo
    owner = options.get("owner")
    view = access.for_owner(owner)  # a user's import: checked against what that user reads
    if kind == "table":
        outcome = import_table(view.warehouse, path, options.get("name"), owner=owner)
    else:
        outcome = import_file(view.warehouse, path, kind, catalog=view.catalog, **options)
    access.forget_catalog()
    log = shared() if shared is not None else None
    if log is not None:
        log.record_import(access, path, kind, options)
    if isinstance(outcome, ImportReport):  # dated rows: the watches' alerts look at them
        change = DataChange(
            path=access.warehouse.path,
            ids=tuple(outcome.ids),
            owner=owner,
            origin="import",
            first=outcome.first,
            last=outcome.last,
        )
        announce(change)
    return outcome
