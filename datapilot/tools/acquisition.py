"""Imported tools as acquisition interfaces, so a plan can fetch from a user's own API and go on
with the engine's processing and charts ("chart the data from my research API").

An imported tool's tabular result becomes a frame: a column of dates becomes its index (a time
series the charts and measures accept), otherwise it is a cross-section. The interface takes the
tool's own parameters; the tool checks them with jsonschema before anything is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import pandas as pd
from pydantic import ConfigDict, Field, create_model

from datapilot.core.outputs import TableOutput
from datapilot.interfaces.frame import tag
from datapilot.interfaces.registry import InterfaceError, InterfaceSpec, Param, Registry
from datapilot.tools.base import Tool

_DATE_NAMES = ("date", "time", "day", "period", "timestamp", "日期", "时间")


def to_frame(table: TableOutput, source: str) -> pd.DataFrame:
    """A tool's table as a tagged frame: indexed by its date column when it has one."""
    frame = pd.DataFrame(table.rows, columns=table.columns)
    for column in frame.columns:
        if frame[column].dtype == object:
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().all():
                frame[column] = converted
    date_column = _date_column(frame)
    if date_column is None:
        return tag(frame, kind="cross_section", title=table.title, sources=[source])
    index = pd.to_datetime(frame.pop(date_column), errors="coerce")
    frame.index = pd.DatetimeIndex(index, name="date")
    frame = frame[frame.index.notna()].sort_index()
    return tag(frame, kind="timeseries", title=table.title, sources=[source])


def _date_column(frame: pd.DataFrame) -> str | None:
    for column in frame.columns:
        named = any(word in str(column).lower() for word in _DATE_NAMES)
        if not named or frame[column].dtype.kind in "if":
            continue
        parsed = pd.to_datetime(frame[column], errors="coerce", format="mixed")
        if parsed.notna().all():
            return str(column)
    return None


def acquisition_spec(tool: Tool) -> InterfaceSpec:
    """`tool` as an acquisition interface returning a frame (its parameters as arguments)."""
    schema = tool.parameters
    required = set(schema.get("required", []))
    params: dict[str, Param] = {}
    fields: dict[str, Any] = {}
    for name, sub in (schema.get("properties") or {}).items():
        description = str(sub.get("description", "")) if isinstance(sub, dict) else ""
        params[name] = Param(
            name=name,
            annotation=Any,
            required=name in required,
            default=None,
            description=description,
            frame=None,
        )
        fields[name] = (Any, Field(... if name in required else None, description=description))

    def fetch(ctx: Any, **arguments: Any) -> pd.DataFrame:
        # Runs in the executor's worker thread, which has no event loop of its own.
        output = asyncio.run(tool.call(arguments))
        tables = [o for o in output.outputs if isinstance(o, TableOutput)]
        if not tables:
            raise InterfaceError(
                f"{tool.name} answered without a table of records, so there is nothing to "
                "chart or compute; call it as a tool to read its answer"
            )
        return to_frame(tables[0], tool.name)

    model = create_model(
        f"{tool.name}_args",
        __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True),
        **fields,
    )
    return InterfaceSpec(
        name=tool.name,
        category="acquisition",
        returns="frame",
        description=f"{tool.description} (imported API; returns its records as a table)",
        func=fetch,
        params=params,
        _model=model,
        # It calls the user's API from the server: only an operation that changes nothing is
        # read-only (sandboxed code may call it through the interpreter's data channel).
        read_only=getattr(getattr(tool, "spec", None), "consequential", True) is False,
    )


def with_imported(registry: Registry, tools: Iterable[Tool]) -> Registry:
    """A copy of `registry` with each imported tool added as an acquisition interface."""
    combined = Registry()
    for spec in registry:
        combined.register(spec)
    for tool in tools:
        if tool.source in ("openapi", "mcp") and tool.name not in combined:
            combined.register(acquisition_spec(tool))
    return combined
