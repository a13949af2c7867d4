"""Whatever the pipeline does, a front end's stream ends with one `done` and never hangs."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from datetime import date

import pytest

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, Failed, StatusEvent
from datapilot.server import runner
from datapilot.settings import Settings

CONTEXT = QuestionContext(today=date(2020, 1, 1))


async def _collect(settings: Settings) -> list[Event]:
    return [event async for event in runner.guarded_events("q", CONTEXT, settings)]


async def test_timeout_ends_the_stream_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    async def slow(question, context, settings) -> AsyncIterator[Event]:
        yield StatusEvent(message="working")
        await asyncio.sleep(30)

    monkeypatch.setattr(runner, "pipeline_events", slow)
    started = time.perf_counter()
    # 1 s, not less: the job must first get a pool thread, which under load took over 0.2 s.
    events = await _collect(Settings(request_timeout_s=1))
    elapsed = time.perf_counter() - started
    assert elapsed < 3
    assert [type(e) for e in events] == [StatusEvent, Failed, Done]
    assert "longer than 1 s" in events[1].message
    assert events[2].answer.status == "error" and events[2].answer.message == events[1].message


async def test_an_exception_mid_stream_becomes_failed_then_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def broken(question, context, settings) -> AsyncIterator[Event]:
        yield StatusEvent(message="reading")
        raise ValueError("brain exploded")

    monkeypatch.setattr(runner, "pipeline_events", broken)
    events = await _collect(Settings())
    assert [type(e) for e in events] == [StatusEvent, Failed, Done]
    assert "ValueError: brain exploded" in events[1].message


async def test_a_stream_without_done_is_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    async def truncated(question, context, settings) -> AsyncIterator[Event]:
        yield StatusEvent(message="reading")

    monkeypatch.setattr(runner, "pipeline_events", truncated)
    events = await _collect(Settings())
    assert [type(e) for e in events] == [StatusEvent, Failed, Done]


async def test_events_after_done_are_dropped_and_an_early_stop_cancels_the_pipeline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pipeline runs on a worker thread's own loop now: a thread-safe flag, not asyncio.Event.
    cancelled = threading.Event()
    answer = Answer(query="q", today=date(2020, 1, 1), status="ok")

    async def chatty(question, context, settings) -> AsyncIterator[Event]:
        yield Done(answer=answer)
        yield StatusEvent(message="after done")

    monkeypatch.setattr(runner, "pipeline_events", chatty)
    assert [type(e) for e in await _collect(Settings())] == [Done]

    async def endless(question, context, settings) -> AsyncIterator[Event]:
        try:
            while True:
                yield StatusEvent(message="tick")
                await asyncio.sleep(0.01)
        finally:
            cancelled.set()

    monkeypatch.setattr(runner, "pipeline_events", endless)
    stream = runner.guarded_events("q", CONTEXT, Settings())
    assert isinstance(await anext(stream), StatusEvent)
    await stream.aclose()
    assert await asyncio.to_thread(cancelled.wait, 1)
