"""Assemble a Plan call by call: unique output names, shared calls reused, steps by dependency.

Each call lands in the earliest step after every call it refers to, so independent calls run
together (Data-Copilot's parallel steps) without the planner having to think about it.
"""

from __future__ import annotations

import json
from typing import Any

from datapilot.core.plan import Call, Plan, Step, Task, TaskKind, ref, refs_in

CHART_OF = {
    "plot_line": "line",
    "plot_bar": "bar",
    "plot_candlestick": "candlestick",
    "plot_scatter": "scatter",
    "plot_area": "area",
    "plot_pie": "pie",
    "plot_forecast": "line",
}


class PlanBuilder:
    """A plan under construction."""

    def __init__(self) -> None:
        self._calls: list[tuple[int, Call]] = []
        self._depth: dict[str, int] = {}
        self._seen: dict[str, str] = {}
        self._tasks: list[Task] = []

    def add(
        self,
        interface: str,
        args: dict[str, Any],
        *,
        name: str,
        description: str,
        task: TaskKind | None = None,
    ) -> str:
        """Add a call (or reuse an identical one) and return its output name."""
        args = {key: value for key, value in args.items() if value is not None}
        key = interface + json.dumps(args, sort_keys=True, default=str)
        if key in self._seen:
            return self._seen[key]
        output = self._unique(name)
        depth = 1 + max((self._depth.get(r, 0) for r in refs_in(args)), default=0)
        self._calls.append(
            (depth, Call(interface=interface, args=args, output=output, description=description))
        )
        self._depth[output] = depth
        self._seen[key] = output
        if task is not None:
            self.task(task, description)
        return output

    def task(self, kind: TaskKind, instruction: str) -> None:
        if not any(t.kind == kind and t.instruction == instruction for t in self._tasks):
            self._tasks.append(Task(kind=kind, instruction=instruction))

    def has(self, interface: str) -> bool:
        return any(call.interface == interface for _, call in self._calls)

    def output_of(self, interface: str, *, last: bool = False) -> str | None:
        """The output of the first call to `interface` (the latest with `last`: the one of the
        part being planned), if the plan has one."""
        calls = reversed(self._calls) if last else iter(self._calls)
        return next((call.output for _, call in calls if call.interface == interface), None)

    def calls(self) -> list[Call]:
        return [call for _, call in self._calls]

    def charts(self) -> list[str]:
        """Chart types of the visualization calls, in order."""
        return [CHART_OF[c.interface] for c in self.calls() if c.interface in CHART_OF]

    def build(self) -> Plan:
        depth = max((d for d, _ in self._calls), default=0)
        steps = [
            Step(calls=[c for d, c in self._calls if d == level]) for level in range(1, depth + 1)
        ]
        order = {"data": 0, "processing": 1, "prediction": 2, "visualization": 3}
        tasks = sorted(self._tasks, key=lambda t: order[t.kind])
        return Plan(tasks=tasks, steps=[s for s in steps if s.calls])

    def _unique(self, name: str) -> str:
        taken = set(self._depth)
        if name not in taken:
            return name
        number = 2
        while f"{name}_{number}" in taken:
            number += 1
        return f"{name}_{number}"


def frame(name: str) -> dict[str, str]:
    """A frame argument referring to an earlier output."""
    return ref(name)
