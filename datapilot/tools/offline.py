"""Without a model, a question the data brain could not answer goes to the user's own tools.

The question is matched against the tools (`choose_tool`), the chosen tool's arguments are filled
from the question (`fill_arguments`), and then, as with a model: a consequential call waits for the
user's go-ahead, a read-only one runs. Several close tools → the answer asks which; a required
argument the question does not give → the answer names it and shows the call, nothing is sent.

Chats keep a waiting call and run it on `run` (`assistants.runtime`); the faces that cannot ask
(`ask`, MCP `ask`, stateless API calls) say how to run it instead (`try_user_tools`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from datapilot.core.answer import Answer
from datapilot.core.events import ConfirmationEvent, Done, Event, OutputEvent, StatusEvent
from datapilot.core.intent import Intent
from datapilot.data.text import is_chinese

if TYPE_CHECKING:
    from datapilot.brains.offline.tool_args import Filled
    from datapilot.brains.offline.tool_choice import ToolSpec
    from datapilot.engine.context import RequestContext
    from datapilot.settings import Settings
    from datapilot.store import Store

    # The tools' machinery (their result models) loads when a tool is tried: a question the
    # data answers never does (`try_user_tools`).
    from datapilot.tools.base import Tool, ToolResult

log = logging.getLogger(__name__)

# The user's tools: imported operations, MCP tools, designed and plugin interfaces. The data
# workflow is the brain that just answered, and the interpreter runs code no question spells out.
OFFLINE_SOURCES = frozenset({"openapi", "mcp", "interface"})
# The answers after which the user's tools are tried.
UNANSWERED = frozenset({"no_data", "out_of_scope"})
# The library's own interfaces live in this package; any other module's were added by the user.
_OWN_PACKAGE = "datapilot."

CANNOT_ASK = (
    "{name} needs your confirmation first ({reason}), and this face cannot ask for it. Run it "
    "from a Datapilot chat, which asks you; or yourself: `datapilot tools call {name} "
    "'{arguments}'`; or mark it trusted: `datapilot tools trust {name}`."
)
CANNOT_ASK_ZH = (
    "{name} 需要您先确认（{reason}），这里无法询问。请在 Datapilot 对话中运行（会先询问您），"
    "或自行调用：`datapilot tools call {name} '{arguments}'`，"
    "或将其设为信任：`datapilot tools trust {name}`。"
)


@dataclass
class PendingCall:
    """A call that waits for the user's go-ahead: the tool, its arguments (JSON) and why."""

    id: str
    name: str
    arguments: str
    reason: str


@dataclass
class ToolReply:
    """What the tools made of a question: the answer, the events, a call left waiting."""

    answer: Answer
    events: list[Event] = field(default_factory=list)
    pending: PendingCall | None = None
    result: ToolResult | None = None


def spec_of(tool: Tool) -> ToolSpec:
    from datapilot.brains.offline.tool_choice import ToolSpec

    return ToolSpec(
        name=tool.name,
        description=tool.description,
        parameters=tool.parameters,
        source=tool.source,
    )


def added_interface_tools(request: RequestContext) -> dict[str, Tool]:
    """The interfaces the user added (designed by `datapilot design` and accepted, or from an
    installed plugin) as tools: those whose arguments are plain values."""
    from datapilot.tools.workflow import interface_tools

    return {
        tool.name: tool
        for tool in interface_tools(request)
        if not getattr(tool.spec.func, "__module__", "").startswith(_OWN_PACKAGE)
    }


