"""Profiles of data sources, the first step of interface design (after Data-Copilot).

A profile says what a source holds — a description, every column with its type, unit, range and
meaning, the frequency and the dates covered, an access example (the interface call that reads
it) and its first and last rows — so that people and models can ask for what it can answer.
Profiles are computed from the warehouse and the store, deterministically and offline.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, Field

from datapilot.data.catalog import Catalog
from datapilot.data.tables import TableInfo, list_tables, read_table
from datapilot.data.warehouse import PRICE_FIELDS, Warehouse

SourceKind = Literal["dataset", "table", "tool"]

_PRICE_MEANINGS = {
    "open": "price of the first trade of the period",
    "high": "highest traded price of the period",
    "low": "lowest traded price of the period",
    "close": "price of the last trade of the period",
    "adj_close": "close adjusted for splits and dividends (returns use it)",
    "volume": "shares (or contracts) traded in the period",
}
_SAMPLE_ROWS = 3


class ColumnProfile(BaseModel):
    name: str
    type: str = Field(description="number, date or text")
    unit: str | None = None
    min: Any = None
    max: Any = None
    meaning: str = ""


class Profile(BaseModel):
    """What one data source holds, and how a plan reads it."""

    source: str = Field(description="The source's name: a dataset, `table:NAME` or `tool:NAME`.")
    kind: SourceKind
    description: str
    entities: list[str] = Field(default_factory=list, description="Entity ids it holds.")
    columns: list[ColumnProfile] = Field(default_factory=list)
    frequency: str | None = None
    first: date | None = None
    last: date | None = None
    rows: int = 0
    access: dict[str, Any] = Field(
        default_factory=dict, description="An interface call (or tool call) that reads it."
    )
    head: list[dict[str, Any]] = Field(default_factory=list)
    tail: list[dict[str, Any]] = Field(default_factory=list)


def profile_all(
    warehouse: Warehouse, catalog: Catalog, tool_sources: Iterable[Any] = ()
) -> list[Profile]:
    """Every dataset of the warehouse, every imported table and every tool source, by name."""
    profiles = dataset_profiles(warehouse, catalog)
    profiles += [table_profile(warehouse, catalog, t) for t in list_tables(warehouse)]
    profiles += [tool_profile(source) for source in tool_sources]
    return profiles


def select(profiles: list[Profile], names: list[str]) -> list[Profile]:
    """The profiles named (by source name, `table:` / `tool:` optional); a clear error naming
    the known ones when a name matches none."""
    if not names:
        return profiles
    chosen: list[Profile] = []
    for name in names:
        key = name.strip().lower()
        found = [
            p
            for p in profiles
            if key in (p.source.lower(), p.source.split(":", 1)[-1].lower())
            or key in (e.lower() for e in p.entities)
        ]
        if not found:
            known = ", ".join(p.source for p in profiles)
            raise LookupError(f"No source named {name!r}; sources: {known}.")
        chosen += [p for p in found if p not in chosen]
    return chosen


def dataset_profiles(warehouse: Warehouse, catalog: Catalog) -> list[Profile]:
    """One profile per warehouse source (a bundled dataset, a provider or an imported file)."""
    coverage = warehouse.coverage()
    profiles: list[Profile] = []
    for (source, table), rows in coverage.groupby(["source", "table"], sort=True):
        profiles.append(_dataset_profile(warehouse, catalog, str(source), str(table), rows))
    return profiles


def _dataset_profile(
    warehouse: Warehouse, catalog: Catalog, source: str, table: str, rows: pd.DataFrame
) -> Profile:
    ids = sorted(rows["id"].astype(str).unique())
    entities = [catalog.get(i) for i in ids]
    kinds = sorted({e.kind for e in entities if e is not None})
    frequencies = sorted({e.frequency for e in entities if e is not None and e.frequency})
    units = {e.id: e.units for e in entities if e is not None and e.units}
    fields = list(PRICE_FIELDS) if table == "prices" else ["value"]
    ranges = warehouse.query(
        "SELECT "
        + ", ".join(f"min({f}) AS min_{f}, max({f}) AS max_{f}" for f in fields)
        + f" FROM {table} WHERE source = $source",
        {"source": source},
    ).iloc[0]
    unit = _one_unit(units.values())
    columns = [
        ColumnProfile(name="id", type="text", meaning="entity id"),
        ColumnProfile(name="date", type="date", meaning="observation date"),
    ]
    for field in fields:
        low, high = ranges[f"min_{field}"], ranges[f"max_{field}"]
        if pd.isna(low) and pd.isna(high):
            continue  # a field this source never fills
        columns.append(
            ColumnProfile(
                name=field,
                type="number",
                unit=None if field == "volume" else unit,
                min=_plain(low),
                max=_plain(high),
                meaning=_PRICE_MEANINGS.get(field, "the series' value in its unit"),
            )
        )
    sample = warehouse.query(
        f"SELECT id, date, {', '.join(fields)} FROM {table} "
        "WHERE source = $source AND id = $id ORDER BY date",
        {"source": source, "id": ids[0]},
    )
    head, tail = _records(sample.head(_SAMPLE_ROWS)), _records(sample.tail(_SAMPLE_ROWS))
    names = [f"{e.id} ({e.name})" for e in entities if e is not None]
    description = (
        f"{len(ids)} {'/'.join(kinds) or 'entity'} {'entity' if len(ids) == 1 else 'entities'} "
        f"({table}) from {source}, {', '.join(frequencies) or 'unknown frequency'}: "
        + ", ".join(names[:12])
        + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    )
    first, last = rows["first"].min(), rows["last"].max()
    return Profile(
        source=f"{source}/{table}",
        kind="dataset",
        description=description,
        entities=ids,
        columns=columns,
        frequency=", ".join(frequencies) or None,
        first=first.date() if pd.notna(first) else None,
        last=last.date() if pd.notna(last) else None,
        rows=int(rows["rows"].sum()),
        access=_access(table, ids[:2], first, last),
        head=head,
        tail=tail,
    )


def _access(table: str, ids: list[str], first: Any, last: Any) -> dict[str, Any]:
    interface = "get_prices" if table == "prices" else "get_series"
    end = last.date().isoformat() if pd.notna(last) else None
    start = (last - pd.DateOffset(years=1)).date().isoformat() if pd.notna(last) else None
    return {"interface": interface, "args": {"ids": ids, "start": start, "end": end}}


def table_profile(warehouse: Warehouse, catalog: Catalog, table: TableInfo) -> Profile:
    """An imported table: its typed columns, which hold entity ids and dates, first/last rows."""
    frame = read_table(warehouse, table.name)
    columns: list[ColumnProfile] = []
    entities: list[str] = []
    dates: pd.Series | None = None
    for name, kind in table.columns.items():
        values = frame[name].dropna()
        meaning, low, high = "", None, None
        if kind == "number" and len(values):
            low, high, meaning = _plain(values.min()), _plain(values.max()), "numeric values"
        elif kind == "date" and len(values):
            low, high = values.min().date(), values.max().date()
            meaning, dates = "observation date", values
        elif kind == "text":
            known = [v for v in values.unique() if catalog.get(str(v)) is not None]
            if known and len(known) == values.nunique():
                entities = sorted(str(v) for v in known)
                meaning = "entity id (catalog ids)"
            else:
                meaning = f"text, {values.nunique()} distinct values"
        columns.append(ColumnProfile(name=name, type=kind, min=low, max=high, meaning=meaning))
    frequency = _frequency(frame, dates, entities, table)
    return Profile(
        source=f"table:{table.name}",
        kind="table",
        description=(
            f"Imported table {table.name!r} from {table.source}: {table.rows} rows, columns "
            + ", ".join(table.columns)
            + (f"; entities {', '.join(entities)}" if entities else "")
            + ". No built-in interface reads it."
        ),
        entities=entities,
        columns=columns,
        frequency=frequency,
        first=dates.min().date() if dates is not None else None,
        last=dates.max().date() if dates is not None else None,
        rows=table.rows,
        access={"sql": f'SELECT * FROM "{table.sql_name}"', "table": table.name},
        head=_records(frame.head(_SAMPLE_ROWS)),
        tail=_records(frame.tail(_SAMPLE_ROWS)),
    )


def _frequency(
    frame: pd.DataFrame, dates: pd.Series | None, entities: list[str], table: TableInfo
) -> str | None:
    from datapilot.data.catalog import infer_frequency

    if dates is None or len(dates) < 2:
        return None
    per_entity = len(dates) / max(len(entities), 1)
    return infer_frequency(int(per_entity), dates.min(), dates.max())


def tool_profile(source: Any) -> Profile:
    """A tool source (an imported OpenAPI document or MCP server): its tools and parameters.
    It is never called here: profiles stay offline."""
    columns = [
        ColumnProfile(
            name=f"{tool.name}.{param}",
            type=str(schema.get("type", "any")) if isinstance(schema, dict) else "any",
            meaning=str(schema.get("description", "")) if isinstance(schema, dict) else "",
        )
        for tool in source.tools
        for param, schema in (tool.parameters.get("properties") or {}).items()
    ]
    first_tool = source.tools[0].name if source.tools else None
    return Profile(
        source=f"tool:{source.name}",
        kind="tool",
        description=(source.description or f"{source.kind} tool source {source.name}")
        + f" — tools: {', '.join(t.name for t in source.tools) or 'none'}",
        columns=columns,
        access={"tool": first_tool, "route": f"POST /api/v1/tools/{first_tool}/call"}
        if first_tool
        else {},
    )


def _one_unit(units: Iterable[str]) -> str | None:
    found = sorted(set(units))
    return found[0] if len(found) == 1 else (", ".join(found) or None)


def _plain(value: Any) -> Any:
    if isinstance(value, pd.Timestamp):
        return value.date()
    if hasattr(value, "item"):
        value = value.item()
    return round(value, 6) if isinstance(value, float) else value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def to_markdown(profiles: list[Profile]) -> str:
    """The profiles as a Markdown document, one section per source."""
    parts: list[str] = []
    for p in profiles:
        lines = [f"## {p.source} ({p.kind})", "", p.description, ""]
        if p.first or p.last or p.frequency:
            lines.append(
                f"- coverage: {p.first} – {p.last}; frequency: {p.frequency}; rows: {p.rows}"
            )
        if p.entities:
            lines.append(f"- entities: {', '.join(p.entities)}")
        if p.access:
            import json

            lines.append(f"- access: `{json.dumps(p.access, ensure_ascii=False, default=str)}`")
        if p.columns:
            lines += [
                "",
                "| column | type | unit | min | max | meaning |",
                "|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {c.name} | {c.type} | {c.unit or ''} | {_cell(c.min)} | {_cell(c.max)} "
                f"| {c.meaning} |"
                for c in p.columns
            ]
        for title, rows in (("First rows", p.head), ("Last rows", p.tail)):
            if rows:
                keys = list(rows[0])
                lines += ["", f"{title}:", "", "| " + " | ".join(keys) + " |"]
                lines.append("|" + "---|" * len(keys))
                lines += ["| " + " | ".join(_cell(r.get(k)) for k in keys) + " |" for r in rows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _cell(value: Any) -> str:
    return "" if value is None else str(value)
