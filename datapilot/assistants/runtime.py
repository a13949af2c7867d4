"""One assistant turn: the model calling tools in bounded rounds, or the offline brain.

`Turn.events()` yields the pipeline's event types (status lines, outputs, text, failures, one
`done`), so every renderer of the pipeline (LMC chunks, the terminal view) renders a turn too.
After the stream, `Turn.result` holds what to store: the tool calls and results and the reply,
with the tokens of each model call.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from datapilot.assistants.compression import Block, ContextRecord
from datapilot.assistants.context import ContextInputs, SummaryUpdate, build
from datapilot.assistants.memory import MemoryInfo, MemoryOp, acknowledgement, extract
from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import TOOL_FAILED, HistoryMessage, Prompts, normalise
from datapilot.core.answer import Answer, Usage
from datapilot.core.context import ChatMessage, QuestionContext
from datapilot.core.events import (
    ConfirmationEvent,
    Done,
    Event,
    Failed,
    OutputEvent,
    StatusEvent,
    TextDelta,
)
from datapilot.core.messages import Role
from datapilot.core.model_messages import ModelResponse, ToolCall
from datapilot.core.outputs import Output
from datapilot.core.quotes import Citation, Quote
from datapilot.engine.context import RequestContext
from datapilot.model_client import LLMClient, LLMConfig, LLMError
from datapilot.settings import Settings
from datapilot.tools import Tool, ToolResult, function_schema, run_tool

EventSource = Callable[[str, QuestionContext, Settings], AsyncIterator[Event]]

log = logging.getLogger(__name__)

MAX_ROUNDS = 5
NO_MODEL_NOTE = (
    "No model is configured for this assistant, so Datapilot's offline brain answered the last "
    "question on its own. With a model (DATAPILOT_LLM_MODEL and DATAPILOT_LLM_BASE_URL, or the "
    "assistant's own model), the assistant would follow its prompt, read the earlier turns and "
    "choose among its tools."
)
NOT_CONFIRMED = (
    "{name} did not run: it needs the user's confirmation ({reason}), and this conversation "
    "cannot ask for it. Tell the user so: they can run it from a Datapilot chat, which asks them "
    "first, or mark the tool trusted (`datapilot tools trust {name}`)."
)
OUT_OF_ROUNDS = (
    "You have used every tool round of this turn; answer now with the results you have, and say "
    "what is still missing."
)


class NewMessage(BaseModel):
    """A message the turn produced, to be stored in the chat in this order."""

    role: Role
    content: str = ""
    tool_call: ToolCallRecord | None = None
    tool_call_id: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class TurnResult(BaseModel):
    text: str = ""
    outputs: list[Output] = Field(default_factory=list)
    messages: list[NewMessage] = Field(default_factory=list)
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    client_calls: list[ToolCall] = Field(
        default_factory=list, description="Calls of the client's own tools, for it to run."
    )
    tool_results: list[ToolResult] = Field(default_factory=list)
    pending: list[ToolCallRecord] = Field(
        default_factory=list, description="Calls waiting for the user's go-ahead."
    )
    answer: Answer | None = None
    context: ContextRecord | None = Field(
        default=None, description="What the prompt held and what was left out of it."
    )
    blocks: list[Block] = Field(default_factory=list)
    summary: SummaryUpdate | None = None
    memory_ops: list[MemoryOp] = Field(default_factory=list)
    memory_shown: list[MemoryInfo] = Field(default_factory=list)


@dataclass
class TurnSetup:
    """Everything one turn runs with."""

    request: RequestContext
    history: list[HistoryMessage]
    prompts: Prompts = field(default_factory=Prompts)
    assistant_id: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    client_tools: list[dict[str, Any]] = field(default_factory=list)
    llm: LLMConfig | None = None
    temperature: float | None = None
    max_rounds: int = MAX_ROUNDS
    tool_timeout_s: float = 60.0
    # Calls the user confirmed, run before the model goes on.
    resume: list[ToolCallRecord] = field(default_factory=list)
    # False where nobody can answer a confirmation (the stateless OpenAI and OpenBB faces): a
    # call that needs one does not run, and the model hears why instead.
    can_ask: bool = True
    context: ContextInputs | None = None
    citations: list[Citation] = field(default_factory=list)  # the knowledge passages given
    offline_source: EventSource | None = None  # answers offline instead of the data brain


class Turn:
    def __init__(self, setup: TurnSetup) -> None:
        self.setup = setup
        self.result = TurnResult(model=setup.llm.model if setup.llm else None)

    @property
    def question(self) -> str:
        humans = [m.content for m in self.setup.history if m.role in ("human", "human_hidden")]
        return humans[-1] if humans else ""

    async def events(self) -> AsyncIterator[Event]:
        inputs = self.setup.context
        if inputs is not None:
            await self._fit_context(inputs)
            if self.setup.llm is None and inputs.command is not None:
                async for event in self._acknowledge(inputs):
                    yield event
                return
        if self.setup.llm is None:
            async for event in self._offline():
                yield event
        else:
            async for event in self._with_model(self.setup.llm):
                yield event

    async def _fit_context(self, inputs: ContextInputs) -> None:
        """Scene, memories and the compressed history, within the budget."""
        setup = self.setup
        schemas = [function_schema(tool) for tool in setup.tools.values()] + setup.client_tools
        client = LLMClient(setup.llm) if setup.llm else None
        try:
            built = await build(
                inputs,
                setup.history,
                setup.prompts,
                question=self.question,
                tool_schemas=schemas if client else [],
                client=client,
                assistant_id=setup.assistant_id,
            )
        finally:
            if client is not None:
                await client.aclose()
        setup.history, setup.prompts = built.history, built.prompts
        self.result.context = built.record
        self.result.blocks = built.blocks
        self.result.summary = built.summary
        self.result.memory_shown = list(inputs.memories) if inputs.memory else []

    async def _acknowledge(self, inputs: ContextInputs) -> AsyncIterator[Event]:
        """Offline, a memory command is answered by saying what was remembered or forgotten."""
        assert inputs.command is not None
        text = acknowledgement(inputs.command, inputs.command_events)
        answer = Answer(query=self.question, today=self.setup.request.question.today, status="ok")
        answer.summary = text
        self.result.text = text
        self.result.answer = answer
        self.result.messages.append(NewMessage(role="assistant", content=text))
        yield TextDelta(text=text)
        yield Done(answer=answer)

    async def _remember(self, client: LLMClient) -> None:
        """With memory on, the model reconciles the turn's facts with the user's memories."""
        inputs = self.setup.context
        if inputs is None or not inputs.memory or not self.result.text:
            return
        self.result.memory_ops = await extract(
            client, self.question, self.result.text, self.result.memory_shown
        )

    async def _offline(self) -> AsyncIterator[Event]:
        from datapilot.brains import run

        setup = self.setup
        earlier = [
            ChatMessage(role="human" if m.role == "human" else "ai", content=m.content)
            for m in setup.history[:-1]
            if m.role in ("human", "assistant") and m.content.strip()
        ]
        question_context = setup.request.question.model_copy(update={"history": earlier})
        request = RequestContext(
            question=question_context,
            settings=setup.request.settings,
            data=setup.request.data,
            registry=setup.request.registry,
        )
        if setup.offline_source is not None:
            events = setup.offline_source(self.question, question_context, request.settings)
        else:
            events = run(self.question, request)
        async for event in events:
            if isinstance(event, Done):
                answer = event.answer
                answer.notes.append(NO_MODEL_NOTE)
                text = answer.summary or answer.message or ""
                yield TextDelta(text=f"\n\n{NO_MODEL_NOTE}")
                self.result.text = f"{text}\n\n{NO_MODEL_NOTE}".strip()
                self.result.outputs = list(answer.outputs)
                self.result.answer = answer
                self.result.messages.append(NewMessage(role="assistant", content=self.result.text))
                yield event
                return
            yield event

    async def _with_model(self, config: LLMConfig) -> AsyncIterator[Event]:
        setup, result = self.setup, self.result
        messages = normalise(
            setup.history, prompts=setup.prompts, assistant_id=setup.assistant_id, names=setup.names
        )
        schemas = [function_schema(tool) for tool in setup.tools.values()] + setup.client_tools
        client_names = {tool.get("function", {}).get("name") for tool in setup.client_tools}
        answer = Answer(query=self.question, today=setup.request.question.today, status="ok")
        client = LLMClient(config)
        streamed = False
        try:
            if setup.resume:
                async for event in self._resume(messages):
                    yield event
            for round_number in range(setup.max_rounds + 1):
                last = round_number == setup.max_rounds
                if last:
                    messages.append({"role": "system", "content": OUT_OF_ROUNDS})
                try:
                    reply = ModelResponse()
                    # The reply's text goes out token by token as the model writes it; a later
                    # round's text starts a paragraph of its own.
                    separate = streamed
                    async for piece in client.stream_tools(
                        messages,
                        tools=[] if last else schemas,
                        temperature=setup.temperature,
                    ):
                        if isinstance(piece, ModelResponse):
                            reply = piece
                            continue
                        if separate:
                            yield TextDelta(text="\n\n")
                            separate = False
                        streamed = True
                        yield TextDelta(text=piece)
                except LLMError as error:
                    message = f"The model could not answer: {error}"
                    answer.status, answer.message = "error", message
                    yield Failed(status="error", message=message)
                    break
                result.calls += 1
                result.prompt_tokens += reply.prompt_tokens
                result.completion_tokens += reply.completion_tokens
                # The round's tokens go on its reply, or on its first tool call.
                spent = NewMessage(
                    role="assistant",
                    content=reply.text,
                    prompt_tokens=reply.prompt_tokens,
                    completion_tokens=reply.completion_tokens,
                )
                if not reply.tool_calls:
                    result.text = reply.text
                    result.messages.append(spent)
                    break
                calls = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in reply.tool_calls
                ]
                messages.append(
                    {"role": "assistant", "content": reply.text or None, "tool_calls": calls}
                )
                refused: dict[str, str] = {}
                for number, call in enumerate(reply.tool_calls):
                    reason = confirmation(setup.tools.get(call.name), call.arguments)
                    if reason is not None and not setup.can_ask:
                        refused[call.id], reason = reason, None
                    record = ToolCallRecord(
                        id=call.id, name=call.name, arguments=call.arguments, confirmation=reason
                    )
                    if record.confirmation is not None:
                        result.pending.append(record)
                    if number == 0:
                        stored = spent.model_copy(update={"role": "tool_call", "tool_call": record})
                    else:
                        stored = NewMessage(role="tool_call", tool_call=record)
                    result.messages.append(stored)
                waiting = {record.id: record for record in result.pending}
                for call in reply.tool_calls:
                    if call.id in waiting:
                        yield ConfirmationEvent(
                            tool=call.name,
                            arguments=_arguments(call.arguments),
                            message=waiting[call.id].confirmation or "",
                            call_id=call.id,
                        )
                    elif call.id in refused:
                        for event in self._refuse(call, refused[call.id], messages):
                            yield event
                    elif call.name not in client_names:
                        async for event in self._run_call(call, messages):
                            yield event
                if waiting:
                    # The turn ends with the calls pending (stored); the user's run or cancel
                    # command resumes it.
                    result.text = reply.text
                    break
                client_calls = [call for call in reply.tool_calls if call.name in client_names]
                if client_calls:
                    # The client runs its own tools: the turn ends with its calls, for it to run
                    # and send back; the server's own calls of this round have run already.
                    result.client_calls = client_calls
                    result.text = reply.text
                    break
            if answer.status != "error":
                await self._remember(client)
        finally:
            await client.aclose()
        answer.summary = result.text
        answer.citations = list(setup.citations)
        # The same passages as quotes: the OpenBB agent turns quotes into its citations.
        answer.quotes = [Quote(source=c.source, text=c.text, page=c.page) for c in setup.citations]
        answer.outputs = list(result.outputs)
        answer.usage = Usage(
            llm_calls=result.calls,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
        result.answer = answer
        yield Done(answer=answer)

    async def _resume(self, messages: list[dict[str, Any]]) -> AsyncIterator[Event]:
        """Run the calls the user confirmed, in place of the placeholders normalising left."""
        ids = {record.id for record in self.setup.resume}
        messages[:] = [
            m
            for m in messages
            if not (
                m.get("role") == "tool"
                and m.get("tool_call_id") in ids
                and m.get("content") == TOOL_FAILED
            )
        ]
        for record in self.setup.resume:
            call = ToolCall(id=record.id, name=record.name, arguments=record.arguments)
            async for event in self._run_call(call, messages):
                yield event

    def _refuse(self, call: ToolCall, reason: str, messages: list[dict[str, Any]]) -> list[Event]:
        """Close a call that needs a confirmation nobody here can give: it does not run."""
        text = NOT_CONFIRMED.format(name=call.name, reason=reason.rstrip("?. "))
        outcome = ToolResult(name=call.name, call_id=call.id, ok=False, text=text)
        self.result.tool_results.append(outcome)
        self.result.messages.append(NewMessage(role="tool", content=text, tool_call_id=call.id))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        return [StatusEvent(message=f"✗ {call.name}: not run, it needs confirmation in a chat")]

    async def _run_call(
        self, call: ToolCall, messages: list[dict[str, Any]]
    ) -> AsyncIterator[Event]:
        setup, result = self.setup, self.result
        tool = setup.tools.get(call.name)
        if tool is None:
            known = ", ".join(setup.tools) or "none"
            outcome = ToolResult(
                name=call.name,
                call_id=call.id,
                ok=False,
                text=f"There is no tool named {call.name!r}; the tools are: {known}.",
            )
        else:
            yield StatusEvent(message=f"Calling {call.name}…")
            outcome = await run_tool(
                tool, call.arguments, call_id=call.id, timeout_s=setup.tool_timeout_s
            )
        mark = "✓" if outcome.ok else "✗"
        line = f"{mark} {call.name} ({outcome.elapsed_ms:.0f} ms)"
        yield StatusEvent(message=line if outcome.ok else f"{line}: {outcome.text}")
        for output in outcome.outputs:
            result.outputs.append(output)
            yield OutputEvent(output=output)
        result.tool_results.append(outcome)
        result.messages.append(NewMessage(role="tool", content=outcome.text, tool_call_id=call.id))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.text})


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def confirmation(tool: Tool | None, arguments: str) -> str | None:
    """Why the user must confirm this call first, or None (tools without `confirmation` run)."""
    ask = getattr(tool, "confirmation", None)
    if tool is None or not callable(ask):
        return None
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return None  # the call fails without running and the model hears why: nothing to ask
    if not isinstance(parsed, dict):
        return None
    try:
        message = ask(parsed)
    except Exception:  # a tool that cannot say asks anyway: never run unconfirmed by mistake
        log.warning("confirmation() of %s failed; asking the user", tool.name, exc_info=True)
        return f"Run {tool.name}?"
    return str(message) if message is not None else None
