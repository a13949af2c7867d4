"""One assistant turn: the model calling tools in bounded rounds, or the offline brain.

`Turn.events()` yields the pipeline's event types (status lines, outputs, text, failures, one
`done`), so every renderer of the pipeline (LMC chunks, the terminal view) renders a turn too.
After the stream, `Turn.result` holds what to store: the tool calls and results and the reply,
with the tokens of each model call.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypeGuard

from datapilot.assistants.context import ContextInputs, build
from datapilot.assistants.grounding import ReplyCheck
from datapilot.assistants.memory import extract
from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import TOOL_FAILED, normalise
from datapilot.assistants.offline_turn import OfflineTurn
from datapilot.assistants.turn_state import (
    TurnMessage,
    TurnResult,
    TurnSetup,
)
from datapilot.core.answer import Answer, Usage
from datapilot.core.events import (
    ConfirmationEvent,
    Done,
    Event,
    Failed,
    OutputEvent,
    StatusEvent,
    TextDelta,
)
from datapilot.core.model_messages import (
    ModelMessage,
    ModelResponse,
    SystemPrompt,
    ToolCall,
    ToolReturn,
)
from datapilot.core.quotes import Quote
from datapilot.data.text import is_chinese
from datapilot.model_client.errors import (
    LLMError,
    LLMRefused,
    LLMStreamBroken,
    LLMTruncated,
    UnreadableToolCalls,
)
from datapilot.model_client.function import ToolModel
from datapilot.tools import ToolResult, call_arguments, confirmation, function_schema, run_tool
from datapilot.tools.workflow import WORKFLOW_TOOL

if TYPE_CHECKING:
    from datapilot.model_client import LLMClient

log = logging.getLogger(__name__)

NOT_CONFIRMED = (
    "{name} did not run: it needs the user's confirmation ({reason}), and this conversation "
    "cannot ask for it. Tell the user so: they can run it from a Datapilot chat, which asks them "
    "first, or mark the tool trusted (`datapilot tools trust {name}`)."
)
FROM_DATA = (
    "The model's reply could not be used, so this answer comes from the data, without tools.",
    "模型的回复无法使用，以下答案直接来自数据（未调用工具）。",
)
OUT_OF_ROUNDS = (
    "You have used every tool round of this turn; answer now with the results you have, and say "
    "what is still missing."
)


class Turn(OfflineTurn):
    def __init__(self, setup: TurnSetup) -> None:
        self.setup = setup
        self.result = TurnResult(model=setup.llm.model if setup.llm else None)
        self._streamed = False  # some of the reply's text went out already
        self._check = ReplyCheck(active=False)
        self._shown = ""  # the text of the current round that went out

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
        if self.setup.model is not None:
            async for event in self._with_model(self.setup.model):
                yield event
        elif self.setup.llm is None:
            offline = self._offline_resume() if self.setup.resume else self._offline()
            async for event in offline:
                yield event
        else:
            from datapilot.model_client import LLMClient  # the OpenAI SDK: only with a model

            async for event in self._with_model(LLMClient(self.setup.llm)):
                yield event

    async def _fit_context(self, inputs: ContextInputs) -> None:
        """Scene, memories and the compressed history, within the budget."""
        setup = self.setup
        schemas = self._schemas()
        client = None
        if setup.llm:
            from datapilot.model_client import LLMClient

            client = LLMClient(setup.llm)
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

    async def _remember(self, client: LLMClient) -> None:
        """With memory on, the model reconciles the turn's facts with the user's memories."""
        inputs = self.setup.context
        if inputs is None or not inputs.memory or not self.result.text:
            return
        self.result.memory_ops = await extract(
            client, self.question, self.result.text, self.result.memory_shown
        )

    async def _with_model(self, client: ToolModel) -> AsyncIterator[Event]:
        """Bounded rounds: the model answers or calls tools; the calls run (or wait for the
        user's go-ahead, or go back to the client) and the model goes on with their results."""
        setup = self.setup
        schemas = self._schemas()
        answer = Answer(query=self.question, today=setup.request.question.today, status="ok")
        self._check = ReplyCheck(active=WORKFLOW_TOOL in setup.tools, context=self._conversation())
        try:
            messages: list[ModelMessage] = normalise(
                setup.history,
                prompts=setup.prompts,
                assistant_id=setup.assistant_id,
                names=setup.names,
            )
            if setup.resume:
                async for event in self._resume(messages):
                    yield event
            for round_number in range(setup.max_rounds + 1):
                last = round_number == setup.max_rounds
                if last:
                    messages.append(SystemPrompt(text=OUT_OF_ROUNDS))
                replies: list[ModelResponse] = []
                try:
                    tools = [] if last else schemas
                    options = self._options(first=round_number == 0, tools=bool(tools))
                    async for event in self._model_round(client, messages, tools, replies, options):
                        yield event
                except (UnreadableToolCalls, LLMRefused, LLMTruncated) as error:
                    if self._streamed and isinstance(error, LLMStreamBroken):
                        raise  # the connection dropped mid-reply: the answer's error
                    # A weak model: the turn answers from the data, without tools (after what
                    # of its reply went out already, as a paragraph of its own).
                    async for event in self._from_data(error):
                        yield event
                    return
                except LLMError as error:
                    message = f"The model could not answer: {error}"
                    answer.status, answer.message = "error", message
                    yield Failed(status="error", message=message)
                    break
                reply = replies[-1] if replies else ModelResponse()
                spent = self._count_round(reply)
                if not reply.tool_calls:
                    if self._check.withheld and not self.result.tool_results:
                        # Every figure of the reply was the model's own: the data answers.
                        async for event in self._from_data(self._invented()):
                            yield event
                        return
                    async for event in self._final_reply(reply, spent):
                        yield event
                    break
                async for event in self._tool_calls(reply, spent, messages):
                    yield event
                if self._stops_for_calls(reply):
                    break
            left_out = self._check.note(is_chinese(self.question))
            if left_out:
                answer.notes.append(left_out)
            if answer.status != "error" and _is_model_client(client):
                await self._remember(client)
        finally:
            await client.aclose()
        yield self._done(answer)

    async def _model_round(
        self,
        client: ToolModel,
        messages: list[ModelMessage],
        tools: list[dict[str, Any]],
        replies: list[ModelResponse],
        options: dict[str, Any],
    ) -> AsyncIterator[Event]:
        """One call of the model: its text goes out token by token as the model writes it (a
        later round's text starts a paragraph of its own); its reply lands in `replies`."""
        separate = self._streamed
        limit = self.setup.max_tokens
        self._shown = ""
        async for piece in client.stream_tools(
            messages,
            tools=tools,
            temperature=self.setup.temperature,
            options=options,
            max_tokens=limit or 1500,  # the default of a turn's model call
            client_limit=limit is not None,
        ):
            if isinstance(piece, ModelResponse):
                replies.append(piece)
                continue
            for shown in self._check.feed(piece):
                if separate:
                    yield TextDelta(text="\n\n")
                    separate = False
                self._streamed = True
                self._shown += shown
                yield TextDelta(text=shown)
        for shown in self._check.flush():
            if separate:
                yield TextDelta(text="\n\n")
            self._streamed = True
            self._shown += shown
            yield TextDelta(text=shown)

    async def _from_data(self, error: LLMError | str) -> AsyncIterator[Event]:
        """The question answered by the data workflow, as without a model, after a model reply
        that could not be used; a short note in the question's language says so, the model's
        error is in the trace."""
        spent = self.result.model_copy()
        zh = is_chinese(self.question)
        if self._streamed:  # the data's answer starts a paragraph of its own
            yield TextDelta(text="\n\n")
        async for event in self._offline():
            if isinstance(event, Done):
                answer = event.answer
                answer.notice = None  # a model is configured: the note says what happened
                answer.notes.insert(0, FROM_DATA[zh])
                if answer.intent is not None:
                    answer.intent.trace.append(f"The model's reply was not used: {error}")
                answer.usage = answer.usage.add(
                    Usage(
                        llm_calls=spent.calls + 1,
                        prompt_tokens=spent.prompt_tokens,
                        completion_tokens=spent.completion_tokens,
                    )
                )
            yield event

    def _options(self, *, first: bool, tools: bool) -> dict[str, Any]:
        """The client's request fields for one call: a forced tool choice holds for the first
        call only (later rounds answer with its result), and tool fields only with tools."""
        options = dict(self.setup.options)
        if not first or not tools:
            options.pop("tool_choice", None)
        if not tools:
            options.pop("parallel_tool_calls", None)
        return options

    def _count_round(self, reply: ModelResponse) -> TurnMessage:
        """The round's tokens, on the turn and on the message that carries them: its reply, or
        its first tool call."""
        result = self.result
        result.calls += 1
        result.finish_reason = reply.finish_reason
        result.prompt_tokens += reply.prompt_tokens
        result.completion_tokens += reply.completion_tokens
        return TurnMessage(
            role="assistant",
            content=reply.text,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
        )

    async def _final_reply(self, reply: ModelResponse, spent: TurnMessage) -> AsyncIterator[Event]:
        """A reply without tool calls ends the turn: the text shown of it is the answer. Where
        none of it could be shown, the data workflow's own summary of the turn stands in."""
        text = self._shown if self._check.active else reply.text
        if self._check.withheld and not self._check.quoted:
            summaries = [r.answer.summary for r in self.result.tool_results if r.answer]
            text = "\n\n".join(s for s in summaries if s)
            if text:
                self._streamed = True
                yield TextDelta(text="\n\n" + text)
        self.result.text = text
        self.result.messages.append(spent.model_copy(update={"content": text}))

    def _conversation(self) -> str:
        """The text whose numbers a reply may repeat: the user's and the tools' messages, the
        prompts, the knowledge passages (not the model's own earlier replies)."""
        setup = self.setup
        parts = [m.content for m in setup.history if m.role != "assistant"]
        parts.extend(c.text for c in setup.citations)
        parts.append(setup.prompts.model_dump_json())
        return "\n".join(parts)

    def _invented(self) -> str:
        figures = ", ".join(dict.fromkeys(self._check.withheld))
        return f"the reply quoted {figures} without calling a data tool; none is in the data"

    async def _tool_calls(
        self, reply: ModelResponse, spent: TurnMessage, messages: list[ModelMessage]
    ) -> AsyncIterator[Event]:
        """The round's calls: stored, then each asks for confirmation, is refused (nobody here
        can confirm it), runs, or is left to the client (its own tools)."""
        messages.append(ModelResponse(text=reply.text, tool_calls=reply.tool_calls))
        refused = self._record_calls(reply, spent)
        waiting = {record.id: record for record in self.result.pending}
        for call in reply.tool_calls:
            if call.id in waiting:
                yield ConfirmationEvent(
                    tool=call.name,
                    arguments=call_arguments(call.arguments) or {},
                    message=waiting[call.id].confirmation or "",
                    call_id=call.id,
                )
            elif call.id in refused:
                for event in self._refuse(call, refused[call.id], messages):
                    yield event
            elif call.name not in self._client_names():
                async for event in self._run_call(call, messages):
                    yield event

    def _record_calls(self, reply: ModelResponse, spent: TurnMessage) -> dict[str, str]:
        """Store the round's calls (the first carries the round's tokens), note those waiting
        for the user's go-ahead; the calls that need one nobody can give, with why."""
        setup, result = self.setup, self.result
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
                stored = TurnMessage(role="tool_call", tool_call=record)
            result.messages.append(stored)
        return refused

    def _stops_for_calls(self, reply: ModelResponse) -> bool:
        """Whether the turn ends after this round's calls: with calls waiting for the user
        (stored; the user's run or cancel command resumes the turn), or with calls of the
        client's own tools, for it to run and send back (the server's own calls of this round
        have run already)."""
        result = self.result
        if result.pending:
            result.text = self._shown if self._check.active else reply.text
            return True
        client_calls = [call for call in reply.tool_calls if call.name in self._client_names()]
        if client_calls:
            result.client_calls = client_calls
            result.text = self._shown if self._check.active else reply.text
            return True
        return False

    def _done(self, answer: Answer) -> Done:
        """The turn's answer: the reply, the knowledge passages it was given, outputs, usage."""
        setup, result = self.setup, self.result
        answer.summary = result.text
        answer.citations = list(setup.citations)
        # The same passages as quotes: the OpenBB agent turns quotes into its citations.
        answer.quotes = [Quote(source=c.source, text=c.text, page=c.page) for c in setup.citations]
        answer.outputs = list(result.outputs)
        answer.usage = Usage(
            llm_calls=result.calls,
            llm_calls_used=result.calls,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
        result.answer = answer
        return Done(answer=answer)

    def _schemas(self) -> list[dict[str, Any]]:
        """The tools offered to the model: the assistant's and the client's own."""
        setup = self.setup
        return [function_schema(tool) for tool in setup.tools.values()] + setup.client_tools

    def _client_names(self) -> set[str | None]:
        return {tool.get("function", {}).get("name") for tool in self.setup.client_tools}

    async def _resume(self, messages: list[ModelMessage]) -> AsyncIterator[Event]:
        """Run the calls the user confirmed, in place of the placeholders normalising left."""
        ids = {record.id for record in self.setup.resume}
        messages[:] = [
            m
            for m in messages
            if not (
                isinstance(m, ToolReturn) and m.tool_call_id in ids and m.content == TOOL_FAILED
            )
        ]
        for record in self.setup.resume:
            call = ToolCall(id=record.id, name=record.name, arguments=record.arguments)
            async for event in self._run_call(call, messages):
                yield event

    def _refuse(self, call: ToolCall, reason: str, messages: list[ModelMessage]) -> list[Event]:
        """Close a call that needs a confirmation nobody here can give: it does not run."""
        text = NOT_CONFIRMED.format(name=call.name, reason=reason.rstrip("?. "))
        outcome = ToolResult(name=call.name, call_id=call.id, ok=False, text=text)
        self.result.tool_results.append(outcome)
        self.result.messages.append(TurnMessage(role="tool", content=text, tool_call_id=call.id))
        messages.append(ToolReturn(tool_call_id=call.id, content=text))
        return [StatusEvent(message=f"✗ {call.name}: not run, it needs confirmation in a chat")]

    async def _run_call(self, call: ToolCall, messages: list[ModelMessage]) -> AsyncIterator[Event]:
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
        self._check.add_result(outcome)
        result.messages.append(TurnMessage(role="tool", content=outcome.text, tool_call_id=call.id))
        messages.append(ToolReturn(tool_call_id=call.id, content=outcome.text))


def _is_model_client(client: ToolModel) -> TypeGuard[LLMClient]:
    """Whether `client` is an endpoint's client (a scripted model has no memory to keep); the
    client's module is loaded only if a client was made."""
    import sys

    module = sys.modules.get("datapilot.model_client.client")
    return module is not None and isinstance(client, module.LLMClient)
