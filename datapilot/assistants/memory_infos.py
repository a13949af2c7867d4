"""The shapes the memories' routes answer with: a memory, one of its events, what one turn's
prompt held. Kept apart from `assistants.memory` and `assistants.compression` (the search over
memories and chats: the knowledge index, numpy, the token counter), which the routes load with
their first request, not when the server starts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventKind = Literal["ADD", "UPDATE", "DELETE"]


class MemoryInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    text: str
    assistant_id: str | None
    created_at: datetime
    updated_at: datetime


class MemoryEventInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    memory_id: str
    event: EventKind
    text: str
    previous: str | None
    source: str = Field(description="explicit (the user said so) or model (extracted).")
    assistant_id: str | None
    chat_id: str | None
    created_at: datetime


class ContextRecord(BaseModel):
    """What one turn's prompt held, and what was left out of it."""

    budget: int
    prompt_tokens: int = Field(description="Tokens of the prompt as sent (o200k estimate).")
    full_tokens: int = Field(description="Tokens the whole history would have taken.")
    verbatim_ids: list[int] = Field(default_factory=list)
    retrieved_blocks: list[str] = Field(default_factory=list, description="Block digests.")
    summarised_ids: list[int] = Field(default_factory=list)
    dropped_ids: list[int] = Field(default_factory=list, description="Left out entirely.")
    summary_by: str | None = Field(default=None, description="model, extractive, or None.")
    clipped_question: bool = False
    memory_ids: list[str] = Field(default_factory=list)
    scene_id: str | None = None
    scene_label: str | None = None
    scene_by: str | None = None
