"""Tables for clients that read text (the OpenAI face's reply, MCP text content) and the terminal:
Markdown cells, and the headers a person reads."""

from __future__ import annotations

import math
from typing import Any

from datapilot.core.outputs import TableOutput
from datapilot.data.display import column_headers
from datapilot.data.text import is_chinese


def cell_text(value: Any) -> str:
    """One cell: numbers as Python writes them back exactly (no rounding), a whole number
    without a decimal point (a volume of 3739100, not 3739100.0), missing as empty."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return escape_cell(str(value))


def escape_cell(text: str) -> str:
    """`text` safe inside a cell: a pipe would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def table_headers(table: TableOutput) -> list[str]:
    """What a person reads above each column: the table's own headers, else the columns' display
    names in the language of its title, with their units (`data.display`)."""
    if len(table.headers) == len(table.columns):
        return list(table.headers)
    return column_headers(table.columns, table.units, is_chinese(table.title))
