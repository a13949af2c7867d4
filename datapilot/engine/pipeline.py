"""One question, one stream of events: understand, plan, validate, execute, summarize.

Every front end renders the same stream. It always ends with exactly one `Done`, whatever fails.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from datetime import date
from typing import Any, TypeVar

import pandas as pd

from datapilot.core.answer import Answer, Usage
from datapilot.core.context import QuestionContext, check_question
from datapilot.core.events import (
    Done,
    Event,
    Failed,
    IntentEvent,
    NeedsClientData,
    PlanEvent,
    StatusEvent,
    TextDelta,
)
from datapilot.core.intent import Intent
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Plan, PlanError
from datapilot.core.results import RunResult
from datapilot.data.display import counted
from datapilot.data.phrases_zh import chinese_name
from datapilot.data.text import is_chinese
from datapilot.engine.brain import Brain, BrainUnavailable, Understanding
from datapilot.engine.check import check_plan
from datapilot.engine.context import RequestContext
from datapilot.engine.executor import default_registry, execute
from datapilot.engine.stamps import strip_stamps
from datapilot.engine.summary import template_summary
from datapilot.engine.verdict import (
    cannot_honour_message,
    failed_steps_message,
    offered,
    without_words,
)
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Registry
from datapilot.render.code import ShownKind, answer_script
from datapilot.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")

WIDGET_DATA_REQUESTED = "I asked for the data of the dashboard widgets to answer this."
_ENTITY_ARGS = ("ids", "id", "entity", "entities")
# Answered offline at start-up: it touches the brain, the engine, a chart and the summary.
_WARM_UP_PASSAGES = ("公司研发投入达到299亿元。", "Revenue rose 8% on higher services sales.")
_WARM_UP_QUESTION = "Apple's closing price in 2021"


class RequestTimeout(Exception):
    """The whole request ran out of time."""


class QuestionTooLong(ValueError):
    """The question is longer than DATAPILOT_MAX_QUESTION_CHARS."""


async def run(
    question: str,
    request: RequestContext,
    *,
    brain: Brain | Callable[[], Brain],
    interface_context: InterfaceContext | None = None,
    plan_only: bool = False,
) -> AsyncIterator[Event]:
    """Answer `question` with `brain`, yielding typed events; the last is always one `Done`.

    Everything the run needs comes from `request` (settings, data, the interface library).
    Front ends choose the brain (`datapilot.brains.select_brain`); they may pass the choosing
    itself (a function returning the brain), so that a brain that cannot be built fails like
    any other step, inside the stream. `interface_context` defaults to the request's data plus
    the tables the client sent. With `plan_only` the run stops after the plan is validated.
    """
    settings = request.settings
    # Every face asks through here: a chat client's "[Sent at …]" stamp is taken off before
    # anything reads the question (its date is not the question's window).
    question, _ = strip_stamps(question)
    state = _Run(question, request.question, settings)
    try:
        async for event in state.events(brain, request, interface_context, plan_only):
            yield event
    except Exception as error:
        log.warning("question %r failed: %s: %s", question, type(error).__name__, error)
        log.debug("traceback", exc_info=True)
        message = _user_message(error, settings)
        state.answer.status = "error"
        state.answer.message = message
        yield Failed(status="error", message=message)
    yield Done(answer=state.finish())


async def ask(
    question: str, request: RequestContext, *, brain: Brain | Callable[[], Brain], **options: Any
) -> Answer:
    """Run the pipeline to the end and return its Answer (options as for `run`)."""
    return await final_answer(run(question, request, brain=brain, **options))


async def final_answer(events: AsyncIterator[Event]) -> Answer:
    """The Answer of a stream of events (consumed to the end; it always ends with one `Done`)."""
    answer: Answer | None = None
    async for event in events:
        if isinstance(event, Done):
            answer = event.answer
    if answer is None:
        raise RuntimeError("the events ended without a done event")
    return answer


def warm_up(
    settings: Settings,
    stop: threading.Event | None = None,
    pause: Callable[[str], None] | None = None,
) -> dict[str, float]:
    """Pay a process's one-time costs now, so its first question answers as fast as later ones:
    open (or seed) the warehouse and load the catalog, import the interface library, answer one
    question with the offline brain and no network (which builds its vocabulary), then import
    the model libraries and the documents' readers. What a first data answer needs comes first:
    a server warms up in the background while it already serves, calling `pause` with each
    stage's name before it (to wait while requests are answered). Blocking: run it in a
    thread. Never raises; stops between stages once `stop` is set. Returns milliseconds per
    stage run."""
    from datapilot.data import open_data
    from datapilot.interfaces.prediction import preload
    from datapilot.plugins import brains

    def answer() -> None:
        context = QuestionContext(today=date(2022, 1, 1), brain="offline", offline=True)
        request = RequestContext.for_request(context, settings)
        brain = brains()["offline"](request)
        done = asyncio.run(ask(_WARM_UP_QUESTION, request, brain=brain))
        if done.status != "ok":
            raise RuntimeError(f"{_WARM_UP_QUESTION!r} was answered {done.status}: {done.message}")

    def data() -> object:
        return open_data(settings).catalog

    def models() -> None:
        from datapilot.interfaces.indicators import ta_lib

        preload()
        ta_lib()  # loaded on first use by the command line; a server pays for it here

    def documents() -> object:
        # The first document question would otherwise load jieba's dictionary, bm25s, the
        # stemmer, the PDF extractor and the model client (openai) its module imports.
        import pdfplumber  # noqa: F401
        import pypdfium2  # noqa: F401

        import datapilot.engine.documents  # noqa: F401
        from datapilot.retrieval import Index, Passage

        passages = [Passage(text=t, source="warm-up") for t in _WARM_UP_PASSAGES]
        return Index.build(passages).search("研发投入 revenue")

    stages: dict[str, Callable[[], object]] = {
        "data": data,
        "library": default_registry,
        "answer": answer,
        "models": models,
        "documents": documents,
    }
    timings: dict[str, float] = {}
    for name, action in stages.items():
        if pause is not None:
            pause(name)
        if stop is not None and stop.is_set():
            break
        started = time.perf_counter()
        try:
            action()
        except Exception as error:  # a cold start is slower, not broken
            log.warning("warm-up step %s failed: %s: %s", name, type(error).__name__, error)
        timings[name] = _ms(started)
    return timings


class _Run:
    """The state of one question while its events are produced."""

    def __init__(self, question: str, context: QuestionContext, settings: Settings) -> None:
        self.question = question
        self.context = context
        self.settings = settings
        self.zh = is_chinese(question)
        self.started = time.perf_counter()
        self.deadline = self.started + settings.request_timeout_s
        self.answer = Answer(query=question, today=context.today, status="ok")

    def finish(self) -> Answer:
        self.answer.timings_ms["total"] = _ms(self.started)
        return self.answer

    async def events(
        self,
        chosen: Brain | Callable[[], Brain],
        request: RequestContext,
        interface_context: InterfaceContext | None,
        plan_only: bool,
    ) -> AsyncIterator[Event]:
        answer = self.answer
        too_long = check_question(self.question, self.settings)
        if too_long:  # refused before the brain: its reading grows faster than the text
            raise QuestionTooLong(too_long)
        yield StatusEvent(message="正在理解问题…" if self.zh else "Reading the question…")
        # Replicas: what another one added (imports, live data) is applied before anything reads.
        await asyncio.to_thread(request.data.catch_up)
        brain = chosen if isinstance(chosen, Brain) else chosen()
        started = time.perf_counter()
        understanding = await self._in_time(brain.understand(self.question, self.context))
        answer.timings_ms["understand"] = _ms(started)
        answer.intent, answer.plan = understanding.intent, understanding.plan
        answer.usage = answer.usage.add(understanding.usage)
        answer.notes.extend(understanding.notes)

        if understanding.needs is not None:
            yield NeedsClientData(request=understanding.needs)
            answer.message = WIDGET_DATA_REQUESTED
            return
        if understanding.intent is not None:
            if self.zh:
                _label_in_chinese(understanding.intent, request)
            yield IntentEvent(intent=understanding.intent)
        if understanding.status != "ok":
            answer.status = understanding.status
            answer.message = understanding.message or _default_message(understanding.status)
            answer.plan = None
            return
        if understanding.plan is None:
            raise RuntimeError(f"the {brain.name} brain returned no plan")
        plan = understanding.plan
        ledger = understanding.intent.ledger if understanding.intent is not None else None
        unread = ledger.unhonoured if ledger is not None else []
        if unread:
            # A recognised word nothing in the plan honours: its figures would answer another
            # question, so none are given; the question without those words is offered.
            answer.status = "no_data"
            answer.message = cannot_honour_message(unread, self.zh) + offered(plan, self.zh)
            answer.follow_ups = [without_words(self.question, unread)]
            answer.plan = None
            return
        yield PlanEvent(plan=plan)

        registry = request.registry
        started = time.perf_counter()
        check = check_plan(plan, registry)
        answer.timings_ms["validate"] = _ms(started)
        if check.problems:
            answer.status = "error"
            answer.message = str(PlanError(check.problems))
            yield Failed(status="error", message=answer.message)
            return
        if plan_only:
            return

        total = len(plan.calls())
        yield StatusEvent(
            message=f"正在运行{len(plan.steps)}个步骤中的{total}个调用…"
            if self.zh
            else f"Running {counted(total, 'call')} in {counted(len(plan.steps), 'step')}…"
        )
        if interface_context is None:
            started = time.perf_counter()
            interface_context = await asyncio.to_thread(
                request.interface_context, "zh" if self.zh else "en"
            )
            answer.timings_ms["setup"] = answer.timings_ms.get("setup", 0.0) + _ms(started)
        ctx = interface_context
        started = time.perf_counter()
        run_result: RunResult | None = None
        async for item in self._execute(plan, ctx, registry):
            if isinstance(item, RunResult):
                run_result = item
            else:
                yield item
        assert run_result is not None
        answer.timings_ms["execute"] = _ms(started)
        answer.outputs = list(run_result.outputs)
        answer.sources = run_result.sources
        answer.notes.extend(run_result.notes)
        answer.notes.extend(
            f"{c.interface} ({c.output}) {c.status}: {c.error}" for c in run_result.failed
        )

        missing = _no_data_message(plan, run_result, registry, ctx, understanding, self.zh)
        if missing:
            # Charts of nothing help no one; the message says what data exists instead.
            answer.status, answer.message, answer.outputs = "no_data", missing, []
            return
        if all(call.status != "ok" for call in run_result.calls):
            answer.status = "error"
            answer.message = "; ".join(f"{c.interface}: {c.error}" for c in run_result.calls)
            yield Failed(status="error", message=answer.message)
            return

        answer.code = _script(self.question, plan, run_result, ctx)
        yield StatusEvent(message="正在撰写总结…" if self.zh else "Writing the summary…")
        started = time.perf_counter()
        async for delta in self._summarize(brain, understanding, run_result):
            yield delta
        answer.timings_ms["summarize"] = _ms(started)
        usage = getattr(brain, "summary_usage", None)
        if isinstance(usage, Usage):
            answer.usage = answer.usage.add(usage)
        answer.notes.extend(getattr(brain, "summary_notes", None) or [])
        if said := failed_steps_message(run_result, self.zh):
            answer.status, answer.message = "no_data", said  # the figures shown are partial

    async def _execute(
        self, plan: Plan, ctx: InterfaceContext, registry: Registry
    ) -> AsyncIterator[Event | RunResult]:
        """Run the plan in a task, passing its events through as they happen."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        task = asyncio.ensure_future(
            execute(
                plan,
                ctx,
                registry=registry,
                call_timeout_s=self.settings.call_timeout_s,
                on_event=queue.put_nowait,
            )
        )
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await self._in_time(queue.get())) is not None:
                yield event
            yield task.result()
        finally:
            if not task.done():
                task.cancel()
                with suppress(asyncio.CancelledError, Exception):
                    await task

    async def _summarize(
        self, brain: Brain, understanding: Understanding, run_result: RunResult
    ) -> AsyncIterator[TextDelta]:
        written: list[str] = []
        stream = brain.summarize(self.question, understanding, run_result, self.context)
        try:
            while True:
                try:
                    chunk = await self._in_time(anext(stream))
                except StopAsyncIteration:
                    break
                written.append(chunk)
                yield TextDelta(text=chunk)
        except Exception as error:
            # The results stand on their own; a summary from facts replaces a broken one.
            log.warning("summary failed: %s: %s", type(error).__name__, error)
            log.debug("traceback", exc_info=True)
            self.answer.notes.append(f"The {brain.name} brain could not write the summary: {error}")
            if not written:
                text = template_summary(self.question, understanding, run_result)
                written.append(text)
                yield TextDelta(text=text)
        finally:
            with suppress(Exception):
                await stream.aclose()  # type: ignore[attr-defined]
        self.answer.summary = "".join(written).strip()

    async def _in_time(self, awaitable: Awaitable[T]) -> T:
        # A timeout scope in the current task (not wait_for's new task), so a brain's async
        # generator always resumes in the task that started it.
        remaining = self.deadline - time.perf_counter()
        loop = asyncio.get_running_loop()
        scope = asyncio.timeout_at(loop.time() + max(remaining, 0.001))
        try:
            async with scope:
                return await awaitable
        except TimeoutError:
            if scope.expired():
                raise RequestTimeout(self.settings.request_timeout_s) from None
            raise


