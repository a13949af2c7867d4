"""The native API: `POST /api/v1/ask` answers with the Answer JSON or streams LMC chunks."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError
from sse_starlette import EventSourceResponse

from datapilot.core.answer import Answer
from datapilot.core.context import ChatMessage, ClientTable, QuestionContext
from datapilot.core.events import Done
from datapilot.core.messages import LmcChunk
from datapilot.render.lmc import lmc_chunks
from datapilot.server.deps import SettingsDep, StoreDep, tenant_of
from datapilot.server.docs import sse_event_schema
from datapilot.server.errors import VALIDATION_RESPONSES, Refused
from datapilot.server.limits import (
    check_conversation,
    check_question,
    check_tables,
    request_settings,
)
from datapilot.server.runner import guarded_events
from datapilot.settings import BrainChoice

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/v1", tags=["Native API"])


class AskRequest(BaseModel):
    """A question, and optionally the conversation so far and data of your own."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(
        min_length=1,
        description="English or Chinese, at most DATAPILOT_MAX_QUESTION_CHARS characters.",
    )
    today: date | None = Field(
        default=None, description="Resolve relative windows against this date (default: today)."
    )
    brain: BrainChoice | None = Field(default=None, description="Default: the server setting.")
    stream: bool = Field(default=False, description="Stream LMC chunks as server-sent events.")
    history: list[ChatMessage] = Field(
        default_factory=list, description="Earlier turns, oldest first."
    )
    tables: list[ClientTable] = Field(
        default_factory=list, description="Your own tables, usable by name in the question."
    )
    images: bool = Field(
        default=False,
        description="When streaming, also send each chart as a PNG (base64) before its Plotly "
        "figure. Off unless asked: drawing a PNG costs more CPU than the rest of the answer.",
    )
    library: str | None = Field(
        default=None,
        max_length=200,
        description="Answer from this knowledge library of yours (name or id): the Answer quotes "
        "its passages and lists them in `citations`; a question it does not answer is no_data.",
    )

    @field_validator("question")
    @classmethod
    def _question_within_limit(cls, question: str) -> str:
        _refuse(check_question(question, request_settings()))
        return question

    @field_validator("history", mode="before")
    @classmethod
    def _history_within_limits(cls, history: Any) -> Any:
        # Before validation: 10,000 bad entries get one short error, not 10,000.
        problems = check_conversation(history, request_settings(), "history")
        _refuse("; ".join(f"{field}: {message}" for field, message in problems) or None)
        return history

    @field_validator("tables")
    @classmethod
    def _tables_are_rectangular(cls, tables: list[ClientTable]) -> list[ClientTable]:
        problems = check_tables(tables, request_settings(), "tables")
        _refuse("; ".join(f"{field}: {message}" for field, message in problems) or None)
        for number, table in enumerate(tables):
            names = [name.strip() for name in table.columns]
            if not names or "" in names:
                raise ValueError(f"table {number} ({table.name!r}) needs named columns")
            if len(set(names)) != len(names):
                raise ValueError(f"table {number} ({table.name!r}) repeats a column name")
            for row_number, row in enumerate(table.rows):
                if len(row) != len(names):
                    raise ValueError(
                        f"table {number} ({table.name!r}) row {row_number} has {len(row)} cells "
                        f"for {len(names)} columns; send one cell per column"
                    )
        return tables


def _refuse(problem: str | None) -> None:
    if problem:
        raise PydanticCustomError("too_large", "{message}", {"message": problem})


_ASK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "With `stream=false`, the Answer. With `stream=true`, server-sent events whose "
            "`data` is one LMC chunk each, ending with `{role: server, type: status, "
            "content: complete}`."
        ),
        "content": {
            # One server-sent event per chunk: `data` is the chunk as JSON text.
            "text/event-stream": {"schema": sse_event_schema(LmcChunk.model_json_schema())}
        },
    },
    **VALIDATION_RESPONSES,
}


@router.post(
    "/ask",
    response_model=Answer,
    responses=_ASK_RESPONSES,
    summary="Answer a question (JSON, or streamed LMC chunks)",
)
async def ask(
    body: AskRequest, request: Request, settings: SettingsDep, store: StoreDep
) -> Answer | EventSourceResponse:
    tenant = await tenant_of(request)  # whose imports the answer may read
    context = QuestionContext(
        today=body.today or settings.effective_today(),
        history=body.history,
        tables=body.tables,
        brain=body.brain or settings.brain,
        offline=settings.offline,
        data_owner=tenant.user_id,
    )
    source = None
    if body.library is not None:
        from datapilot.knowledge.answering import library_source

        if tenant.user_id is None:
            raise Refused("guests have no knowledge libraries")
        source = library_source(store, tenant.user_id, body.library)
    events = guarded_events(body.question, context, settings, source)
    if body.stream:
        return EventSourceResponse(_wire(lmc_chunks(events, images=body.images)))
    async for event in events:
        if isinstance(event, Done):
            return event.answer
    raise RuntimeError("the event stream ended without an answer")  # guarded_events prevents it


async def _wire(chunks: AsyncIterator[LmcChunk]) -> AsyncIterator[dict[str, str]]:
    """The chunks as server-sent events; a failure while rendering still ends the stream with an
    error chunk and `complete`, so a client never waits for an end that does not come."""
    try:
        async for chunk in chunks:
            yield {"data": chunk.wire()}
    except Exception as error:
        log.exception("the LMC stream failed")
        message = f"The answer could not be sent completely: {type(error).__name__}: {error}"
        yield {"data": LmcChunk(role="server", type="error", content=message).wire()}
        yield {"data": LmcChunk(role="server", type="status", content="complete").wire()}
