"""Plan validation: every problem is found before anything runs, and named precisely."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from support.toy_interfaces import make_registry

from datapilot.core.plan import Call, Plan, PlanError, Step, ref
from datapilot.engine.check import check_plan, validate_plan


def plan_of(*steps: list[Call]) -> Plan:
    return Plan(steps=[Step(calls=list(calls)) for calls in steps])


def fetch(output: str = "prices", **args) -> Call:
    return Call(interface="fetch", args={"ids": ["AAA"], **args}, output=output)


@pytest.fixture(scope="module")
def registry():
    return make_registry()[0]


def test_a_valid_plan_has_no_problems_and_coerced_args(registry) -> None:
    plan = plan_of(
        [fetch(start="2021-01-04", end="2021-02-01")],
        [Call(interface="scale", args={"frame": ref("prices"), "factor": "3"}, output="scaled")],
        [Call(interface="line", args={"frame": ref("scaled")}, output="chart")],
    )
    check = check_plan(plan, registry)
    assert check.ok and validate_plan(plan, registry) == []
    assert check.args["prices"]["start"] == date(2021, 1, 4)
    assert check.args["scaled"]["factor"] == 3.0
    assert check.args["scaled"]["frame"] == {"$ref": "prices"}  # references stay for the executor


def test_empty_plan_and_empty_step(registry) -> None:
    assert "no calls" in str(validate_plan(Plan(), registry)[0])
    problems = validate_plan(plan_of([fetch()], []), registry)
    assert [p.step for p in problems] == [2] and "no calls" in problems[0].message


def test_unknown_interface_suggests_close_names(registry) -> None:
    problems = validate_plan(plan_of([Call(interface="fetch_prices", output="p")]), registry)
    (problem,) = problems
    assert problem.step == 1 and problem.output == "p" and problem.interface == "fetch_prices"
    assert "unknown interface 'fetch_prices'" in problem.message and "'fetch'" in problem.message


def test_argument_problems_name_the_call(registry) -> None:
    plan = plan_of(
        [
            Call(interface="fetch", args={"start": "soon", "colour": "red"}, output="p"),
            Call(interface="sleepy", args={"seconds": "long"}, output="s"),
        ]
    )
    text = "\n".join(str(p) for p in validate_plan(plan, registry))
    assert "step 1, call 'p' (fetch): missing argument 'ids'" in text
    assert "unknown argument 'colour'" in text
    assert "'start'" in text and "call 's' (sleepy): argument 'seconds'" in text


def test_frame_argument_must_be_a_reference(registry) -> None:
    plan = plan_of([fetch()], [Call(interface="scale", args={"frame": "prices"}, output="s")])
    (problem,) = validate_plan(plan, registry)
    assert problem.output == "s" and '{"$ref"' in problem.message


def test_duplicate_output_names(registry) -> None:
    problems = validate_plan(plan_of([fetch("p")], [fetch("p")]), registry)
    assert (
        len(problems) == 1
        and problems[0].step == 2
        and "already used in step 1" in str(problems[0])
    )


def test_dangling_forward_same_step_and_cyclic_references(registry) -> None:
    dangling = plan_of([fetch()], [Call(interface="scale", args={"frame": ref("px")}, output="s")])
    (problem,) = validate_plan(dangling, registry)
    assert "'px', which no call produces" in problem.message and "'prices'" in problem.message

    forward = plan_of(
        [Call(interface="scale", args={"frame": ref("prices")}, output="s")], [fetch()]
    )
    (problem,) = validate_plan(forward, registry)
    assert problem.step == 1 and "only produced in step 2" in problem.message

    same_step = plan_of(
        [fetch(), Call(interface="scale", args={"frame": ref("prices")}, output="s")]
    )
    (problem,) = validate_plan(same_step, registry)
    assert "same step" in problem.message and "later step" in problem.message

    itself = plan_of([fetch(), Call(interface="scale", args={"frame": ref("s")}, output="s")])
    (problem,) = validate_plan(itself, registry)
    assert "its own output" in problem.message and "cycle" in problem.message

    loop = plan_of(
        [
            Call(interface="scale", args={"frame": ref("b")}, output="a"),
            Call(interface="scale", args={"frame": ref("a")}, output="b"),
        ]
    )
    problems = validate_plan(loop, registry)
    assert {p.output for p in problems} == {"a", "b"}
    assert all("cycle" in p.message for p in problems)


def test_references_inside_lists_are_checked(registry) -> None:
    plan = plan_of(
        [fetch("a")],
        [Call(interface="combine", args={"frames": [ref("a"), ref("zz")]}, output="both")],
    )
    (problem,) = validate_plan(plan, registry)
    assert "'zz'" in problem.message


def test_frame_argument_cannot_point_at_a_chart(registry) -> None:
    plan = plan_of(
        [fetch()],
        [Call(interface="line", args={"frame": ref("prices")}, output="chart")],
        [Call(interface="scale", args={"frame": ref("chart")}, output="s")],
    )
    (problem,) = validate_plan(plan, registry)
    assert problem.output == "s" and "which is a chart, not data" in problem.message


def test_plan_error_lists_every_problem(registry) -> None:
    plan = plan_of([Call(interface="nope", output="a"), Call(interface="fetch", output="b")])
    check = check_plan(plan, registry)
    with pytest.raises(PlanError) as caught:
        check.raise_for_problems()
    assert len(caught.value.problems) == 2
    assert "2 problems" in str(caught.value) and "'nope'" in str(caught.value)


def test_schema_for_models_documents_references() -> None:
    schema = Plan.model_json_schema()
    call = schema["$defs"]["Call"]
    assert '{"$ref": "<output name>"}' in call["properties"]["args"]["description"]
    assert all(
        "description" in prop
        for model in ("Call", "Step", "Task")
        for prop in schema["$defs"][model]["properties"].values()
    )
    # Every `$ref` in the schema is a schema reference: a `{"$ref": "prices"}` example would read
    # as a broken reference to tools that resolve the OpenAPI document.
    text = json.dumps(schema)  # serialisable as is for a model prompt
    assert all(ref.startswith("#/$defs/") for ref in re.findall(r'"\$ref": "([^"]*)"', text))
