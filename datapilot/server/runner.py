"""Run the pipeline for a front end: a whole-request timeout, and a stream that always ends well.

Whatever happens inside — a brain or data failure, a timeout — the events end with a `failed`
event saying what went wrong and exactly one `done`. The pipeline runs in its own task so that a
slow or vanished client never holds it, and a timeout never strikes while a front end is writing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from datapilot.brains import answers_offline
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, Failed
from datapilot.server.workers import offloaded, request_pool
from datapilot.settings import Settings

if TYPE_CHECKING:
    from datapilot.engine.context import EventSource

log = logging.getLogger(__name__)
# What produces a request's events: the pipeline, or another producer (e.g. documents).
_END = object()
# The pipeline keeps its own deadline and explains it best; this one is the backstop.
_GRACE_S = 0.5


async def pipeline_events(
    question: str, context: QuestionContext, settings: Settings
) -> AsyncIterator[Event]:
    """The pipeline's event stream for one request, with the brain chosen for it (looked up at
    call time, so it can be swapped in tests). The request's context is built off the event loop:
    the first one may load the interface library."""
    from datapilot.brains import run
    from datapilot.engine.context import RequestContext

    request = await asyncio.to_thread(RequestContext.for_request, context, settings)
    async for event in run(question, request):
        yield event


async def guarded_events(
    question: str,
    context: QuestionContext,
    settings: Settings,
    source: EventSource | None = None,
) -> AsyncIterator[Event]:
    """The events of `source` (default: the pipeline) under `settings.request_timeout_s`, always
    ending with one `done`."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    producer = asyncio.create_task(
        _produce(question, context, settings, queue, source or pipeline_events)
    )
    try:
        while True:
            event = await queue.get()
            if event is _END:
                break
            yield event
            if isinstance(event, Done):
                break
    finally:
        if not producer.done():
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await producer


async def _produce(
    question: str,
    context: QuestionContext,
    settings: Settings,
    queue: asyncio.Queue[Any],
    source: EventSource,
) -> None:
    done = False
    failure: str | None = None
    try:
        async with (
            asyncio.timeout(settings.request_timeout_s + _GRACE_S),
            contextlib.aclosing(
                offloaded(
                    lambda: source(question, context, settings),
                    request_pool(settings, answers_offline(context, settings)),
                )
            ) as events,
        ):
            async for event in events:
                await queue.put(event)
                if isinstance(event, Done):
                    done = True
                    break
    except TimeoutError:
        failure = (
            f"The request took longer than {settings.request_timeout_s:g} s and was stopped; "
            "try a shorter window or fewer entities, or raise DATAPILOT_REQUEST_TIMEOUT_S."
        )
    except Exception as error:
        log.exception("pipeline failed for %r", question)
        failure = f"Something failed while answering: {_describe(error)}"
    if not done:
        message = failure or "The answer ended unexpectedly before it was complete."
        await queue.put(Failed(status="error", message=message))
        answer = Answer(query=question, today=context.today, status="error", message=message)
        await queue.put(Done(answer=answer))
    await queue.put(_END)


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
