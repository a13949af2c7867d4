"""Progress of a long operation, for a face that can show it (MCP `notifications/progress` when
the caller sent a progress token): the face sets `progress_reporter` around the call, `ask`
reports each stage of its pipeline through it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar

from datapilot.core.events import Done, Event, IntentEvent, PlanEvent, StepFinished
from datapilot.data.display import counted
from datapilot.data.text import is_chinese
from datapilot.tools.published.text import STATUS_ZH

# (progress, total or None, message), callable from any thread. A face that can report progress
# (MCP, when the caller sent a progress token) sets it around a call; `ask` reports each stage.
ProgressReporter = Callable[[float, float | None, str], None]
progress_reporter: ContextVar[ProgressReporter | None] = ContextVar(
    "progress_reporter", default=None
)


async def reporting(events: AsyncIterator[Event], report: ProgressReporter) -> AsyncIterator[Event]:
    """`events` passed on as they come, each stage reported in the question's language:
    understood, planned, every call (by its interface's name, as the plan view shows it)."""
    done: float = 0.0
    total: float | None = None  # known once the plan is
    zh = False
    async for event in events:
        if isinstance(event, IntentEvent):
            done, zh = done + 1, is_chinese(event.intent.rewritten)
            said = (
                f"已理解：{event.intent.rewritten}"
                if zh
                else f"understood: {event.intent.rewritten}"
            )
            report(done, total, said)
        elif isinstance(event, PlanEvent):
            calls = sum(len(step.calls) for step in event.plan.steps)
            done, total = done + 1, float(2 + calls + 1)  # intent, plan, the calls, the answer
            report(
                done, total, f"计划了{calls}个调用" if zh else f"planned {counted(calls, 'call')}"
            )
        elif isinstance(event, StepFinished):
            done, record = done + 1, event.record
            if zh:
                said = f"第{event.step}步：{record.interface} {_CALL_ZH[record.status]}"
            else:
                said = f"step {event.step}: {record.interface} {record.status}"
            report(done, total, said)
        elif isinstance(event, Done):
            status = event.answer.status
            said = f"已完成：{STATUS_ZH[status]}" if zh else f"answered: {status}"
            report(total or done + 1, total or done + 1, said)
        yield event


# A call's status, said to a Chinese question (an answer's: STATUS_ZH).
_CALL_ZH = {"ok": "完成", "failed": "失败", "skipped": "跳过", "timeout": "超时"}
