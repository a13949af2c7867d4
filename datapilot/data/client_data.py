"""Turn data a client sent as text (widget data, explicit context) into `ClientTable`s.

Accepted shapes, tried in this order:
- JSON: a list of records (nested keys flattened with "."), a list of lists of records (one table
  each), `{"columns": [...], "rows"|"data": [[...]]}`, a dict of equal-length columns, a wrapper
  dict holding records under `data`/`results`/`items`/`records`/`rows`, or a single record;
- a markdown table (`| a | b |` with a `|---|---|` rule);
- CSV or TSV with a header row and the same number of fields on every line;
- anything else: a one-column `content` table, one row per non-empty line.

Pure parsing: no server or model imports, so every front end and brain can reuse it.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from datapilot.core.context import ClientTable

CONTENT_COLUMN = "content"
_RECORD_KEYS = ("data", "results", "items", "records", "rows")
_MARKDOWN_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


def parse_client_data(
    text: str, *, name: str = "data", description: str = "", source: str = "client"
) -> list[ClientTable]:
    """Parse `text` into tables named `name`, `name_2`, …; empty text gives no table."""
    stripped = text.strip()
    if not stripped:
        return []
    frames = _from_json(stripped)
    if frames is None:
        frames = _from_markdown(stripped) or _from_delimited(stripped) or [_from_lines(stripped)]
    frames = [frame for frame in frames if len(frame.columns)]
    tables = []
    for index, frame in enumerate(frames):
        frame.columns = _unique_names([str(column) for column in frame.columns])
        tables.append(
            ClientTable(
                name=name if index == 0 else f"{name}_{index + 1}",
                description=description,
                source=source,
                columns=list(frame.columns),
                rows=[[_plain(value) for value in row] for row in frame.itertuples(index=False)],
            )
        )
    return tables


def _from_json(text: str) -> list[pd.DataFrame] | None:
    if text[0] not in '[{"':
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, str):
        # Double-encoded JSON happens in widget payloads; plain strings fall through to text.
        inner = value.strip()
        if inner:
            return _from_json(inner) or [_from_lines(inner)]
        return []
    return _frames_from_value(value)


def _frames_from_value(value: Any) -> list[pd.DataFrame]:
    if isinstance(value, list):
        if value and all(isinstance(item, list) for item in value):
            if all(item and all(isinstance(row, dict) for row in item) for item in value):
                return [_records(item) for item in value]
            return [_matrix(value)]
        if value and all(isinstance(item, dict) for item in value):
            return [_records(value)]
        return [pd.DataFrame({"value": value})]
    if isinstance(value, dict):
        columns = value.get("columns")
        rows = value.get("rows", value.get("data"))
        if isinstance(columns, list) and isinstance(rows, list):
            return [_rectangle(rows, [str(column) for column in columns])]
        for key in _RECORD_KEYS:
            inner = value.get(key)
            if isinstance(inner, list) and inner and all(isinstance(row, dict) for row in inner):
                return [_records(inner)]
        lengths = {len(v) for v in value.values() if isinstance(v, list)}
        if value and len(lengths) == 1 and all(isinstance(v, list) for v in value.values()):
            return [pd.DataFrame(value)]
        return [_records([value])]
    return [pd.DataFrame({CONTENT_COLUMN: [value]})]


def _records(records: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.json_normalize(records)


def _matrix(rows: list[list[Any]]) -> pd.DataFrame:
    header, body = rows[0], rows[1:]
    if body and header and all(isinstance(cell, str) for cell in header):
        return _rectangle(body, header)
    width = max(len(row) for row in rows)
    return _rectangle(rows, [f"column_{i + 1}" for i in range(width)])


def _rectangle(rows: list[Any], columns: list[str]) -> pd.DataFrame:
    """Rows cut or padded to the header's width, as a markdown table is read."""
    width = len(columns)
    cells = [
        list(row)[:width] + [None] * (width - len(row)) for row in rows if isinstance(row, list)
    ]
    return pd.DataFrame(cells, columns=columns)


def _unique_names(names: list[str]) -> list[str]:
    """Every column named, no name twice: blanks become `column_N`, repeats get `_2`, `_3`…"""
    unique: list[str] = []
    for number, name in enumerate(names, start=1):
        candidate = name.strip() or f"column_{number}"
        base, copy = candidate, 1
        while candidate in unique:
            copy += 1
            candidate = f"{base}_{copy}"
        unique.append(candidate)
    return unique


