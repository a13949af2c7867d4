"""A spreadsheet a user attaches (CSV, TSV or an Excel workbook) read into the `ClientTable`s a
question is asked over, as printed: blank first rows, a unit row, a spanning title over the years
and the printed cells (`$1,571.7`, `(3.1)`, `—`, `1,298(a)`) are kept for the table readers.

A workbook's sheets are read within the document limits (`data.documents.limits`: the archive's
sizes checked before it is opened, cells counted, a time budget), each filled sheet one table.
"""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, time
from typing import Any

from datapilot.core.context import ClientTable
from datapilot.data.documents.limits import DocumentError, Reading, ReadLimits, check_zip, within
from datapilot.data.documents.workbooks import workbook_sheets

_TEXT_SUFFIXES = ("csv", "tsv")
_WORKBOOK_SUFFIXES = ("xlsx", "xlsm")


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def is_table_file(name: str) -> bool:
    """A file read as tables when attached: a CSV or TSV file, an Excel workbook."""
    return _suffix(name) in (*_TEXT_SUFFIXES, *_WORKBOOK_SUFFIXES)


def read_table_file(
    name: str, data: bytes, *, description: str = "", limits: ReadLimits | None = None
) -> list[ClientTable]:
    """The tables of the file `name`; raises `DocumentError` saying why it cannot be read."""
    return within(name, limits, lambda reading: _read(name, data, description, reading))


def _read(name: str, data: bytes, description: str, reading: Reading) -> list[ClientTable]:
    from datapilot.data.client_data import parse_client_data  # pandas: when a file is read

    stem = name.rsplit(".", 1)[0] or name
    if _suffix(name) in _WORKBOOK_SUFFIXES:
        check_zip(data, reading)
        sheets = _sheets(name, data, reading)
        tables: list[ClientTable] = []
        for title, rows in sheets:
            label = stem if len(sheets) == 1 else f"{stem} {title}"
            tables += parse_client_data(
                _csv(rows), name=label, description=description, source="file"
            )
        return tables
    text = _decode(name, data)
    reading.count_cells(text.count("\n") + 1)
    return parse_client_data(text, name=stem, description=description, source="file")


def _decode(name: str, data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):  # Excel saves Chinese CSV files as GB18030
        try:
            return data.decode(encoding).replace("\r\n", "\n")
        except UnicodeDecodeError:
            continue
    raise DocumentError(f"{name} is not text in UTF-8 or GB18030; save it as UTF-8 and resend it")


def _sheets(name: str, data: bytes, reading: Reading) -> list[tuple[str, list[list[str]]]]:
    sheets = []
    for title, values in workbook_sheets(name, data, reading):
        rows = [[_text(value) for value in row] for row in values]
        while rows and not any(rows[-1]):
            rows.pop()
        if any(any(row) for row in rows):
            sheets.append((title, rows))
    return sheets


def _text(value: Any) -> str:
    """A cell as the sheet shows it, near enough: whole numbers without `.0`, dates in ISO."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime) and value.time() == time(0):
        return value.date().isoformat()
    if isinstance(value, date | datetime | time):
        return value.isoformat()
    return str(value).strip()


def _csv(rows: list[list[str]]) -> str:
    """Rows as CSV, every row as wide as the widest, blank columns at the right left out."""
    width = max(_filled_width(row) for row in rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow((row + [""] * width)[:width])
    return buffer.getvalue()


def _filled_width(row: list[str]) -> int:
    """The cells up to the row's last filled one."""
    return max((i + 1 for i, cell in enumerate(row) if cell), default=0)
