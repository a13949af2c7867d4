"""The data workflow as one tool, and interfaces as tools.

`DataWorkflowTool` runs a question through the existing pipeline (brain → plan → interfaces →
summary): the model gets the summary and the tables in short, the user gets the tables and
charts themselves. `InterfaceTool` calls one interface whose arguments are plain values (no
frames from earlier steps), as a one-call plan checked like any other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput, Output, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, Step
from datapilot.engine.context import RequestContext
from datapilot.interfaces.registry import InterfaceSpec
from datapilot.tools.base import ToolOutput

WORKFLOW_TOOL = "ask_data"
_TABLE_ROWS = 12  # rows of each table a model sees; the user gets them all


def describe_answer(answer: Answer) -> str:
    """An Answer in a few lines a model can read: status, summary, tables in short, charts."""
    lines = [f"status: {answer.status}"]
    if answer.message:
        lines.append(f"message: {answer.message}")
    if answer.intent is not None and (answer.intent.start or answer.intent.end):
        lines.append(f"window: {answer.intent.start} to {answer.intent.end}")
    if answer.summary:
        lines.append(f"summary: {answer.summary}")
    lines.extend(describe_outputs(answer.outputs))
    notes = answer.unsaid_notes()
    if notes:
        lines.append("notes: " + " ".join(notes))
    return "\n".join(lines)


def describe_outputs(outputs: list[Output]) -> list[str]:
    lines: list[str] = []
    for output in outputs:
        if isinstance(output, TableOutput):
            lines.append(f"table {output.title!r} ({len(output.rows)} rows):")
            lines.append(" | ".join(output.columns))
            shown = output.rows[:_TABLE_ROWS]
            lines.extend(" | ".join(_cell(cell) for cell in row) for row in shown)
            if len(output.rows) > len(shown):
                lines.append(f"… {len(output.rows) - len(shown)} more rows shown to the user")
        elif isinstance(output, ChartOutput):
            lines.append(f"chart {output.title!r} ({output.chart_type}), shown to the user")
        elif isinstance(output, TextOutput):
            lines.append(output.text)
    return lines


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


@dataclass
class DataWorkflowTool:
    """Answer a finance data question with Datapilot's own pipeline."""

    request: RequestContext
    name: str = WORKFLOW_TOOL
    source: str = "workflow"
    description: str = (
        "Answer a question about market or economic data (prices, returns, volatility, "
        "drawdowns, macro series, comparisons, forecasts) with Datapilot's data workflow. "
        "Ask one self-contained question with entities and dates; you get the summary and "
        "the tables, and the user sees the tables and charts."
    )
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "question": {
                    "type": "string",
                    "description": "A self-contained question, English or Chinese.",
                }
            },
            "required": ["question"],
        }
    )

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        from datapilot.brains import answer as answer_question

        question = str(arguments.get("question") or "").strip()
        if not question:
            raise ValueError("give the question to answer in `question`")
        request = RequestContext(
            question=self.request.question.model_copy(update={"history": []}),
            settings=self.request.settings,
            data=self.request.data,
            registry=self.request.registry,
        )
        answer = await answer_question(question, request)
        return ToolOutput(text=describe_answer(answer), outputs=answer.outputs, answer=answer)


@dataclass
class InterfaceTool:
    """One interface of the library whose arguments are plain values."""

    request: RequestContext
    spec: InterfaceSpec
    source: str = "interface"

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def parameters(self) -> dict[str, Any]:
        schema = self.spec.json_schema()
        schema.pop("title", None)
        return schema

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        from datapilot.engine.executor import execute

        plan = Plan(
            steps=[Step(calls=[Call(interface=self.spec.name, args=arguments, output="r")])]
        )
        ctx = await asyncio.to_thread(self.request.interface_context)
        result = await execute(
            plan,
            ctx,
            registry=self.request.registry,
            call_timeout_s=self.request.settings.call_timeout_s,
        )
        record = result.calls[0]
        if record.status != "ok":
            raise RuntimeError(record.error or record.status)
        value = result.values.get("r")
        lines = describe_outputs(result.outputs)
        if isinstance(value, pd.DataFrame):
            lines.insert(0, _frame_text(value))
        elif value is not None and not lines:
            lines.append(str(value))
        frame = value if isinstance(value, pd.DataFrame) else None
        return ToolOutput(text="\n".join(lines) or "done", outputs=result.outputs, frame=frame)


def _frame_text(frame: pd.DataFrame) -> str:
    """A frame's size, first and last rows (a model needs its shape, not every row)."""
    head = f"{len(frame)} rows × {len(frame.columns)} columns"
    if len(frame) <= 2 * _TABLE_ROWS:
        return f"{head}\n{frame.to_csv()}"
    shown = pd.concat([frame.head(_TABLE_ROWS), frame.tail(_TABLE_ROWS)])
    return f"{head}; first and last {_TABLE_ROWS} rows:\n{shown.to_csv()}"


def interface_tools(request: RequestContext) -> list[InterfaceTool]:
    """The interfaces a model can call on their own: those without frame arguments."""
    return [
        InterfaceTool(request, spec)
        for spec in request.registry
        if all(param.frame is None for param in spec.params.values())
    ]