def user_tools(
    store: Store | None, settings: Settings, user: str, request: RequestContext
) -> dict[str, Tool]:
    """The tools `user` added, which the faces try when the data cannot answer: the interfaces
    (designed, or from a plugin) and the tools they imported. A store that cannot be read costs
    its tools (with a warning saying why), never the answer."""
    from datapilot.tools.sources import Sources

    tools = added_interface_tools(request)
    if store is None or not user:
        return tools
    try:
        with store.session() as session:
            tools.update(Sources(session, user, settings).tools())
    except Exception as error:  # the data's answer stands without them
        log.warning(
            "the imported tools were not tried: %s: %s (see `datapilot doctor`)",
            type(error).__name__,
            error,
            exc_info=True,
        )
    return tools


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
    # Loaded here: a question the data answers never needs the chooser (nor jieba's dictionary).
    from datapilot.brains.offline.tool_args import fill_arguments
    from datapilot.brains.offline.tool_choice import choose_tool
    from datapilot.tools.offline_results import show_result

    zh = is_chinese(question)
    tools = {name: t for name, t in tools.items() if t.source in OFFLINE_SOURCES}
    if not tools:
        return None
    # Reading is CPU work (BM25, the Chinese word cutter's first load): off the event loop.
    choice = await asyncio.to_thread(choose_tool, question, [spec_of(t) for t in tools.values()])
    answer = Answer(query=question, today=today, status="no_data")
    if choice.status == "none":
        return None
    if choice.status == "ask":
        names = [c.name for c in choice.candidates]
        if len(names) == 1:  # it shares one word with the question: said, not called on it
            answer.message = (
                f"您的工具 {names[0]} 也许能回答，但问题只提到了它的一部分。是要用它吗？"
                if zh
                else f"Your tool {names[0]} may answer this, but the question names only part "
                "of what it gives. Did you mean it?"
            )
        else:
            answer.message = (
                f"有几个工具都可能回答这个问题：{'、'.join(names)}。您想用哪一个？"
                if zh
                else f"Several of your tools could answer this: {', '.join(names)}. Which one?"
            )
        # One question per candidate, naming it: asked next, it chooses that tool.
        answer.follow_ups = [
            f"用 {name}：{question}" if zh else f"Use {name}: {question}" for name in names
        ]
        return ToolReply(answer=answer)
    assert choice.tool is not None
    tool = tools[choice.tool.name]
    entities = [e.id for e in intent.entities] if intent is not None else []
    # The names the reader resolved, as said: "标普500" is an index, its 500 no count.
    ledger = intent.ledger.entries if intent is not None and intent.ledger is not None else []
    names = [e.text for e in ledger if e.reading == "entity"]
    filled = await asyncio.to_thread(
        functools.partial(
            fill_arguments,
            question,
            tool.name,
            tool.parameters,
            today,
            entities=entities,
            names=names,
        )
    )
    if intent is not None and intent.ledger is not None:
        intent.ledger.mark_read([*choice.words, *filled.words], "tool", tool.name)
        answer.intent = intent
    answer.notes.append(trace(filled, choice.words, zh))
    if filled.unused_dates:
        said = "、".join(filled.unused_dates) if zh else ", ".join(filled.unused_dates)
        answer.notes.append(
            f"{tool.name} 不接受日期：问题中的“{said}”没有用上。"
            if zh
            else f"{tool.name} takes no dates: '{said}' in the question was not applied."
        )
    if filled.missing:
        needs = filled.missing_text(tool.parameters)
        answer.message = (
            f"{tool.name} {needs}，问题里没有给出。将要发出的调用：`{filled.call_text()}`"
            if zh
            else f"{tool.name} {needs}, which the question does not give. "
            f"The call would be: `{filled.call_text()}`"
        )
        return ToolReply(answer=answer)
    from datapilot.tools.base import confirmation, run_tool

    arguments = json.dumps(filled.arguments, ensure_ascii=False)
    reason = confirmation(tool, arguments)
    if reason is not None:
        if not can_ask:
            words = CANNOT_ASK_ZH if zh else CANNOT_ASK
            answer.message = words.format(
                name=tool.name, reason=stated(reason), arguments=arguments
            )
            return ToolReply(answer=answer)
        call_id = f"offline-{uuid.uuid4().hex[:12]}"
        pending = PendingCall(id=call_id, name=tool.name, arguments=arguments, reason=reason)
        answer.status = "ok"
        answer.summary = reason
        event = ConfirmationEvent(
            tool=tool.name, arguments=filled.arguments, message=reason, call_id=pending.id
        )
        return ToolReply(answer=answer, events=[event], pending=pending)
    outcome = await run_tool(tool, filled.arguments, timeout_s=timeout_s)
    events: list[Event] = [StatusEvent(message=f"Calling {tool.name}…")]
    if not outcome.ok:
        answer.status = "error"
        answer.message = outcome.text
        return ToolReply(answer=answer, events=events, result=outcome)
    shown = await show_result(
        question,
        tool,
        filled.arguments,
        filled.call_text(),
        outcome,
        today,
        intent=intent,
        zh=zh,
    )
    answer.status = "no_data" if shown.empty else "ok"
    answer.outputs, answer.sources, answer.plan = shown.outputs, shown.sources, shown.plan
    answer.notes.extend(shown.notes)
    if shown.empty:
        answer.message = shown.summary
    else:
        answer.summary = shown.summary
    events += shown.events or [OutputEvent(output=output) for output in shown.outputs]
    return ToolReply(answer=answer, events=events, result=outcome)


