"""The Answer: what `datapilot ask --json` prints and the non-streaming API returns."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from datapilot.core.intent import Intent
from datapilot.core.outputs import Output
from datapilot.core.plan import Plan
from datapilot.core.quotes import Citation, Quote

AnswerStatus = Literal["ok", "no_data", "out_of_scope", "error"]


class Usage(BaseModel):
    llm_calls: int = Field(default=0, description="Model calls made.")
    llm_calls_used: int = Field(
        default=0,
        description="Of those, the calls whose reply the answer is made of (the plan that ran, "
        "the summary shown); the others were repaired, refused or replaced by the offline reader.",
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_latency_ms: float = Field(default=0.0, description="Time spent waiting on model calls.")

    def add(self, other: Usage) -> Usage:
        return Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            llm_calls_used=self.llm_calls_used + other.llm_calls_used,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            llm_latency_ms=round(self.llm_latency_ms + other.llm_latency_ms, 1),
        )


class Answer(BaseModel):
    query: str
    today: date
    status: AnswerStatus
    intent: Intent | None = None
    plan: Plan | None = None
    outputs: list[Output] = Field(default_factory=list)
    summary: str = ""
    message: str | None = Field(
        default=None, description="What went wrong, for no_data / out_of_scope / error."
    )
    notes: list[str] = Field(default_factory=list, description="Warnings a user should see.")
    follow_ups: list[str] = Field(
        default_factory=list,
        description=(
            "Questions to ask next that this answer offers itself, first among the suggestions: "
            "one per tool when it asks which of several was meant."
        ),
    )
    notice: str | None = Field(
        default=None,
        description=(
            "How the answer was made when a user should know (no model is configured), in the "
            "question's language: shown beside the answer, never in its text."
        ),
    )
    sources: list[str] = Field(default_factory=list, description="Data sources used.")
    quotes: list[Quote] = Field(
        default_factory=list, description="Passages of the user's documents the answer quotes."
    )
    code: str | None = Field(
        default=None,
        description="The executed plan as a Python script that reproduces the answer's results.",
    )
    citations: list[Citation] = Field(
        default_factory=list,
        description="Passages of a knowledge library the answer rests on: file, page, offsets.",
    )
    usage: Usage = Field(default_factory=Usage)
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def unsaid_notes(self) -> list[str]:
        """The notes the summary does not say already (a moved window is said first there)."""
        said = " ".join(self.summary.split())
        return [note for note in self.notes if " ".join(note.split()) not in said]
