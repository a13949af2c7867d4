"""Import a user's own CSV or Parquet file into the warehouse, validated, in one transaction.

Columns are found by common names (Date/日期, Ticker/Symbol/代码, Open/开盘, Close/收盘, Adj Close,
Volume/成交量, Value …) or mapped explicitly (`close=Price`). Every problem is reported with the
file, the row (the line number in a CSV file) and the column; nothing is written unless the whole
file is valid.
"""

from __future__ import annotations

import csv
import gzip
import math
import zlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import pandas as pd

from datapilot.core.intent import EntityKind
from datapilot.data.catalog import Catalog, infer_frequency
from datapilot.data.entity import Entity
from datapilot.data.owners import owned_source, write_owned_entities_in
from datapilot.data.warehouse import (
    PRICE_FIELDS,
    Warehouse,
    write_entities_in,
    write_prices_in,
    write_series_in,
)

ImportKind = Literal["prices", "series"]
# The user's own data wins over bundled (0) and live data on the same dates.
IMPORT_PRIORITY = 100

_SYNONYMS: dict[str, set[str]] = {
    "date": {"date", "datetime", "time", "timestamp", "day", "observationdate", "日期", "交易日期"},
    "id": {"id", "ticker", "symbol", "code", "seriesid", "代码", "股票代码", "证券代码"},
    "open": {"open", "开盘", "开盘价"},
    "high": {"high", "最高", "最高价"},
    "low": {"low", "最低", "最低价"},
    "close": {"close", "price", "last", "收盘", "收盘价"},
    "adj_close": {"adjclose", "adjustedclose", "adjclosing", "复权收盘价"},
    "volume": {"volume", "vol", "成交量"},
    "value": {"value", "val", "obs", "observation", "数值", "值"},
}


class ImportFileError(ValueError):
    """The file cannot be imported as it is; the message says where and what to do."""


class ImportClash(ImportFileError):
    """A new entity of the file would take a name (or id) an entity already answers to."""


class ImportTooLarge(ImportFileError):
    """The file inflates beyond the size it may have (see `check_inflated_size`)."""


def check_inflated_size(path: Path, limit_bytes: int, limit_label: str) -> None:
    """Raise `ImportTooLarge` when the file at `path` would inflate beyond `limit_bytes` once
    read (a .gz file decompressed, a Parquet file's uncompressed pages). A .gz file is inflated
    in 1 MB steps and dropped, so a decompression bomb costs a moment and no memory."""
    suffixes = "".join(path.suffixes).lower()
    size = 0
    if suffixes.endswith(".gz"):
        try:
            with gzip.open(path, "rb") as packed:
                while size <= limit_bytes and (chunk := packed.read(1024 * 1024)):
                    size += len(chunk)
        except (OSError, EOFError, zlib.error) as error:
            raise ImportFileError(f"{path.name}: not a readable .gz file: {error}") from error
    elif suffixes.endswith((".parquet", ".pq")):
        import pyarrow.parquet as pq

        try:
            metadata = pq.ParquetFile(path).metadata
        except (OSError, ValueError) as error:  # pyarrow's errors derive from these
            raise ImportFileError(f"{path.name}: not a readable Parquet file: {error}") from error
        pages = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
        # Repeated values encode to almost nothing; read, each cell takes 8 bytes at least.
        size = max(pages, metadata.num_rows * metadata.num_columns * 8)
    if size > limit_bytes:
        raise ImportTooLarge(
            f"{path.name} inflates to more than {limit_label} when read; nothing was imported. "
            "Send a smaller file (split it), or import it from the server's terminal with "
            "`datapilot data import`."
        )


@dataclass(frozen=True)
class ImportReport:
    file: Path
    kind: ImportKind
    source: str
    ids: list[str]
    rows: int
    first: date
    last: date


