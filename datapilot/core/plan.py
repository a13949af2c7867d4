"""The Plan schema shared by every brain: tasks, then steps of calls that may run in parallel.

An argument that uses an earlier result is written `{"$ref": "result1"}`.
`datapilot.engine.check` validates a plan against an interface registry before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

TaskKind = Literal["data", "processing", "prediction", "visualization"]


class Task(BaseModel):
    """One line of the task plan, as in Data-Copilot."""

    kind: TaskKind = Field(description="Which stage of the workflow this task belongs to.")
    instruction: str = Field(
        description="What the task does, in the user's language, with explicit dates.",
        examples=["Fetch Apple's daily closing prices from 2018-01-23 to 2019-03-13"],
    )


class Call(BaseModel):
    """One interface call; `output` names its result for later `$ref`s."""

    model_config = ConfigDict(extra="forbid")

    interface: str = Field(description="Name of a registered interface.", examples=["get_prices"])
    args: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "Arguments by name. A frame argument must reference an earlier step's output: "
            '{"$ref": "<output name>"} (a list of such objects for list arguments).'
        ),
        examples=[{"ids": ["AAPL"], "start": "2018-01-23", "end": "2019-03-13"}],
    )
    output: str = Field(
        description="A name for the result, unique in the plan; later steps refer to it.",
        examples=["prices"],
    )
    description: str = Field(default="", description="One line saying what this call is for.")


class Step(BaseModel):
    """Calls with no dependency on each other; they run concurrently."""

    calls: list[Call] = Field(
        description="Calls of this step. They may only reference outputs of earlier steps."
    )


class Plan(BaseModel):
    """A workflow: the task plan, then steps of interface calls run in order."""

    tasks: list[Task] = Field(
        default_factory=list, description="The task plan: data, processing, prediction, display."
    )
    steps: list[Step] = Field(
        default_factory=list, description="Steps run one after another; each holds parallel calls."
    )

    def calls(self) -> list[Call]:
        return [call for step in self.steps for call in step.calls]


def is_ref(value: Any) -> bool:
    """True for an argument of the form `{"$ref": "name"}`."""
    return isinstance(value, dict) and set(value) == {"$ref"} and isinstance(value["$ref"], str)


def ref(name: str) -> dict[str, str]:
    """Build a reference to an earlier call's output."""
    return {"$ref": name}


def refs_in(value: Any) -> Iterator[str]:
    """Every output name referenced anywhere inside an argument value."""
    if is_ref(value):
        yield value["$ref"]
    elif isinstance(value, dict):
        for item in value.values():
            yield from refs_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from refs_in(item)


class PlanProblem(BaseModel):
    """One thing wrong with a plan, located by step (1-based), call output and interface."""

    step: int | None = None
    output: str | None = None
    interface: str | None = None
    message: str

    def __str__(self) -> str:
        where = []
        if self.step is not None:
            where.append(f"step {self.step}")
        if self.output is not None:
            call = f"call {self.output!r}"
            if self.interface:
                call += f" ({self.interface})"
            where.append(call)
        return f"{', '.join(where)}: {self.message}" if where else self.message


class PlanError(Exception):
    """A plan cannot run; `problems` says where and why."""

    def __init__(self, problems: list[PlanProblem]) -> None:
        self.problems = problems
        lines = "\n".join(f"- {problem}" for problem in problems)
        count = f"{len(problems)} problem{'s' * (len(problems) != 1)}"
        super().__init__(f"the plan cannot run ({count}):\n{lines}")
