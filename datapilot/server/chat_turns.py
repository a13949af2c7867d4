"""Running one chat message: store it, run the assistant's turn off the event loop, store
what the turn produced; the reply as LMC chunks or as one JSON body."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from datapilot.assistants.messages_in import ANSWERED_ROLES, MessageIn
from datapilot.assistants.models import MessageInfo
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, Failed
from datapilot.core.messages import LmcChunk
from datapilot.render.lmc import lmc_chunks
from datapilot.server.errors import Unavailable
from datapilot.server.limits import check_question
from datapilot.server.runner import guarded_events
from datapilot.settings import Settings

if TYPE_CHECKING:  # the chats' machinery loads with the first message
    from datapilot.assistants.service import Conversation, Prepared


@dataclass
class MessageRun:
    """What one message's job records as it runs: the messages its turn stored, and the wall
    time of the platform's own steps (storing the message and setting up the turn; storing
    the reply), sent as the `Server-Timing` header of a reply that is not streamed."""

    stored: list[MessageInfo] = field(default_factory=list)
    prepare_ms: float = 0.0
    finish_ms: float = 0.0

    def server_timing(self) -> str:
        return f"prepare;dur={self.prepare_ms:.1f}, finish;dur={self.finish_ms:.1f}"


class SceneChosen(BaseModel):
    """The assistant's scene prompt a turn used (`id`/`label` None: none of its scenes fit)."""

    id: str | None
    label: str | None
    by: str = Field(description="words (offline matching) or model.")


def scene_of(prepared: Prepared) -> SceneChosen | None:
    """The scene the turn chose, once its context is fit (before its first event)."""
    record = prepared.turn.result.context if prepared.turn else None
    if record is None or record.scene_by is None:  # no turn yet, or no scenes to choose from
        return None
    return SceneChosen(id=record.scene_id, label=record.scene_label, by=record.scene_by)


class MessagesReply(BaseModel):
    """A message stored, and the assistant's turn when it answered."""

    chat_id: str
    message: MessageInfo = Field(description="The message you sent, as stored.")
    replies: list[MessageInfo] = Field(
        default_factory=list, description="What the turn stored: tool calls, results, the reply."
    )
    answer: Answer | None = Field(default=None, description="The turn as an Answer.")
    scene: SceneChosen | None = Field(
        default=None, description="The scene chosen for the turn, when the assistant has scenes."
    )


async def message_events(
    conversation: Conversation, chat_id: str, body: MessageIn, settings: Settings
) -> tuple[Prepared, AsyncIterator[Event], MessageRun]:
    """Store the message and run its turn as ONE job of the request worker pool: `prepare`,
    the turn and `finish` on the same thread (each hop to another thread waits for the GIL
    behind the pool's busy workers, and under load that was most of a chat's overhead).

    Returns once the message is stored: the prepared turn, its events (under the request
    timeout, stored before `done`) and the record `finish` fills. An error of `prepare` is raised
    here before any response starts (a platform error becomes its 404, 403 or 400 in the app's
    handler); a question over DATAPILOT_MAX_QUESTION_CHARS is a 422 before anything is stored."""
    problem = check_question(body.content, settings) if body.role in ANSWERED_ROLES else None
    if problem:  # the question limit of every face, before anything is stored
        error = {"loc": ("body", "content"), "msg": problem, "type": "too_large"}
        raise RequestValidationError([error])
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[Prepared] = loop.create_future()
    record = MessageRun()

    def tell(outcome: Prepared | BaseException) -> None:
        if ready.done():  # the request already gave up
            return
        if isinstance(outcome, BaseException):
            ready.set_exception(outcome)
        else:
            ready.set_result(outcome)

    async def source(_q: str, _c: QuestionContext, _s: Settings) -> AsyncIterator[Event]:
        started = time.perf_counter()
        try:
            prepared = conversation.prepare(chat_id, body)
            record.prepare_ms = (time.perf_counter() - started) * 1000
        except Exception as error:  # raised by the route as before: nothing was streamed
            loop.call_soon_threadsafe(tell, error)
            return
        loop.call_soon_threadsafe(tell, prepared)
        async for event in _turn_events(conversation, prepared, record):
            yield event

    context = QuestionContext(today=settings.effective_today())
    events = guarded_events(body.content, context, settings, source)
    first = asyncio.ensure_future(anext(events))  # starts the job
    try:
        pending: list[asyncio.Future[Any]] = [ready, first]
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():  # the job ended before the message was stored (timed out)
            raise Unavailable(_not_stored(await first))
        failed = ready.exception()
        if failed is not None:
            await _close(first, events)
            raise failed
    except BaseException:
        await _close(first, events)
        raise
    return ready.result(), _chained(first, events), record


