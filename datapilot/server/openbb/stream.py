"""Pipeline events as OpenBB Workspace server-sent events, built with the `openbb-ai` SDK.

Order on the wire: reasoning steps (client-data problems, status, intent, plan, each call); the
summary as message chunks; the tables and charts as artifacts; warnings; citations; follow-up
suggestions (the Python script that reproduces the answer rides on a reasoning step before
the warnings). When widget data is needed, exactly one `get_widget_data` function call is sent
and the stream ends; the next request carries the data and the state to resume from.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Literal

from openbb_ai import citations, cite, message_chunk, prompt_suggestions, reasoning_step
from openbb_ai.models import (
    SSE,
    Citation,
    DataSourceRequest,
    FunctionCallSSE,
    FunctionCallSSEData,
    SourceInfo,
)

from datapilot.core.answer import Answer
from datapilot.core.context import WidgetInfo
from datapilot.core.events import (
    Done,
    Event,
    Failed,
    IntentEvent,
    NeedsClientData,
    OutputEvent,
    PlanEvent,
    StatusEvent,
    StepFinished,
    TextDelta,
)
from datapilot.core.intent import Intent
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Plan
from datapilot.core.results import CallRecord
from datapilot.engine.summary import understood_line
from datapilot.render.prose import Prose
from datapilot.server.openbb.artifacts import (
    ArtifactNamer,
    candlestick_artifacts,
    chart_artifacts,
    is_candlestick,
    table_artifact,
)
from datapilot.server.openbb.context import STATE_KEY, PreparedQuery, widget_input_args
from datapilot.server.openbb.documents import quote_citations
from datapilot.server.suggestions import follow_ups
from datapilot.tools.published.charts import png_bytes

log = logging.getLogger(__name__)
_MAX_FACTS = 6
_CODE_STEP = "The Python that reproduces this answer"


async def openbb_sse(events: AsyncIterator[Event], prepared: PreparedQuery) -> AsyncIterator[SSE]:
    """Render one question's events for the Workspace."""
    for note in prepared.notes:
        yield reasoning_step(note, event_type="WARNING")
    outputs: list[ChartOutput | TableOutput] = []
    prose = Prose()
    failed = False
    async for event in events:
        match event:
            case StatusEvent(message=message):
                yield reasoning_step(message)
            case IntentEvent(intent=intent):
                yield _intent_step(intent)
            case PlanEvent(plan=plan):
                yield _plan_step(plan)
            case StepFinished(record=record):
                yield _call_step(record)
            case OutputEvent(output=TextOutput(text=text)):
                yield message_chunk(prose.paragraph(text))
            case OutputEvent(output=output):
                assert not isinstance(output, TextOutput)  # text matched the case above
                outputs.append(output)
            case TextDelta(text=text):
                yield message_chunk(prose.delta(text))
            case NeedsClientData(request=request):
                yield _widget_data_call_or_apology(request.widgets, request.resume_state, prepared)
                return
            case Failed(message=message):
                failed = True
                yield reasoning_step(message, event_type="ERROR")
                yield message_chunk(prose.apology(message))
            case Done(answer=answer):
                async for sse in _closing(answer, outputs, prepared, prose, failed):
                    yield sse
                return


async def _chart_artifacts(output: ChartOutput, name: ArtifactNamer) -> list[SSE]:
    """What the Workspace draws of `output`: a candlestick as its PNG (drawn off the event loop)
    in an html artifact, or the native charts where the PNG cannot be drawn."""
    if is_candlestick(output):
        try:
            png = await asyncio.to_thread(png_bytes, output)
        except Exception:  # the native line charts and the table still carry the data
            log.exception("drawing the candlestick %r failed", output.title)
        else:
            return list(candlestick_artifacts(output, png, name))
    return list(chart_artifacts(output, name))


async def _closing(
    answer: Answer,
    outputs: list[ChartOutput | TableOutput],
    prepared: PreparedQuery,
    prose: Prose,
    failed: bool,
) -> AsyncIterator[SSE]:
    text = prose.unwritten(answer)
    if text:
        yield message_chunk(text)
    name = ArtifactNamer(prepared.turn)
    for output in outputs:
        if isinstance(output, ChartOutput):
            for artifact in await _chart_artifacts(output, name):
                yield artifact
        else:
            yield table_artifact(output, name)
    if answer.code:
        # Collapsed under the step: the script a user copies to rerun or edit the answer.
        yield reasoning_step(_CODE_STEP, details={"Python": answer.code})
    for note in answer.notes:
        yield reasoning_step(note, event_type="WARNING")
    if answer.notice:  # how the answer was made (no model, say): beside it, not in its text
        yield reasoning_step(answer.notice, event_type="INFO")
    sources = _citations(answer, prepared)
    if sources:
        yield citations(sources)
    if not failed and answer.status != "error":
        suggestions = follow_ups(answer)
        if suggestions:
            yield prompt_suggestions(suggestions)