def _from_markdown(text: str) -> list[pd.DataFrame]:
    lines = [line.strip() for line in text.splitlines()]
    frames: list[pd.DataFrame] = []
    i = 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and _MARKDOWN_RULE.match(lines[i + 1]):
            header = _markdown_cells(lines[i])
            body: list[list[str]] = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = _markdown_cells(lines[i])
                body.append((cells + [""] * len(header))[: len(header)])
                i += 1
            frames.append(_typed(pd.DataFrame(body, columns=_unique_names(header))))
        else:
            i += 1
    return frames


def _markdown_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _from_delimited(text: str) -> list[pd.DataFrame]:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return []
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters=",;\t|")
    except csv.Error:
        return []
    rows = list(csv.reader(lines, delimiter=dialect.delimiter, skipinitialspace=True))
    while len(rows) > 2 and not any(cell.strip() for cell in rows[0]):
        rows = rows[1:]  # a spreadsheet's blank first rows (",,") are no header
    header = rows[0]
    widths = {len(row) for row in rows}
    if widths != {len(header)} or len(header) < 2:
        return []
    if not any(cell.strip() for cell in header):
        return []
    # A statement's printed header leaves its label column blank (",2019,2018"): named, kept.
    return [_typed(pd.DataFrame(rows[1:], columns=_unique_names(header)))]


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Numbers written as text become numbers; other columns stay text."""
    for column in frame.columns:
        cleaned = frame[column].astype(str).str.strip().str.replace(",", "", regex=False)
        numbers = pd.to_numeric(cleaned.mask(cleaned == ""), errors="coerce")
        if numbers.notna().sum() == (cleaned != "").sum() and numbers.notna().any():
            frame[column] = numbers
    return frame


def _from_lines(text: str) -> pd.DataFrame:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return pd.DataFrame({CONTENT_COLUMN: lines})


def _plain(value: Any) -> Any:
    """A JSON-safe Python value: tables travel inside resume state and to models."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, str | int | float | bool):
        return value
    return str(value)


def tables_to_text(tables: Iterable[ClientTable], max_rows: int = 20) -> str:
    """A compact CSV preview of tables, e.g. to show a model what the client sent."""
    parts = []
    for table in tables:
        frame = table.to_frame()
        preview = frame.head(max_rows).to_csv(index=False)
        more = f"… {len(frame) - max_rows} more rows\n" if len(frame) > max_rows else ""
        parts.append(f"## {table.name} ({len(frame)} rows)\n{preview}{more}")
    return "\n".join(parts)


# --- numbers written for people ------------------------------------------------------------------

_MISSING = {"", "-", "—", "–", "n/a", "na", "nan", "none", "null", "--"}
_SCALES = {"k": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "b": 1e9, "bn": 1e9, "t": 1e12, "tn": 1e12}
_HUMAN_NUMBER = re.compile(
    r"^(?P<sign>[-+−]?)\s*(?P<open>\()?\s*[-+−]?\s*[$€£¥]?\s*[-+−]?\s*(?P<digits>\d[\d,]*(?:\.\d+)?|\.\d+)"
    r"\s*(?P<scale>k|mm|mn|m|bn|b|tn|t)?\s*(?P<percent>%)?\s*(?P<close>\))?$",
    re.IGNORECASE,
)


def parse_number(value: Any) -> float | None:
    """A number as people write it in tables: `1,234.5`, `$1,234`, `12%` (→ 12), `(3.4)` (→ −3.4),
    `1.2B` (→ 1.2e9), `-5.1M`; None for blanks, dashes and text that is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | np.integer | np.floating):
        number = float(value)
        return None if math.isnan(number) else number
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.casefold() in _MISSING:
        return None
    match = _HUMAN_NUMBER.match(text)
    if match is None or bool(match["open"]) != bool(match["close"]):
        try:
            number = float(text)  # 1e5, inf
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    number = float(match["digits"].replace(",", ""))
    number *= _SCALES.get((match["scale"] or "").casefold(), 1.0)
    lead = text[: match.start("digits")]
    negative = bool(match["open"]) or "-" in lead or "−" in lead
    return -number if negative else number


def is_missing(value: Any) -> bool:
    """A blank cell: None, NaN, or a dash / "n/a" written as text."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip().casefold() in _MISSING


def percent_written(values: Iterable[Any]) -> bool:
    """True when the present text values are written with a % sign."""
    texts = [v for v in values if isinstance(v, str) and not is_missing(v)]
    return bool(texts) and all(v.strip().rstrip(")").endswith("%") for v in texts)


def dollars_written(values: Iterable[Any]) -> bool:
    """True when the present text values are written with a leading $ sign."""
    texts = [v.strip().lstrip("(-−") for v in values if isinstance(v, str) and not is_missing(v)]
    return bool(texts) and all(v.startswith("$") for v in texts)