async def _chained(
    first: asyncio.Future[Event], rest: AsyncIterator[Event]
) -> AsyncIterator[Event]:
    try:
        yield await first
        async for event in rest:
            yield event
    finally:
        await _close(first, rest)


async def _close(first: asyncio.Future[Event], events: AsyncIterator[Event]) -> None:
    """Stop the job: the pending read first (a generator cannot close while it is read)."""
    if not first.done():
        first.cancel()
    with contextlib.suppress(BaseException):
        await first
    await events.aclose()  # type: ignore[attr-defined]


def _not_stored(event: Event) -> str:
    reason = event.message if isinstance(event, Failed) else "the request ended early"
    return f"The message was not stored: {reason}"


async def _turn_events(
    conversation: Conversation, prepared: Prepared, record: MessageRun
) -> AsyncIterator[Event]:
    """A prepared turn's events, its messages stored (`finish`) before its `done`."""
    turn = prepared.turn
    if turn is None:
        yield Done(answer=_stored_only(prepared))
        return
    async for event in turn.events():
        if isinstance(event, Done):
            # This runs on a worker thread's own loop (see `guarded_events`), which only this
            # request uses: storing here costs no hop to yet another thread.
            started = time.perf_counter()
            record.stored.extend(conversation.finish(prepared))
            record.finish_ms = (time.perf_counter() - started) * 1000
        yield event


def _stored_only(prepared: Prepared) -> Answer:
    return Answer(
        query=prepared.human.content,
        today=prepared.human.created_at.date(),
        status="ok",
        message=f"Stored as {prepared.human.role}; no reply was asked for.",
    )


async def lmc_wire(
    prepared: Prepared, chunks: AsyncIterator[LmcChunk], record: MessageRun
) -> AsyncIterator[dict[str, str]]:
    first = {"id": prepared.human.id, "role": prepared.human.role, "chat_id": prepared.chat_id}
    yield {"data": LmcChunk(role="server", type="status", format="message", content=first).wire()}
    told = False
    async for chunk in chunks:
        scene = None if told else scene_of(prepared)
        if scene is not None:  # chosen before the turn's first event: it leads the reply
            told = True
            content = scene.model_dump()
            yield {
                "data": LmcChunk(
                    role="server", type="status", format="scene", content=content
                ).wire()
            }
        if chunk.role == "server" and chunk.type == "status" and chunk.content == "complete":
            stored = record.stored
            ids = {"ids": [m.id for m in stored], "roles": [m.role for m in stored]}
            done = LmcChunk(role="server", type="status", format="messages", content=ids)
            yield {"data": done.wire()}
        yield {"data": chunk.wire()}


async def reply(
    chat_id: str,
    body: MessageIn,
    conversation: Conversation,
    settings: Settings,
    response: Response,
) -> Any:
    """The route's answer to a message: the LMC stream, or (`stream: false`) the stored
    messages as one body, with the platform's own time in `Server-Timing`."""
    prepared, events, record = await message_events(conversation, chat_id, body, settings)
    if body.stream:
        return EventSourceResponse(lmc_wire(prepared, lmc_chunks(events), record))
    answer: Answer | None = None
    async for event in events:
        if isinstance(event, Done):
            answer = event.answer
    response.headers["Server-Timing"] = record.server_timing()
    return MessagesReply(
        chat_id=chat_id,
        message=prepared.human,
        replies=record.stored,
        answer=answer if prepared.turn else None,
        scene=scene_of(prepared),
    )