async def try_user_tools(
    events: AsyncIterator[Event],
    question: str,
    tools: Callable[[], dict[str, Tool]],
    today: date,
    *,
    timeout_s: float = 60.0,
) -> AsyncIterator[Event]:
    """`events` of a face that cannot ask the user (`ask`, MCP `ask`): when its answer is
    `no_data`/`out_of_scope`, the user's tools (read only then) are tried and their answer is
    the one sent. A consequential call does not run: the answer says how to run it."""
    async for event in events:
        if isinstance(event, Done) and event.answer.status in UNANSWERED:
            available = await asyncio.to_thread(tools)  # the store may be read
            reply = (
                await answer_with_tools(
                    question,
                    available,
                    today,
                    can_ask=False,
                    timeout_s=timeout_s,
                    intent=event.answer.intent,
                )
                if available
                else None
            )
            if reply is not None:
                for tool_event in reply.events:
                    yield tool_event
                event = Done(answer=reply.answer)
        yield event


# The question a confirmation ends with ("… with {…}. Run it?"), which no one can answer here.
_CLOSING_QUESTION = re.compile(r"\s*Run [^.?？]*[?？]\s*$")


def stated(reason: str) -> str:
    """A confirmation's reason as a statement: what the call would do, without "Run it?"."""
    return _CLOSING_QUESTION.sub("", reason).rstrip("?？. ") or reason.rstrip("?？. ")


def trace(filled: Filled, words: Sequence[str], zh: bool) -> str:
    """Which tool, chosen by which words, and where each argument came from: a word of the
    question, an alias of a value, a date, the schema's default, an entity the reader resolved."""
    origins = "; ".join(f"{arg} = {origin}" for arg, origin in filled.origins.items())
    chosen_by = ", ".join(words) or "—"
    if zh:
        said = "；".join(f"{arg} = {_origin_zh(origin)}" for arg, origin in filled.origins.items())
        return f"使用工具 {filled.tool}（依据：{'、'.join(words) or '—'}）；参数：{said or '无'}"
    return f"Used the tool {filled.tool} (chosen by: {chosen_by}); arguments: {origins or 'none'}"


_ORIGINS_ZH = {
    "question": "问题原词",
    "alias": "别名",
    "date": "日期",
    "default": "默认值",
    "entity": "实体",
}


def _origin_zh(origin: str) -> str:
    """`alias: 日元` → `别名：日元` (the kind of origin in Chinese, the word as said)."""
    kind, _, word = origin.partition(": ")
    label = _ORIGINS_ZH.get(kind, kind)
    return f"{label}：{word}" if word else label