def import_file(
    warehouse: Warehouse,
    path: Path,
    kind: ImportKind,
    *,
    entity_id: str | None = None,
    mapping: dict[str, str] | None = None,
    source: str | None = None,
    name: str | None = None,
    entity_kind: EntityKind | None = None,
    units: str = "",
    catalog: Catalog | None = None,
    owner: str | None = None,
) -> ImportReport:
    """Validate `path` and store it as one source; raise `ImportFileError` and write nothing
    if anything is wrong. With `owner` (an import through the API) the rows and new entities
    are that user's alone (`data.owners`): the source is named under the user, so it can
    replace no one else's rows; `catalog` is then the one that user reads."""
    raw, row_offset = _read(path)
    columns = _columns(path, raw, kind, entity_id, mapping or {})
    tidy = _validated(path, raw, kind, columns, entity_id, row_offset)
    tidy["id"] = [_canonical(i, catalog) for i in tidy["id"]]
    source = _source(path, source, owner)
    new_entities = _new_entities(tidy, kind, name, entity_kind, units, catalog)
    _refuse_clashes(path, new_entities, catalog)
    with warehouse.transaction() as connection:
        write = write_prices_in if kind == "prices" else write_series_in
        rows = write(connection, tidy, source, priority=IMPORT_PRIORITY, replace=True)
        if new_entities and owner is not None:
            write_owned_entities_in(connection, owner, new_entities)
        elif new_entities:
            write_entities_in(connection, new_entities)
    dates = pd.to_datetime(tidy["date"])
    return ImportReport(
        path,
        kind,
        source,
        sorted(tidy["id"].unique().tolist()),
        rows,
        dates.min().date(),
        dates.max().date(),
    )


def _source(path: Path, source: str | None, owner: str | None) -> str:
    """The source the rows are stored under: never a bundled one (a reseed owns those)."""
    from datapilot.data.providers.bundled import SOURCES

    label = (source or "").strip() or f"import:{path.name}"
    if owner is not None:
        return owned_source(owner, label)
    if label in SOURCES:
        raise ImportFileError(
            f"{path.name}: {label!r} is a bundled source, which imports may not change; "
            "give the import a source name of its own. Nothing was imported."
        )
    return label


def _read(path: Path) -> tuple[pd.DataFrame, int]:
    """The file's cells as text (Parquet keeps its types), and the number of the first data row
    as a user would count it."""
    if not path.exists():
        raise ImportFileError(f"{path}: no such file.")
    if path.is_file() and path.stat().st_size == 0:
        raise ImportFileError(f"{path}: the file is empty; it needs a header row and data rows.")
    suffixes = "".join(path.suffixes).lower()
    try:
        if suffixes.endswith((".parquet", ".pq")):
            return pd.read_parquet(path), 1
        if suffixes.endswith((".csv", ".csv.gz", ".txt", ".tsv")):
            separator = "\t" if ".tsv" in suffixes else None
            frame = pd.read_csv(
                path,
                dtype=str,
                keep_default_na=False,
                sep=separator,
                engine="python",
                encoding="utf-8-sig",
            )
            return frame, 2  # line 1 is the header
    except UnicodeDecodeError as error:
        raise ImportFileError(
            f"{path}: cannot read the file: byte {error.start} is not UTF-8 text; "
            "save it as a UTF-8 CSV."
        ) from error
    except (OSError, ValueError, csv.Error, pd.errors.ParserError) as error:
        raise ImportFileError(f"{path}: cannot read the file: {error}") from error
    raise ImportFileError(
        f"{path}: unsupported file type; use a .csv (optionally .gz) or .parquet file."
    )


def _key(column: object) -> str:
    return "".join(c for c in str(column).lower() if c.isalnum())


