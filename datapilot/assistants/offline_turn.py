"""A turn without a model: the data brain answers, then the user's tools when it could not.

`OfflineTurn` is the offline half of `runtime.Turn`: memory commands acknowledged, a message
asking for a watch proposed for the user's confirmation (`watch_tool`), the question answered
by the data brain, a question it could not answer tried on the assistant's tools
(`tools.offline`), and confirmed calls run on `run`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator

import anyio

from datapilot.assistants.context import ContextInputs
from datapilot.assistants.memory import acknowledgement
from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.notice import no_model_notice
from datapilot.assistants.turn_state import TurnMessage, TurnResult, TurnSetup
from datapilot.assistants.watch_tool import HOW, NO_GUESTS, CreateWatchTool, proposal
from datapilot.assistants.watch_tool import NAME as WATCH_TOOL
from datapilot.brains.offline.tool_args import Filled
from datapilot.core.answer import Answer
from datapilot.core.context import ChatMessage
from datapilot.core.events import ConfirmationEvent, Done, Event, OutputEvent, TextDelta
from datapilot.core.model_messages import ModelMessage, ToolCall
from datapilot.data.text import is_chinese
from datapilot.engine.context import RequestContext
from datapilot.tools import Tool, call_arguments
from datapilot.tools.offline import UNANSWERED, added_interface_tools, answer_with_tools
from datapilot.tools.offline_results import show_result


class OfflineTurn:
    """The offline half of a turn (mixed into `Turn`, which supplies the rest)."""

    setup: TurnSetup
    result: TurnResult

    @property
    def question(self) -> str:
        raise NotImplementedError

    def _done(self, answer: Answer) -> Done:
        raise NotImplementedError

    def _run_call(self, call: ToolCall, messages: list[ModelMessage]) -> AsyncIterator[Event]:
        raise NotImplementedError

    async def _acknowledge(self, inputs: ContextInputs) -> AsyncIterator[Event]:
        """Offline, a memory command is answered by saying what was remembered or forgotten."""
        assert inputs.command is not None
        text = acknowledgement(inputs.command, inputs.command_events)
        answer = Answer(query=self.question, today=self.setup.request.question.today, status="ok")
        answer.summary = text
        self.result.text = text
        self.result.answer = answer
        self.result.messages.append(TurnMessage(role="assistant", content=text))
        yield TextDelta(text=text)
        yield Done(answer=answer)

    async def _offline(self) -> AsyncIterator[Event]:
        from datapilot.brains import run
        from datapilot.watches.requests import asks_for_watch

        setup = self.setup
        can_watch = WATCH_TOOL in setup.tools or setup.no_watches is not None
        if can_watch and asks_for_watch(self.question):
            async for event in self._offline_watch():
                yield event
            return
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
                if event.answer.status in UNANSWERED and setup.tools:
                    # The user's tools are tried before the question is declared unanswerable.
                    async for tool_event in self._offline_tools(event):
                        yield tool_event
                answer = event.answer
                # Beside the answer, not in it: every face sends the notice its own way.
                answer.notice = no_model_notice(self.question)
                self.result.text = (answer.summary or answer.message or "").strip()
                self.result.outputs = list(answer.outputs)
                self.result.answer = answer
                self.result.messages.append(TurnMessage(role="assistant", content=self.result.text))
                yield event
                return
            yield event

    async def _offline_watch(self) -> AsyncIterator[Event]:
        """A message asking for a watch: what was understood, waiting for the user's `run`
        (the `create_watch` call, pending); or why not: the words not read, or who cannot."""
        from datapilot.watches.reading import WatchRefused

        zh = is_chinese(self.question)
        answer = Answer(query=self.question, today=self.setup.request.question.today, status="ok")
        tool = self.setup.tools.get(WATCH_TOOL)
        if not isinstance(tool, CreateWatchTool):
            text = (self.setup.no_watches or NO_GUESTS)[zh]
        else:
            arguments = {"text": self.question}
            try:
                spec = await anyio.to_thread.run_sync(lambda: tool.understand(arguments))
            except WatchRefused as refused:
                text = str(refused)
            else:
                asked = proposal(spec)
                record = ToolCallRecord(
                    id=f"call_{uuid.uuid4().hex[:24]}",
                    name=WATCH_TOOL,
                    arguments=json.dumps(arguments, ensure_ascii=False),
                    confirmation=asked,
                )
                self.result.pending.append(record)
                self.result.messages.append(TurnMessage(role="tool_call", tool_call=record))
                yield ConfirmationEvent(
                    tool=WATCH_TOOL, arguments=arguments, message=asked, call_id=record.id
                )
                text = f"{asked}\n{HOW[zh]}"
        if not self.result.pending:  # nothing proposed: the answer says why
            answer.status, answer.message = "out_of_scope", text
        self.result.text = text
        self.result.messages.append(TurnMessage(role="assistant", content=text))
        yield TextDelta(text=text)
        yield self._done(answer)

    async def _offline_tools(self, done: Done) -> AsyncIterator[Event]:
        """Answer with a tool the question names (`done` takes the tools' answer), if any."""
        setup = self.setup
        reply = await answer_with_tools(
            self.question,
            self._offline_candidates(),
            setup.request.question.today,
            can_ask=setup.can_ask,
            timeout_s=setup.tool_timeout_s,
            intent=done.answer.intent,
        )
        if reply is None:
            return
        if reply.pending is not None:
            waiting = reply.pending
            record = ToolCallRecord(
                id=waiting.id,
                name=waiting.name,
                arguments=waiting.arguments,
                confirmation=waiting.reason,
            )
            self.result.pending.append(record)
            self.result.messages.append(TurnMessage(role="tool_call", tool_call=record))
        if reply.result is not None:
            self.result.tool_results.append(reply.result)
        for event in reply.events:
            yield event
        done.answer = reply.answer

    def _offline_candidates(self) -> dict[str, Tool]:
        """The assistant's tools and, when it has the data workflow, the interfaces the user
        added (designed and accepted, or from a plugin): with a model the workflow's plans reach
        those, so a chat without one tries them too."""
        tools = self.setup.tools
        if not any(tool.source == "workflow" for tool in tools.values()):
            return tools
        return {**added_interface_tools(self.setup.request), **tools}

    async def _offline_resume(self) -> AsyncIterator[Event]:
        """Without a model, the confirmed calls run and their results are the answer."""
        messages: list[ModelMessage] = []
        for record in self.setup.resume:
            call = ToolCall(id=record.id, name=record.name, arguments=record.arguments)
            async for event in self._run_call(call, messages):
                yield event
        results = self.result.tool_results
        ok = all(r.ok for r in results)
        today = self.setup.request.question.today
        answer = Answer(query=self.question, today=today, status="ok" if ok else "error")
        said: list[str] = []
        for record, outcome in zip(self.setup.resume, results, strict=False):
            tool = self.setup.tools.get(record.name)
            if tool is None or not outcome.ok:
                said.append(f"{record.name}: {outcome.text}")
                continue
            if getattr(tool, "plain_result", False):  # e.g. a watch saved: says so itself
                said.append(outcome.text)
                continue
            # As when it ran at once: a table charted or tabled, a text quoted with its source.
            arguments = call_arguments(record.arguments) or {}
            written = Filled(tool=record.name, arguments=arguments).call_text()
            zh = is_chinese(self.question)
            shown = await show_result(
                self.question, tool, arguments, written, outcome, today, intent=None, zh=zh
            )
            said.append(shown.summary)
            answer.sources += shown.sources
            for output in shown.outputs:
                if all(output is not given for given in outcome.outputs):
                    self.result.outputs.append(output)
                    yield OutputEvent(output=output)
        self.result.text = "\n".join(said)
        self.result.messages.append(TurnMessage(role="assistant", content=self.result.text))
        yield self._done(answer)