def _script(question: str, plan: Plan, run_result: RunResult, ctx: InterfaceContext) -> str:
    """The executed plan as the script that reproduces the answer (`Answer.code`)."""
    shown: dict[str, ShownKind] = {}
    for record in run_result.calls:
        value = run_result.values.get(record.output)
        if record.status == "ok" and isinstance(value, ChartOutput | TableOutput | TextOutput):
            shown[record.output] = value.kind
    return answer_script(
        plan,
        query=question,
        today=ctx.today,
        shown=shown,
        language=ctx.language,
        offline=ctx.offline,
        tables=list(ctx.tables),
        not_run={c.output: c.error or c.status for c in run_result.calls if c.status != "ok"},
    )


def _no_data_message(
    plan: Plan,
    run_result: RunResult,
    registry: Registry,
    ctx: InterfaceContext,
    understanding: Understanding,
    zh: bool,
) -> str | None:
    """A message when no acquisition call brought any data, naming entities, window and coverage."""
    fetches = [
        record
        for record in run_result.calls
        if record.interface in registry and registry.get(record.interface).category == "acquisition"
    ]
    if not fetches or any(_has_data(run_result.values.get(r.output)) for r in fetches):
        return None
    if any(r.status == "timeout" for r in fetches):
        return None  # slow, not absent: reported as an error
    intent = understanding.intent
    ids = [e.id for e in intent.entities] if intent and intent.entities else _plan_ids(plan)
    start, end = (intent.start, intent.end) if intent else (None, None)
    window = _window_words(start, end, zh)
    names = ", ".join(ids) if ids else ("所请求的数据" if zh else "the requested data")
    lines = [
        f"没有找到{names}在{window}的数据。" if zh else f"I found no data for {names} {window}."
    ]
    lines.extend(_coverage(ids, ctx, zh, start, end))
    reasons = list(dict.fromkeys(r.error for r in fetches if r.error))
    if reasons:
        lines.append(("原因：" if zh else "Details: ") + " ".join(reasons))
    return " ".join(lines)


