"""A chat without a model uses the assistant's tools when the data brain could not answer.

The question is matched against the tools (`choose_tool`), the chosen tool's arguments are filled
from the question (`fill_arguments`), and then, as with a model: a consequential call waits for the
user's go-ahead, a read-only one runs. Several close tools → the answer asks which; a required
argument the question does not give → the answer names it and shows the call, nothing is sent.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import date

from datapilot.assistants.models import ToolCallRecord
from datapilot.brains.offline.tool_args import Filled, fill_arguments
from datapilot.brains.offline.tool_choice import ToolSpec, choose_tool
from datapilot.core.answer import Answer
from datapilot.core.events import ConfirmationEvent, Event, OutputEvent, StatusEvent
from datapilot.core.intent import Intent
from datapilot.data.text import is_chinese
from datapilot.tools import Tool, ToolResult, run_tool

# The user's tools: imported operations, MCP tools, designed and plugin interfaces. The data
# workflow is the brain that just answered, and the interpreter runs code no question spells out.
OFFLINE_SOURCES = frozenset({"openapi", "mcp", "interface"})


@dataclass
class ToolReply:
    """What the tools made of a question: the answer, the events, a call left waiting."""

    answer: Answer
    events: list[Event] = field(default_factory=list)
    pending: ToolCallRecord | None = None
    result: ToolResult | None = None


def spec_of(tool: Tool) -> ToolSpec:
    return ToolSpec(
        name=tool.name,
        description=tool.description,
        parameters=tool.parameters,
        source=tool.source,
    )


async def answer_with_tools(
    question: str,
    tools: dict[str, Tool],
    today: date,
    *,
    can_ask: bool,
    timeout_s: float = 60.0,
    intent: Intent | None = None,
) -> ToolReply | None:
    """The tools' answer to `question`, or None when no tool is about it. The words that chose
    the tool and filled its arguments count as read in `intent`'s ledger, kept on the answer."""
    from datapilot.assistants.runtime import NOT_CONFIRMED, confirmation

    zh = is_chinese(question)
    tools = {name: t for name, t in tools.items() if t.source in OFFLINE_SOURCES}
    if not tools:
        return None
    choice = choose_tool(question, [spec_of(t) for t in tools.values()])
    answer = Answer(query=question, today=today, status="no_data")
    if choice.status == "none":
        return None
    if choice.status == "ask":
        names = [c.name for c in choice.candidates]
        answer.message = (
            f"有几个工具都可能回答这个问题：{'、'.join(names)}。您想用哪一个？"
            if zh
            else f"Several of your tools could answer this: {', '.join(names)}. Which one?"
        )
        return ToolReply(answer=answer)
    assert choice.tool is not None
    tool = tools[choice.tool.name]
    filled = fill_arguments(question, tool.name, tool.parameters, today)
    if intent is not None and intent.ledger is not None:
        intent.ledger.mark_read([*choice.words, *filled.words], "tool", tool.name)
        answer.intent = intent
    answer.notes.append(trace(filled, choice.words, zh))
    if filled.missing:
        needs = filled.missing_text(tool.parameters)
        answer.message = (
            f"{tool.name} {needs}，问题里没有给出。将要发出的调用：`{filled.call_text()}`"
            if zh
            else f"{tool.name} {needs}, which the question does not give. "
            f"The call would be: `{filled.call_text()}`"
        )
        return ToolReply(answer=answer)
    arguments = json.dumps(filled.arguments, ensure_ascii=False)
    reason = confirmation(tool, arguments)
    if reason is not None:
        if not can_ask:
            answer.message = NOT_CONFIRMED.format(name=tool.name, reason=reason.rstrip("?. "))
            return ToolReply(answer=answer)
        record = ToolCallRecord(
            id=f"offline-{uuid.uuid4().hex[:12]}",
            name=tool.name,
            arguments=arguments,
            confirmation=reason,
        )
        answer.status = "ok"
        answer.summary = reason
        event = ConfirmationEvent(
            tool=tool.name, arguments=filled.arguments, message=reason, call_id=record.id
        )
        return ToolReply(answer=answer, events=[event], pending=record)
    outcome = await run_tool(tool, filled.arguments, timeout_s=timeout_s)
    events: list[Event] = [StatusEvent(message=f"Calling {tool.name}…")]
    if not outcome.ok:
        answer.status = "error"
        answer.message = outcome.text
        return ToolReply(answer=answer, events=events, result=outcome)
    answer.status = "ok"
    answer.outputs = list(outcome.outputs)
    answer.sources = [tool.name]
    answer.summary = (
        f"{tool.name}（{filled.call_text()}）返回：{outcome.text}"
        if zh
        else f"{tool.name} ({filled.call_text()}) returned: {outcome.text}"
    )
    events += [OutputEvent(output=output) for output in outcome.outputs]
    return ToolReply(answer=answer, events=events, result=outcome)


def trace(filled: Filled, words: list[str], zh: bool) -> str:
    """Which tool, chosen by which words, and where each argument came from."""
    origins = "; ".join(f"{arg} = {origin}" for arg, origin in filled.origins.items())
    chosen_by = ", ".join(words) or "—"
    if zh:
        return f"使用工具 {filled.tool}（依据：{chosen_by}）；参数：{origins or '无'}"
    return f"Used the tool {filled.tool} (chosen by: {chosen_by}); arguments: {origins or 'none'}"
