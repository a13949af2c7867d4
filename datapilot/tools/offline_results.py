"""A tool's result in an answer without a model, shown as the engine shows any other data.

A tabular result (an imported operation's records, an MCP tool's structured rows, an interface's
frame) becomes a frame the way the acquisition path frames an imported operation's records
(`tools.acquisition.to_frame`: a date column becomes the index). The frame then goes through a
two-step plan run by the engine's executor, the tool's call first (standing in with the frame it
already returned: the tool is not called twice) and a display second: a line chart for dated
numbers, a table otherwise. The summary is the engine's template summary of that run, so every
number in it (first, last, change, high, low) is computed from the result. A scalar or a text is
quoted with the tool's call and where it came from.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

import pandas as pd

from datapilot.core.events import Event, OutputEvent
from datapilot.core.intent import Intent
from datapilot.core.outputs import Output, TableOutput
from datapilot.core.plan import Call, Plan, Step, Task
from datapilot.core.understanding import Understanding
from datapilot.engine.executor import default_registry, execute
from datapilot.engine.summary import template_summary
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Registry
from datapilot.net import shown_address
from datapilot.tools.acquisition import acquisition_spec, to_frame
from datapilot.tools.base import Tool, ToolResult
from datapilot.tools.mcp_client import shown_server

# The label a tool's data carries in `Answer.sources` and its frames' `sources`; the summary
# reads a frame with it like a table the user sent: its columns are the subjects.
TOOL_SOURCE_PREFIX = "tool: "  # as `engine.summary.answers` reads it
_RESULT = "result"
_SHOWN = "shown"


@dataclass
class Shown:
    """A tool's result as the answer shows it."""

    summary: str
    outputs: list[Output] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    plan: Plan | None = None
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    empty: bool = False


def origin_of(tool: Tool, zh: bool) -> str:
    """Where a tool's answers come from, in words: the imported API (its document's name and
    address), the MCP server, or the package of an added interface."""
    spec = getattr(tool, "spec", None)
    # Addresses are shown without what may be a key in them (user:password@, ?api_key=, a
    # command's arguments): guests see this, and their history keeps it.
    if tool.source == "openapi":
        document = str(getattr(spec, "qualified", tool.name)).split(".", 1)[0]
        url = shown_address(str(getattr(spec, "base_url", "") or ""))
        where = f" ({url})" if url else ""
        return f"导入的接口 {document}{where}" if zh else f"the imported API {document}{where}"
    if tool.source == "mcp":
        server = getattr(tool, "source_name", tool.name)
        address = shown_server(getattr(tool, "server", None) or {})
        where = f" ({address})" if address else ""
        return f"MCP 服务器 {server}{where}" if zh else f"the MCP server {server}{where}"
    module = str(getattr(getattr(spec, "func", None), "__module__", "") or "")
    package = module.split(".", 1)[0] or tool.name
    return f"接口插件 {package}" if zh else f"the interface plugin {package}"


def result_frame(result: ToolResult, source: str) -> pd.DataFrame | None:
    """The tool's result as a tagged frame: the frame an interface returned, else its first
    table framed as the acquisition path frames one (dates as the index)."""
    if isinstance(result.frame, pd.DataFrame):
        frame = result.frame.copy()
        # The tool first; then what the interface read (a designed one's imported table).
        own = [s for s in result.frame.attrs.get("sources") or [] if s != source]
        frame.attrs = {**result.frame.attrs, "sources": [source, *own]}
        frame.attrs.setdefault("kind", _kind(frame))
    else:
        tables = [o for o in result.outputs if isinstance(o, TableOutput)]
        if not tables:
            return None
        frame = to_frame(tables[0], source)
    return _labelled(frame)


