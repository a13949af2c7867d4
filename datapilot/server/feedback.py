"""User feedback (thumbs up/down and comments) appended as JSON lines to the data dir."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

_Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
_Long = Annotated[str, StringConstraints(max_length=100_000)]
_write_lock = threading.Lock()


class Feedback(BaseModel):
    """What the Workspace sends to the feedback endpoint; unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    vote: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20)] = (
        Field(description="The user's vote, e.g. `up` or `down`.")
    )
    tags: list[_Short] = Field(default_factory=list, max_length=50)
    user_comment: _Long = ""
    ai_response: _Long = ""
    user_prompt: _Long = ""
    trace_id: _Short = ""


class FeedbackStored(BaseModel):
    status: str = "ok"


class FeedbackEntry(Feedback):
    received_at: datetime


async def store_feedback(feedback: Feedback, data_dir: Path) -> Path:
    """Append one feedback entry to `data_dir/feedback.jsonl`; return the file's path."""
    path = data_dir / "feedback.jsonl"
    entry = FeedbackEntry(received_at=datetime.now(UTC), **feedback.model_dump())
    await asyncio.to_thread(_append_line, path, entry.model_dump_json())
    return path


def _append_line(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with _write_lock, path.open("a", encoding="utf-8") as file:
        file.write(line + "\n")
