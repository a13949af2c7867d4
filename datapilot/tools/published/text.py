"""Tables as text, for hosts that read only a tool result's `content` (most MCP hosts do): a
Markdown table at full precision, capped past a number of rows with a note saying where the rest
is. The same rows are in `structuredContent`, whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from datapilot.render.markdown import cell_text, escape_cell


def markdown_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    max_rows: int,
    units: Mapping[str, str] | None = None,
) -> str:
    """`title`, then the table in Markdown; past `max_rows` the first and last halves, with a line
    naming how many rows were left out (a time series' start and its latest values both count)."""
    lines = [f"**{escape_cell(title)}** ({len(rows):,} rows)" if title else f"{len(rows):,} rows"]
    if units:
        lines.append("Units: " + ", ".join(f"{column}: {unit}" for column, unit in units.items()))
    lines.append("| " + " | ".join(escape_cell(str(column)) for column in columns) + " |")
    lines.append("|" + "---|" * len(columns))
    if len(rows) <= max_rows:
        shown: list[Sequence[Any] | None] = list(rows)
    else:
        head = max_rows // 2
        shown = [*rows[:head], None, *rows[len(rows) - (max_rows - head) :]]
    left_out = len(rows) - min(len(rows), max_rows)
    for row in shown:
        if row is None:
            note = f"… {left_out:,} rows left out here"
            lines.append("| " + " | ".join([note, *([""] * (len(columns) - 1))]) + " |")
        else:
            lines.append("| " + " | ".join(cell_text(cell) for cell in row) + " |")
    if left_out:
        lines.append(
            f"({left_out:,} of {len(rows):,} rows are not shown here; structuredContent has "
            "every row, or ask for a shorter window.)"
        )
    return "\n".join(lines)
