"""The Plan schema shared by every brain: tasks, then steps of calls that may run in parallel.

An argument that uses an earlier result is written `{"$ref": "result1"}`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

TaskKind = Literal["data", "processing", "prediction", "visualization"]


class Task(BaseModel):
    """One line of the task plan, as in Data-Copilot."""

    kind: TaskKind
    instruction: str


class Call(BaseModel):
    """One interface call; `output` names its result for later `$ref`s."""

    model_config = ConfigDict(extra="forbid")

    interface: str
    args: dict[str, Any] = Field(default_factory=dict)
    output: str
    description: str = ""


class Step(BaseModel):
    """Calls with no dependency on each other; they run concurrently."""

    calls: list[Call]


class Plan(BaseModel):
    tasks: list[Task] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)

    def calls(self) -> list[Call]:
        return [call for step in self.steps for call in step.calls]


def is_ref(value: Any) -> bool:
    """True for an argument of the form `{"$ref": "name"}`."""
    return isinstance(value, dict) and set(value) == {"$ref"} and isinstance(value["$ref"], str)


def ref(name: str) -> dict[str, str]:
    """Build a reference to an earlier call's output."""
    return {"$ref": name}
