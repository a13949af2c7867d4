"""`POST /api/v1/data/imports`: a file of prices, series or a table into the warehouse while the
server runs (the `manage` scope). The import is the caller's user's alone (`data.owners`): their
keys, assistants and chats read it, no one else does, and it can change nothing but that user's
own imports. The write goes through the warehouse's single writer, so it never waits for the
server to stop; the next question on every worker sees the data."""

from __future__ import annotations

import asyncio
import functools
import tempfile
from datetime import date
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from datapilot.assistants.files import FileIn
from datapilot.core.intent import EntityKind
from datapilot.server.deps import MANAGE, SettingsDep, TenantDep
from datapilot.server.errors import (
    ROW_ERRORS,
    VALIDATION_RESPONSES,
    BadRequest,
    Conflict,
    Refused,
    TooLarge,
)
from datapilot.settings import Settings

router = APIRouter(prefix="/api/v1", tags=["Data"], responses=VALIDATION_RESPONSES)
_SUFFIXES = (".csv", ".csv.gz", ".parquet")
_MAX_NAME_BYTES = 255  # a file name's limit on the usual file systems


class DataImportIn(FileIn):
    """A file sent as JSON (its name ends .csv, .csv.gz or .parquet) and how to read it, as
    `datapilot data import` takes it."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["prices", "series", "table"] = Field(
        description="prices (daily bars), series (id, date, value) or table (any columns)."
    )
    entity_id: str | None = Field(
        default=None, max_length=40, description="The entity id when the file has no id column."
    )
    mapping: dict[str, str] = Field(
        default_factory=dict, description='FIELD → COLUMN, e.g. {"close": "Price"}.'
    )
    source: str | None = Field(
        default=None,
        max_length=200,
        description="A label for the import (default import:NAME), stored under your user as "
        "user:<your id>:LABEL: an import replaces only your own import of that label.",
    )
    display_name: str | None = Field(
        default=None,
        max_length=200,
        description="Display name of a new entity; for kind table, the table's name.",
    )
    entity_kind: EntityKind | None = Field(default=None, description="Kind of a new entity.")
    units: str = Field(default="", max_length=40, description="Units of a new entity.")


class DataImportOut(BaseModel):
    kind: str
    source: str = Field(
        description="The source the rows are stored under (prices, series): user:<id>:LABEL."
    )
    ids: list[str] = Field(description="Entity ids imported (prices, series) or the table name.")
    rows: int
    first: date | None = None
    last: date | None = None


@router.post(
    "/data/imports",
    response_model=DataImportOut,
    status_code=201,
    dependencies=MANAGE,
    responses={
        **ROW_ERRORS,
        409: {"description": "A new entity's name or id is already another entity's."},
        413: {"description": "The file inflates beyond DATAPILOT_MAX_BODY_MB when read."},
    },
    summary="Import a file into the warehouse while the server runs",
)
async def import_data(
    body: DataImportIn, settings: SettingsDep, tenant: TenantDep
) -> DataImportOut:
    if not body.name.lower().endswith(_SUFFIXES):
        raise BadRequest(f"name must end with .csv, .csv.gz or .parquet, not {body.name!r}")
    _check_file_name(body.name)
    if tenant.user_id is None:  # a guest has no manage scope; should one get here, it owns nothing
        raise Refused("only a user can import data")
    content = body.data()
    return await asyncio.to_thread(_import, body, content, settings, tenant.user_id)


def _check_file_name(name: str) -> None:
    """Refuse a name no file can have (the import is written under it before it is read)."""
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise BadRequest(
            f"name {name[:80]!r} holds a control character (a NUL byte, a newline…); "
            "send the file's plain name, e.g. prices.csv"
        )
    size = len(Path(name).name.encode())
    if size > _MAX_NAME_BYTES:
        raise BadRequest(
            f"name is too long for a file ({size} bytes; at most "
            f"{_MAX_NAME_BYTES}); send a shorter name, e.g. prices.csv"
        )


def _import(body: DataImportIn, content: bytes, settings: Settings, owner: str) -> DataImportOut:
    from datapilot.data import open_data
    from datapilot.data.importer import (
        ImportClash,
        ImportFileError,
        ImportTooLarge,
        check_inflated_size,
    )
    from datapilot.data.imports import import_path
    from datapilot.data.shared import shared_for
    from datapilot.data.tables import TableImportError, TableInfo

    options: dict[str, Any] = {"name": body.display_name, "owner": owner}
    if body.kind != "table":
        options |= {"entity_id": body.entity_id, "mapping": body.mapping}
        options |= {"source": body.source, "entity_kind": body.entity_kind}
        options |= {"units": body.units}
    with tempfile.TemporaryDirectory(prefix="dp-import-") as folder:
        # The file's own name: the importer reads its type from it and names the source after it.
        path = Path(folder) / Path(body.name).name
        path.write_bytes(content)
        try:
            # A compressed file inflates no further than a body may be (a bomb is refused).
            limit = f"{settings.max_body_mb:g} MB (DATAPILOT_MAX_BODY_MB)"
            check_inflated_size(path, int(settings.max_body_mb * 1024 * 1024), limit)
            # Replicas on PostgreSQL: the others import it too.
            outcome = import_path(
                open_data(settings),
                path,
                body.kind,
                options,
                shared=functools.partial(shared_for, settings.warehouse_path),
            )
        except ImportTooLarge as error:
            raise TooLarge(str(error), setting="max_body_mb") from None
        except ImportClash as error:
            raise Conflict(str(error), code="name_taken") from None
        except (ImportFileError, TableImportError) as error:
            # The message names the file the caller sent, not the server's temporary folder.
            message = str(error).replace(str(path), path.name).replace(folder, "")
            raise BadRequest(message, code="invalid_file") from None
    if isinstance(outcome, TableInfo):
        return DataImportOut(kind="table", source="", ids=[outcome.name], rows=outcome.rows)
    return DataImportOut(
        kind=outcome.kind,
        source=outcome.source,
        ids=outcome.ids,
        rows=outcome.rows,
        first=outcome.first,
        last=outcome.last,
    )