def _columns(
    path: Path,
    raw: pd.DataFrame,
    kind: ImportKind,
    entity_id: str | None,
    mapping: dict[str, str],
) -> dict[str, str]:
    """Field → column of the file, from the explicit mapping first, then common names."""
    fields = ["date", "id", *(PRICE_FIELDS if kind == "prices" else ("value",))]
    found: dict[str, str] = {}
    for field, column in mapping.items():
        if field not in fields:
            raise ImportFileError(
                f"{path}: cannot map {field!r}; fields for {kind}: {', '.join(fields)}."
            )
        if column not in raw.columns:
            raise ImportFileError(
                f"{path}: the mapped column {column!r} (for {field}) is not in the file; "
                f"columns found: {list(raw.columns)}."
            )
        found[field] = column
    for field in fields:
        if field in found:
            continue
        for column in raw.columns:
            if _key(column) in _SYNONYMS[field] and column not in found.values():
                found[field] = column
                break
    if kind == "series" and "value" not in found:
        rest = [c for c in raw.columns if c not in found.values()]
        if len(rest) == 1:  # e.g. a FRED download: DATE, UNRATE
            found["value"] = rest[0]
    hint = "Map it with --map FIELD=COLUMN."
    if "date" not in found:
        raise ImportFileError(f"{path}: no date column; columns found: {list(raw.columns)}. {hint}")
    if "id" not in found and entity_id is None and not (kind == "series" and "value" in found):
        raise ImportFileError(
            f"{path}: no id/ticker column; give the entity with --id or map a column. {hint}"
        )
    if kind == "prices" and not {"close", "adj_close"} & found.keys():
        raise ImportFileError(
            f"{path}: no close or adj_close column; columns found: {list(raw.columns)}. {hint}"
        )
    if kind == "series" and "value" not in found:
        raise ImportFileError(
            f"{path}: no value column; columns found: {list(raw.columns)}. {hint}"
        )
    return found


def _validated(
    path: Path,
    raw: pd.DataFrame,
    kind: ImportKind,
    columns: dict[str, str],
    entity_id: str | None,
    row_offset: int,
) -> pd.DataFrame:
    if raw.empty:
        raise ImportFileError(f"{path}: the file has no data rows.")
    rows = pd.RangeIndex(len(raw)) + row_offset
    tidy = pd.DataFrame(index=raw.index)
    if entity_id is not None:
        _refuse_other_ids(path, raw, entity_id.strip())
        tidy["id"] = entity_id.strip()
    elif "id" in columns:
        tidy["id"] = raw[columns["id"]].astype(str).str.strip()
        _fail_where(path, rows, tidy["id"] == "", columns["id"], raw[columns["id"]], "no id")
    else:
        tidy["id"] = str(columns["value"]).strip()
    dates = raw[columns["date"]]
    parsed = pd.to_datetime(dates, errors="coerce")
    _fail_where(
        path,
        rows,
        parsed.isna(),
        columns["date"],
        dates,
        "cannot read this as a date (use ISO dates like 2024-01-31)",
    )
    tidy["date"] = parsed.dt.normalize()
    # A day of slack: the file may come from a time zone already past midnight.
    latest = pd.Timestamp(date.today()) + pd.Timedelta(days=1)
    _fail_where(
        path, rows, tidy["date"] > latest, columns["date"], dates, "the date is in the future"
    )
    fields = [f for f in (*PRICE_FIELDS, "value") if f in columns]
    for field in fields:
        cells = raw[columns[field]]
        text = cells.astype(str).str.strip().str.replace(",", "", regex=False)
        empty = cells.isna() | (text == "")
        numbers = pd.to_numeric(text.where(~empty), errors="coerce")
        _fail_where(path, rows, numbers.isna() & ~empty, columns[field], cells, "not a number")
        infinite = numbers.abs() == math.inf
        _fail_where(path, rows, infinite, columns[field], cells, "not a finite number")
        if field != "value":  # prices and volumes; a series may well go below zero
            _fail_where(path, rows, numbers < 0, columns[field], cells, f"{field} is negative")
        tidy[field] = numbers.astype("float64")
    needed = ["close", "adj_close"] if kind == "prices" else ["value"]
    present = [f for f in needed if f in tidy.columns]
    label = " or ".join(columns[f] for f in present)
    _fail_where(path, rows, tidy[present].isna().all(axis=1), label, None, "the value is empty")
    if {"high", "low"} <= set(tidy.columns):
        _fail_where(
            path,
            rows,
            tidy["high"] < tidy["low"],
            columns["high"],
            raw[columns["high"]],
            "high is below low",
        )
    duplicated = tidy.duplicated(subset=["id", "date"], keep=False)
    if duplicated.any():
        first = tidy[duplicated].iloc[0]
        same = rows[(duplicated & (tidy["id"] == first["id"]) & (tidy["date"] == first["date"]))]
        raise ImportFileError(
            f"{path}: rows {', '.join(str(r) for r in same[:5])} all hold {first['id']} on "
            f"{first['date'].date()} (column {columns['date']!r}); keep one row per id and date "
            f"({int(duplicated.sum())} rows are affected)."
        )
    return tidy.reset_index(drop=True)


