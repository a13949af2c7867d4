"""The brain protocol: question -> intent + plan, and results -> a first-person summary."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from datapilot.core.context import QuestionContext
from datapilot.core.results import RunResult
from datapilot.core.understanding import Understanding

__all__ = ["Brain", "BrainUnavailable", "Understanding"]


class BrainUnavailable(RuntimeError):
    """The requested brain cannot be used; the message says what to configure."""


@runtime_checkable
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
