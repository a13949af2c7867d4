"""Tables the client sent (dashboard widgets, pasted data): which one a question means, its
columns, and whether it can be charted."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from datapilot.brains.offline.phrases import Hit
from datapilot.core.context import ClientTable

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def find_tables(
    text: str, tables: Sequence[ClientTable], hits: Iterable[Hit], named_entities: bool
) -> tuple[list[ClientTable], list[str]]:
    """Client tables the question refers to, by name or as "this widget / my data"."""
    if not tables:
        return [], []
    lowered = text.casefold()
    named = [t for t in tables if t.name and t.name.casefold() in lowered]
    if named:
        return named, [f'"{t.name}" → the table you sent' for t in named]
    pointed = [h for h in hits if h.has("cue:client_table")]
    if pointed:
        return list(tables[:1]), [f'"{pointed[0].text}" → the table "{tables[0].name}" you sent']
    if not named_entities:
        return list(tables[:1]), [f'no entity named: using the table "{tables[0].name}" you sent']
    return [], []


def table_columns(text: str, table: ClientTable) -> list[str]:
    """Columns of a client table the question names ("average close" → close)."""
    lowered = text.casefold()
    found = []
    for column in table.columns:
        name = str(column).strip()
        if name and re.search(rf"(?<![a-z0-9]){re.escape(name.casefold())}(?![a-z0-9])", lowered):
            found.append(name)
    return found


def has_dates(table: ClientTable) -> bool:
    """A column named like a date, or holding ISO dates."""
    words = ("date", "time", "day", "month", "period", "日期", "时间")
    if any(any(w in str(c).casefold() for w in words) for c in table.columns):
        return True
    first = table.rows[0] if table.rows else []
    return any(isinstance(v, str) and ISO_DATE.match(v) for v in first)


def numeric_columns(table: ClientTable, wanted: list[str]) -> list[str]:
    """Columns (among `wanted`, if given) whose values are mostly numbers."""
    found = []
    for index, column in enumerate(table.columns):
        if wanted and column not in wanted:
            continue
        values = [row[index] for row in table.rows if index < len(row) and row[index] is not None]
        numbers = sum(_is_number(v) for v in values)
        if values and numbers >= 0.8 * len(values):
            found.append(str(column))
    return found


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    try:
        float(str(value).replace(",", "").rstrip("%"))
    except ValueError:
        return False
    return True
