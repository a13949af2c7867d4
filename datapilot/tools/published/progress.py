"""Progress of a long operation, for a face that can show it (MCP `notifications/progress` when
the caller sent a progress token): the face sets `progress_reporter` around the call, `ask`
reports each stage of its pipeline through it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar

from datapilot.core.events import Done, Event, IntentEvent, PlanEvent, StepFinished
from datapilot.data.display import counted

# (progress, total or None, message), callable from any thread. A face that can report progress
# (MCP, when the caller sent a progress token) sets it around a call; `ask` reports each stage.
ProgressReporter = Callable[[float, float | None, str], None]
progress_reporter: ContextVar[ProgressReporter | None] = ContextVar(
    "progress_reporter", default=None
)


async def reporting(events: AsyncIterator[Event], report: ProgressReporter) -> AsyncIterator[Event]:
    """`events` passed on as they come, each stage reported: understood, planned, every call."""
    done: float = 0.0
    total: float | None = None  # known once the plan is
    async for event in events:
        if isinstance(event, IntentEvent):
            done += 1
            report(done, total, f"understood: {event.intent.rewritten}")
        elif isinstance(event, PlanEvent):
            calls = sum(len(step.calls) for step in event.plan.steps)
            done, total = done + 1, float(2 + calls + 1)  # intent, plan, the calls, the answer
            report(done, total, f"planned {counted(calls, 'call')}")
        elif isinstance(event, StepFinished):
            done, record = done + 1, event.record
            report(done, total, f"step {event.step}: {record.interface} {record.status}")
        elif isinstance(event, Done):
            report(total or done + 1, total or done + 1, f"answered: {event.answer.status}")
        yield event
