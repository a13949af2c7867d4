"""An Excel workbook's sheets as rows of cell values, within a reading's limits: the one reader
of `.xlsx` files, for library documents and for the tables a chat's attachment holds."""

from __future__ import annotations

import io
from typing import Any

from datapilot.data.documents.limits import DocumentError, Reading


def workbook_sheets(
    name: str, data: bytes, reading: Reading
) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """Each sheet's title and its rows of values (as openpyxl gives them), every cell counted
    against the reading's limits; `DocumentError` for a file that is not a workbook."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises zip, XML and key errors for broken files
        raise DocumentError(
            f"{name} is not a readable Excel workbook ({type(error).__name__}); save it as .xlsx "
            "again"
        ) from error
    sheets = []
    try:
        for sheet in book.worksheets:
            if (sheet.max_row or 0) * (sheet.max_column or 0) > reading.limits.cells:
                # A declared dimension this large pads every row to it: read the cells there are.
                sheet.reset_dimensions()
            rows = []
            for row in sheet.iter_rows(values_only=True):
                reading.count_cells(len(row))
                rows.append(row)
            sheets.append((sheet.title, rows))
    finally:
        book.close()
    return sheets
