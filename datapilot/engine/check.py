"""Plan checking: a plan is validated against an interface registry before anything runs."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from datapilot.core.plan import Call, Plan, PlanError, PlanProblem, refs_in
from datapilot.interfaces.registry import Registry


class PlanCheck(BaseModel):
    """The outcome of `check_plan`: problems, and each call's arguments coerced to their types."""

    problems: list[PlanProblem] = Field(default_factory=list)
    args: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Output name -> coerced arguments ($refs kept)."
    )

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_for_problems(self) -> PlanCheck:
        if self.problems:
            raise PlanError(self.problems)
        return self


def validate_plan(plan: Plan, registry: Registry) -> list[PlanProblem]:
    """Every problem that would stop `plan` from running; empty when it is runnable."""
    return check_plan(plan, registry).problems


def check_plan(plan: Plan, registry: Registry) -> PlanCheck:
    """Validate `plan` against `registry` and coerce its arguments.

    Checks: an empty plan or step, unknown interfaces (with close names suggested), argument
    names and types, duplicate output names, references that dangle, point forward, point into
    the same step or at the call itself (cycles), and frame arguments pointing at charts or tables.
    """
    check = PlanCheck()
    if not plan.calls():
        check.problems.append(
            PlanProblem(message="the plan has no calls; add at least one step with a call")
        )
        return check

    # Where every output is produced, and whether it holds a frame (None = unknown interface).
    produced_at: dict[str, int] = {}
    holds_frame: dict[str, bool | None] = {}
    for number, step in enumerate(plan.steps, start=1):
        for call in step.calls:
            if call.output in produced_at:
                check.problems.append(
                    PlanProblem(
                        step=number,
                        output=call.output,
                        interface=call.interface,
                        message=(
                            f"output name {call.output!r} is already used in step "
                            f"{produced_at[call.output]}; give each call its own output name"
                        ),
                    )
                )
                continue
            produced_at[call.output] = number
            holds_frame[call.output] = (
                registry.get(call.interface).returns == "frame"
                if call.interface in registry
                else None
            )

    for number, step in enumerate(plan.steps, start=1):
        if not step.calls:
            check.problems.append(
                PlanProblem(step=number, message="the step has no calls; remove it or add one")
            )
        same_step = {call.output: call for call in step.calls}
        for call in step.calls:

            def problem(message: str, call: Call = call, number: int = number) -> None:
                check.problems.append(
                    PlanProblem(
                        step=number, output=call.output, interface=call.interface, message=message
                    )
                )

            if not call.output.strip():
                problem("the output name is empty; name the result, e.g. 'prices'")
            for name in dict.fromkeys(refs_in(call.args)):
                message = _reference_problem(name, call, number, produced_at, same_step, plan)
                if message is None and holds_frame.get(name) is False:
                    kind = registry.get(_producer(plan, name)).returns
                    message = (
                        f"refers to {name!r}, which is a {kind}, not data; "
                        "refer to the result it was built from"
                    )
                if message:
                    problem(message)
            if call.interface not in registry:
                problem(_unknown_interface(call.interface, registry))
                continue
            coerced, messages = registry.get(call.interface).validate(call.args)
            for message in messages:
                problem(message)
            check.args[call.output] = coerced
    return check


def _reference_problem(
    name: str,
    call: Call,
    number: int,
    produced_at: dict[str, int],
    same_step: dict[str, Call],
    plan: Plan,
) -> str | None:
    if name == call.output:
        return f"refers to its own output {name!r} (a cycle); refer to an earlier result"
    if name not in produced_at:
        known = ", ".join(repr(n) for n, at in produced_at.items() if at < number)
        hint = f"earlier results are {known}" if known else "no earlier step produces data"
        return f"refers to {name!r}, which no call produces; {hint}"
    if name in same_step:
        other = same_step[name]
        if call.output in set(refs_in(other.args)) or _reaches(other, call.output, same_step):
            return (
                f"refers to {name!r}, which itself depends on {call.output!r} (a cycle); "
                "break the loop"
            )
        return (
            f"refers to {name!r} from the same step; calls in a step run in parallel, "
            "so move this call to a later step"
        )
    if produced_at[name] > number:
        return (
            f"refers to {name!r}, which is only produced in step {produced_at[name]}; "
            "move this call after it"
        )
    return None


def _reaches(start: Call, target: str, same_step: dict[str, Call]) -> bool:
    """True when `start` depends on `target` through calls of the same step."""
    seen: set[str] = set()
    frontier = [start]
    while frontier:
        call = frontier.pop()
        for name in refs_in(call.args):
            if name == target:
                return True
            if name in same_step and name not in seen:
                seen.add(name)
                frontier.append(same_step[name])
    return False


def _producer(plan: Plan, output: str) -> str:
    return next(call.interface for call in plan.calls() if call.output == output)


def _unknown_interface(name: str, registry: Registry) -> str:
    from rapidfuzz import fuzz, process

    close = process.extract(name, registry.names(), scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    hint = (
        f"did you mean {' or '.join(repr(match) for match, *_ in close)}?"
        if close
        else f"no registered interface has a similar name ({len(registry)} are registered)"
    )
    return f"unknown interface {name!r}; {hint}"
