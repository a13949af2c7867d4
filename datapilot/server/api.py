"""The native API: `POST /api/v1/ask` answers with the Answer JSON or streams LMC chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sse_starlette import EventSourceResponse

from datapilot.core.answer import Answer
from datapilot.core.context import ChatMessage, ClientTable, QuestionContext
from datapilot.core.events import Done
from datapilot.core.messages import LmcChunk
from datapilot.render.lmc import lmc_chunks
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.runner import guarded_events
from datapilot.settings import BrainChoice, Settings

router = APIRouter(prefix="/api/v1", tags=["Native API"])


class AskRequest(BaseModel):
    """A question, and optionally the conversation so far and data of your own."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000, description="English or Chinese.")
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
    images: bool = Field(default=True, description="When streaming, include charts as PNG.")

    @field_validator("tables")
    @classmethod
    def _tables_are_rectangular(cls, tables: list[ClientTable]) -> list[ClientTable]:
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


_ASK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "With `stream=false`, the Answer. With `stream=true`, server-sent events whose "
            "`data` is one LMC chunk each, ending with `{role: server, type: status, "
            "content: complete}`."
        ),
        "content": {
            "text/event-stream": {
                # One server-sent event per chunk: `data` is the chunk as JSON text.
                "schema": {
                    "type": "object",
                    "properties": {
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": LmcChunk.model_json_schema(),
                        }
                    },
                    "required": ["data"],
                }
            }
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
async def ask(body: AskRequest, request: Request) -> Answer | EventSourceResponse:
    settings: Settings = request.app.state.settings
    context = QuestionContext(
        today=body.today or settings.effective_today(),
        history=body.history,
        tables=body.tables,
        brain=body.brain or settings.brain,
        offline=settings.offline,
    )
    events = guarded_events(body.question, context, settings)
    if body.stream:
        return EventSourceResponse(_wire(lmc_chunks(events, images=body.images)))
    async for event in events:
        if isinstance(event, Done):
            return event.answer
    raise RuntimeError("the event stream ended without an answer")  # guarded_events prevents it


async def _wire(chunks: AsyncIterator[LmcChunk]) -> AsyncIterator[dict[str, str]]:
    async for chunk in chunks:
        yield {"data": chunk.wire()}