def _has_data(value: Any) -> bool:
    """A frame with at least one value in some row (what `not dropna(how="all").empty` says),
    read column by column: the frame operations of `dropna` each deep-copied the frame's
    `attrs`, ~2.5 ms a request."""
    if isinstance(value, pd.DataFrame):
        return any(value.iloc[:, i].notna().to_numpy().any() for i in range(value.shape[1]))
    return value is not None


def _plan_ids(plan: Plan) -> list[str]:
    ids: list[str] = []
    for call in plan.calls():
        for name in _ENTITY_ARGS:
            value = call.args.get(name)
            if isinstance(value, str):
                ids.append(value)
            elif isinstance(value, list):
                ids.extend(str(v) for v in value if isinstance(v, str))
    return list(dict.fromkeys(ids))


def _coverage(
    ids: list[str], ctx: InterfaceContext, zh: bool, start: date | None, end: date | None
) -> list[str]:
    """Each entity's dates, when the window leaves them (inside them, the entity's dates
    explain nothing: the field asked for is what is missing, as the fetch's reason says)."""
    lines = []
    for entity_id in ids:
        try:
            entity = ctx.catalog.get(entity_id)
        except Exception:  # coverage is a courtesy; never fail the answer over it
            entity = None
        if entity is None:
            lines.append(
                f"{entity_id} 不在本地数据目录中。" if zh else f"{entity_id} is not in the catalog."
            )
        elif entity.first and entity.last:
            if start and end and entity.first <= start and end <= entity.last:
                continue
            lines.append(
                f"{entity.id}（{entity.name}）的数据范围是 {entity.first} 至 {entity.last}。"
                if zh
                else f"{entity.id} ({entity.name}) has data from {entity.first} to {entity.last}."
            )
    return lines


