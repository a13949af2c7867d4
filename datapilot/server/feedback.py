"""User feedback (thumbs up/down and comments) appended as JSON lines to the data dir.

Bounded: one record is at most `DATAPILOT_MAX_FEEDBACK_KB`, and the files together at most
`DATAPILOT_MAX_FEEDBACK_MB` — `feedback.jsonl` is rotated to `feedback.1.jsonl` when it would
pass half the budget (the older rotation is dropped). Writes and rotations hold a file lock, so
several server processes share the files safely, and every line is written whole.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

from filelock import FileLock
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from datapilot.settings import Settings

_Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
_Long = Annotated[str, StringConstraints(max_length=100_000)]
FEEDBACK_FILE = "feedback.jsonl"
ROTATED_FILE = "feedback.1.jsonl"


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


class FeedbackTooLarge(ValueError):
    """One record passed `DATAPILOT_MAX_FEEDBACK_KB`."""


async def store_feedback(feedback: Feedback, settings: Settings) -> Path:
    """Append one feedback entry to `<data dir>/feedback.jsonl`; return the file's path.
    Raises `FeedbackTooLarge` (nothing written) when the record passes the per-record cap."""
    entry = FeedbackEntry(received_at=datetime.now(UTC), **feedback.model_dump())
    line = entry.model_dump_json() + "\n"
    size = len(line.encode("utf-8"))
    cap = int(settings.max_feedback_kb * 1024)
    if size > cap:
        raise FeedbackTooLarge(
            f"The feedback record is {size / 1024:,.1f} KB; the limit is "
            f"{settings.max_feedback_kb:g} KB (DATAPILOT_MAX_FEEDBACK_KB). Shorten the comment "
            "or leave out the answer text."
        )
    path = settings.data_dir / FEEDBACK_FILE
    budget = int(settings.max_feedback_mb * 1024 * 1024)
    await asyncio.to_thread(_append_line, path, line, budget)
    return path


def _append_line(path: Path, line: str, budget: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = line.encode("utf-8")
    with FileLock(str(path) + ".lock", timeout=10):
        current = path.stat().st_size if path.exists() else 0
        if current and current + len(data) > budget // 2:
            os.replace(path, path.with_name(ROTATED_FILE))  # the previous rotation is dropped
        # One write of the whole line, flushed and synced: a crash never leaves half a line.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
