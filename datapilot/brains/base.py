"""The brain protocol: question -> intent + plan, and results -> a first-person summary."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from pydantic import BaseModel, Field

from datapilot.core.answer import AnswerStatus, Usage
from datapilot.core.context import QuestionContext, WidgetDataRequest
from datapilot.core.intent import Intent
from datapilot.core.plan import Plan
from datapilot.core.results import RunResult


class Understanding(BaseModel):
    """A brain's reading of a question. `plan` is None unless status is ok."""

    status: AnswerStatus = "ok"
    intent: Intent | None = None
    plan: Plan | None = None
    message: str | None = Field(default=None, description="For no_data / out_of_scope / error.")
    needs: WidgetDataRequest | None = Field(
        default=None, description="Widget data to fetch from the client before planning."
    )
    notes: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class Brain(Protocol):
    name: str

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        """Read the question; return an intent and a validated plan, or a status saying why not."""
        ...

    def summarize(
        self, question: str, understanding: Understanding, run: RunResult, context: QuestionContext
    ) -> AsyncIterator[str]:
        """Stream a first-person summary that quotes only numbers found in `run.facts`."""
        ...