def _intent_step(intent: Intent) -> SSE:
    details: dict[str, Any] = {}
    if intent.entities:
        details["Entities"] = ", ".join(f"{e.name} ({e.id})" for e in intent.entities)
    if intent.start or intent.end:
        start = intent.start.isoformat() if intent.start else "first available"
        end = intent.end.isoformat() if intent.end else "latest"
        details["Window"] = f"{start} → {end}"
    if intent.metrics:
        details["Metrics"] = ", ".join(intent.metrics)
    if intent.horizon:
        details["Horizon"] = str(intent.horizon)
    if intent.chart:
        details["Chart"] = intent.chart
    if intent.trace:
        details["Why"] = " · ".join(intent.trace)
    return reasoning_step(understood_line(intent), details=details or None)


def _plan_step(plan: Plan) -> SSE:
    calls = plan.calls()
    details = {f"{i}. {task.kind}": task.instruction for i, task in enumerate(plan.tasks, 1)}
    message = f"Planned {len(calls)} call{'s' * (len(calls) != 1)} in {len(plan.steps)} step"
    message += "s" * (len(plan.steps) != 1)
    return reasoning_step(message, details=details or None)


def _call_step(record: CallRecord) -> SSE:
    label = record.description or record.interface
    details: dict[str, Any] = {"Interface": record.interface, "Time": f"{record.elapsed_ms:.0f} ms"}
    for fact in record.facts[:_MAX_FACTS]:
        value = f"{fact.value:,.4g}" if isinstance(fact.value, float) else str(fact.value)
        details[fact.label] = f"{value} {fact.unit}" if fact.unit else value
    if record.status == "ok":
        return reasoning_step(label, details=details)
    details["Error"] = record.error or record.status
    return reasoning_step(f"{label} — {record.status}", event_type="WARNING", details=details)


def _widget_data_call_or_apology(
    widgets: list[WidgetInfo], resume_state: dict[str, Any], prepared: PreparedQuery
) -> SSE:
    # One function call per turn: the dashboard's widgets, else extra data sources.
    dashboard = [w for w in widgets if not w.extra]
    widgets = dashboard or widgets
    function: Literal["get_widget_data", "get_extra_widget_data"] = (
        "get_widget_data" if dashboard else "get_extra_widget_data"
    )
    asked = {w.uuid: w.params for w in widgets}
    known = [prepared.widgets[w.uuid] for w in widgets if w.uuid in prepared.widgets]
    already = {str(item.widget.uuid) for item in prepared.received}
    if not known:
        names = ", ".join(w.name or w.widget_id for w in widgets) or "a widget"
        return message_chunk(
            f"I need data from {names}, but it is not on this dashboard. "
            "Add the widget to the conversation context and ask again."
        )
    if all(str(widget.uuid) in already for widget in known):
        # Asking again for data that just arrived would loop; say what is wrong instead.
        return message_chunk(
            "The widget data arrived but I could not use it to answer. "
            "Check that the widget shows a table, or ask about its columns by name."
        )
    state = {STATE_KEY: {"question": prepared.question, "resume_state": resume_state}}
    if prepared.legacy and known:
        # v1 clients fetch one widget per call, named by its uuid.
        arguments: dict[str, Any] = {"widget_uuid": str(known[0].uuid)}
    else:
        sources = [
            DataSourceRequest(
                widget_uuid=str(widget.uuid),
                origin=widget.origin,
                id=widget.widget_id,
                input_args=asked.get(str(widget.uuid)) or widget_input_args(widget),
            ).model_dump()
            for widget in known
        ]
        arguments = {"data_sources": sources}
    data = FunctionCallSSEData(function=function, input_arguments=arguments, extra_state=state)
    return FunctionCallSSE(data=data)


def _citations(answer: Answer, prepared: PreparedQuery) -> list[Citation]:
    found = [cite(item.widget, item.input_args) for item in prepared.received]
    cited_widgets = {f"client table: {item.widget.name}" for item in prepared.received}
    args = {str(item.widget.uuid): item.input_args for item in prepared.received}
    found.extend(quote_citations(answer, prepared.widgets, args))
    quoted = {quote.source for quote in answer.quotes}
    details = _citation_details(answer)
    for source in answer.sources:
        if source in cited_widgets or source in quoted:
            continue
        info = SourceInfo(
            type="direct retrieval",
            name=source,
            description=f"Data read from {source}",
            citable=True,
        )
        found.append(Citation(source_info=info, details=[details] if details else None))
    return found


def _citation_details(answer: Answer) -> dict[str, Any]:
    intent = answer.intent
    if intent is None:
        return {}
    details: dict[str, Any] = {}
    if intent.entities:
        details["Entities"] = ", ".join(e.id for e in intent.entities)
    if intent.start and intent.end:
        details["Window"] = f"{intent.start.isoformat()} → {intent.end.isoformat()}"
    return details