def _kind(frame: pd.DataFrame) -> str:
    return "timeseries" if isinstance(frame.index, pd.DatetimeIndex) else "cross_section"


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows numbered 0, 1, 2… named by their first column of distinct labels instead (tea,
    coffee), so the summary says which row a number belongs to."""
    if not isinstance(frame.index, pd.RangeIndex) or frame.empty:
        return frame
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_string_dtype(values) and values.notna().all() and values.is_unique:
            labelled = frame.set_index(column)
            labelled.attrs = frame.attrs
            return labelled
    return frame


def call_title(tool: Tool, arguments: dict[str, Any]) -> str:
    """A title for what the call brought: the operation and the values asked for,
    `fxHistory (EUR, 2026-11-01)`."""
    spec = getattr(tool, "spec", None)
    server_tool = getattr(tool, "tool", None)  # an MCP tool's own entry
    operation = str(getattr(spec, "operation", "") or "") or tool.name
    if isinstance(server_tool, dict) and server_tool.get("name"):
        operation = str(server_tool["name"])
    values = ", ".join(str(value) for value in arguments.values())
    return f"{operation} ({values})" if values else operation


def quoted(text: str) -> str:
    """A tool's text as said in an answer: a JSON object of plain values as `key: value`
    pairs (`currency: EUR, rate: 0.9213`), anything else as it came."""
    try:
        value = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(value, dict) and value and all(_plain(v) for v in value.values()):
        return ", ".join(f"{key}: {item}" for key, item in value.items())
    return text.strip()


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


async def show_result(
    question: str,
    tool: Tool,
    arguments: dict[str, Any],
    call_text: str,
    result: ToolResult,
    today: date,
    *,
    intent: Intent | None,
    zh: bool,
) -> Shown:
    """`result` (a successful call) as the answer's outputs, summary and sources."""
    origin = origin_of(tool, zh)
    source = f"{TOOL_SOURCE_PREFIX}{tool.name} ({origin_of(tool, zh=False)})"
    frame = result_frame(result, source)
    if frame is None:
        text = quoted(result.text) or ("（空）" if zh else "(nothing)")
        summary = (
            f"{call_text} 返回：{text}（来源：{origin}）"
            if zh
            else f"{call_text} returned: {text} (source: {origin})"
        )
        return Shown(summary=summary, outputs=list(result.outputs), sources=[source])
    if frame.empty:
        summary = (
            f"{call_text} 没有返回任何记录（来源：{origin}）。"
            if zh
            else f"{call_text} returned no records (source: {origin})."
        )
        return Shown(summary=summary, sources=[source], empty=True)
    frame.attrs["title"] = call_title(tool, arguments)
    return await _shown_frame(question, tool, arguments, frame, today, intent, zh, source)


async def _shown_frame(
    question: str,
    tool: Tool,
    arguments: dict[str, Any],
    frame: pd.DataFrame,
    today: date,
    intent: Intent | None,
    zh: bool,
    source: str,
) -> Shown:
    dated = isinstance(frame.index, pd.DatetimeIndex) and len(frame) > 1
    chart = dated and not frame.select_dtypes(include="number").empty
    display = "plot_line" if chart else "show_table"
    title = str(frame.attrs["title"])
    plan = Plan(
        tasks=[
            Task(
                kind="data",
                instruction=f"调用 {title}" if zh else f"Call {title}",
            ),
            Task(
                kind="visualization",
                instruction=(
                    ("画出折线图" if chart else "以表格显示")
                    if zh
                    else ("Draw it as a line chart" if chart else "Show it as a table")
                ),
            ),
        ],
        steps=[
            Step(calls=[Call(interface=tool.name, args=arguments, output=_RESULT)]),
            Step(
                calls=[
                    Call(
                        interface=display,
                        args={"frame": {"$ref": _RESULT}, "title": title},
                        output=_SHOWN,
                    )
                ]
            ),
        ],
    )
    registry = Registry()
    library = default_registry()
    registry.register(library.get(display))
    # The call already ran (checked, confirmed, under its timeout): its frame stands in for it.
    registry.register(
        dataclasses.replace(acquisition_spec(tool), func=lambda ctx, **_: frame.copy())
    )
    run = await execute(plan, _context(today, zh), registry=registry)
    understanding = Understanding(
        intent=intent or Intent(rewritten=question), plan=plan, status="ok"
    )
    summary = template_summary(question, understanding, run)
    return Shown(
        summary=summary,
        outputs=list(run.outputs),
        events=[OutputEvent(output=output) for output in run.outputs],
        plan=plan,
        notes=list(run.notes),
        sources=list(frame.attrs.get("sources") or [source]),
    )


def _context(today: date, zh: bool) -> InterfaceContext:
    # A tool's frame is drawn and tabled without the warehouse or the catalog: the display
    # interfaces read neither for a frame they are given (the catalog only to name entities).
    return InterfaceContext(
        warehouse=cast(Any, None),
        catalog=cast(Any, None),
        today=today,
        language="zh" if zh else "en",
    )
