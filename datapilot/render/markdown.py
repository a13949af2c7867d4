"""Markdown table cells for clients that read text: the OpenAI face's reply, MCP text content."""

from __future__ import annotations

import math
from typing import Any


def cell_text(value: Any) -> str:
    """One cell: numbers as Python writes them back exactly (no rounding), missing as empty."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return escape_cell(str(value))


def escape_cell(text: str) -> str:
    """`text` safe inside a cell: a pipe would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")
