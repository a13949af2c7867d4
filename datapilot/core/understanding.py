"""A brain's reading of a question: status, intent, plan, and what it needs first."""

from __future__ import annotations

from pydantic import BaseModel, Field

from datapilot.core.answer import AnswerStatus, Usage
from datapilot.core.context import WidgetDataRequest
from datapilot.core.intent import Intent
from datapilot.core.plan import Plan


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
