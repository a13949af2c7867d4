"""Typed events of one question's run. Every stream ends with exactly one `done` event."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from datapilot.core.answer import Answer, AnswerStatus
from datapilot.core.context import WidgetDataRequest
from datapilot.core.intent import Intent
from datapilot.core.outputs import Output
from datapilot.core.plan import Call, Plan
from datapilot.core.results import CallRecord


class StatusEvent(BaseModel):
    type: Literal["status"] = "status"
    message: str


class IntentEvent(BaseModel):
    type: Literal["intent"] = "intent"
    intent: Intent


class PlanEvent(BaseModel):
    type: Literal["plan"] = "plan"
    plan: Plan


class StepStarted(BaseModel):
    type: Literal["step_started"] = "step_started"
    step: int
    call: Call


class StepFinished(BaseModel):
    type: Literal["step_finished"] = "step_finished"
    step: int
    record: CallRecord


class OutputEvent(BaseModel):
    type: Literal["output"] = "output"
    output: Output


class TextDelta(BaseModel):
    type: Literal["text_delta"] = "text_delta"
    text: str


class NeedsClientData(BaseModel):
    """The brain needs widget data first: the stream ends here and resumes on the next request."""

    type: Literal["needs_client_data"] = "needs_client_data"
    request: WidgetDataRequest


class ConfirmationEvent(BaseModel):
    """A tool call waits for the user's go-ahead: the turn ends here with the call pending."""

    type: Literal["confirmation"] = "confirmation"
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    message: str = Field(description="What the call will do, for the user to confirm.")
    call_id: str


class Failed(BaseModel):
    """Something failed after the stream began; a `done` event still follows."""

    type: Literal["failed"] = "failed"
    status: AnswerStatus
    message: str


class Done(BaseModel):
    type: Literal["done"] = "done"
    answer: Answer


Event = Annotated[
    StatusEvent
    | IntentEvent
    | PlanEvent
    | StepStarted
    | StepFinished
    | OutputEvent
    | TextDelta
    | NeedsClientData
    | ConfirmationEvent
    | Failed
    | Done,
    Field(discriminator="type"),
]
