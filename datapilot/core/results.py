"""What running a plan produced: a record per call, outputs, and the facts a summary may quote."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from datapilot.core.outputs import Output

CallStatus = Literal["ok", "failed", "skipped", "timeout"]


class Fact(BaseModel):
    """One computed number (or date) with its label and unit; summaries quote only facts."""

    label: str
    value: float | str
    unit: str | None = None
    source: str | None = Field(default=None, description="The call output it came from.")
    subject: str | None = Field(default=None, description="Entity id, column or pair it is about.")
    measure: str | None = Field(
        default=None, description="first, last, change, pct_change, high, low, value, forecast …"
    )
    date: str | None = Field(default=None, description="ISO date (or period) it refers to.")


class CallRecord(BaseModel):
    output: str
    interface: str
    description: str = ""
    status: CallStatus
    error: str | None = None
    elapsed_ms: float = 0.0
    facts: list[Fact] = Field(default_factory=list)


class RunResult(BaseModel):
    """The result of executing a plan. `values` holds the raw results (frames) by output name."""

    calls: list[CallRecord] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)
    values: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)
    sources: list[str] = Field(default_factory=list, description="Data sources the calls read.")
    notes: list[str] = Field(default_factory=list, description="Warnings raised by the calls.")

    @property
    def facts(self) -> list[Fact]:
        return [fact for call in self.calls for fact in call.facts]

    @property
    def failed(self) -> list[CallRecord]:
        return [call for call in self.calls if call.status != "ok"]
