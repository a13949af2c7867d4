"""Which tools a chat without a model may pick: the user's imported, MCP and interface tools,
never the data workflow (the brain that just answered) or the code interpreter."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from datapilot.tools import ToolOutput
from datapilot.tools.offline import answer_with_tools


@dataclass
class Recorder:
    name: str
    source: str
    description: str = "Run Python code to compute anything"
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Python code"}},
            "required": ["code"],
        }
    )
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        self.calls.append(arguments)
        return ToolOutput(text="42")


async def test_interpreter_and_workflow_are_not_offline_tools() -> None:
    tools = {
        "python": Recorder("python", "interpreter"),
        "data_workflow": Recorder("data_workflow", "workflow"),
    }
    reply = await answer_with_tools(
        "run python code to compute anything", tools, date(2026, 11, 27), can_ask=True
    )
    assert reply is None
    assert all(not t.calls for t in tools.values())


async def test_the_same_tool_imported_is_called() -> None:
    tool = Recorder("compute", "mcp")
    reply = await answer_with_tools(
        "run python code to compute anything", {"compute": tool}, date(2026, 11, 27), can_ask=True
    )
    # Chosen, but its code is not in the question: named, never invented or sent.
    assert reply is not None and reply.answer.status == "no_data"
    assert reply.answer.message is not None and "`code`" in reply.answer.message
    assert tool.calls == []