def _refuse_other_ids(path: Path, raw: pd.DataFrame, entity_id: str) -> None:
    """With --id, an id column naming other entities is a contradiction, not something to
    overwrite: every row would land on one entity."""
    for column in raw.columns:
        if _key(column) not in _SYNONYMS["id"]:
            continue
        named = sorted({str(cell).strip() for cell in raw[column]} - {"", entity_id})
        if named:
            shown = ", ".join(named[:5]) + (", …" if len(named) > 5 else "")
            raise ImportFileError(
                f"{path}: --id {entity_id} was given but column {column!r} names "
                f"{shown}; drop --id to import each id from the file, or keep only "
                f"{entity_id}'s rows. Nothing was imported."
            )


def _fail_where(
    path: Path,
    rows: pd.Index,
    bad: pd.Series,
    column: str,
    cells: pd.Series | None,
    problem: str,
) -> None:
    if not bad.any():
        return
    position = int(bad.to_numpy().argmax())
    shown = "" if cells is None else f" {cells.iloc[position]!r}:"
    others = int(bad.sum()) - 1
    more = f" ({others} more row{'s' if others != 1 else ''} like it)" if others else ""
    raise ImportFileError(
        f"{path}, row {rows[position]}, column {column!r}:{shown} {problem}{more}. "
        "Nothing was imported."
    )


def _canonical(entity_id: str, catalog: Catalog | None) -> str:
    known = catalog.get(entity_id) if catalog is not None else None
    return known.id if known is not None else entity_id.strip().upper()


def _refuse_clashes(path: Path, entities: list[Entity], catalog: Catalog | None) -> None:
    """Raise `ImportClash` when a new entity would take a name the catalog (or another new
    entity) answers to: one name must lead to one entity, or no question could be read."""
    from datapilot.data.vocabulary import clashes, name_index

    seen: list[Entity] = []
    for entity in entities:
        found = [(n, e.id, e.name) for n, e in catalog.clashes(entity)] if catalog else []
        earlier = {e.id.upper(): e for e in seen}
        found += [(n, i, earlier[i].name) for n, i in clashes(entity, name_index(seen))]
        if found:
            name, other, other_name = found[0]
            raise ImportClash(
                f"{path.name}: the name {name!r} of the new entity {entity.id} is already taken "
                f"by {other} ({other_name}); give the import another display name, or import "
                f"the rows under {other}'s id. Nothing was imported."
            )
        seen.append(entity)


def _new_entities(
    tidy: pd.DataFrame,
    kind: ImportKind,
    name: str | None,
    entity_kind: EntityKind | None,
    units: str,
    catalog: Catalog | None,
) -> list[Entity]:
    """Metadata for ids the catalog does not know, so they become findable by id and name."""
    entities = []
    for entity_id, rows in tidy.groupby("id", sort=True):
        if catalog is not None and catalog.get(str(entity_id)) is not None:
            continue
        dates = pd.to_datetime(rows["date"])
        entities.append(
            Entity(
                id=str(entity_id),
                kind=entity_kind or ("stock" if kind == "prices" else "macro"),
                name=name or str(entity_id),
                frequency=infer_frequency(len(rows), dates.min(), dates.max()),
                units=units,
                source="import",
            )
        )
    return entities