def _window_words(start: date | None, end: date | None, zh: bool) -> str:
    if start and end:
        return f"{start} 至 {end} 期间" if zh else f"between {start} and {end}"
    if start:
        return f"{start} 之后" if zh else f"from {start}"
    if end:
        return f"{end} 之前" if zh else f"up to {end}"
    return "任何时间" if zh else "at any date"


def _default_message(status: str) -> str:
    return {
        "no_data": "I have no data to answer this question.",
        "out_of_scope": "This is not a question about financial or economic data.",
        "error": "Something went wrong while reading the question.",
    }.get(status, "")


def _user_message(error: Exception, settings: Settings) -> str:
    if isinstance(error, RequestTimeout):
        return (
            f"The question took longer than {settings.request_timeout_s:g} s and was stopped; "
            "try a shorter window or fewer entities."
        )
    if isinstance(error, BrainUnavailable | PlanError | QuestionTooLong):
        return str(error)
    return f"Something went wrong: {type(error).__name__}: {error}"


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _label_in_chinese(intent: Intent, request: RequestContext) -> None:
    """Each entity's Chinese name (苹果, 标普500) as its label, for the front ends to show."""
    for entity in intent.entities:
        known = request.data.catalog.get(entity.id)
        label = chinese_name(known) if known is not None else None
        if label and label != entity.name:
            entity.label = label
