"""The executor: concurrency, a responsive event loop, timeouts, failure isolation and caching."""

from __future__ import annotations

import asyncio
import time

import pytest
from support.toy_interfaces import make_registry, toy_context, toy_prices

from datapilot.core.events import OutputEvent, StepFinished, StepStarted
from datapilot.core.plan import Call, Plan, PlanError, Step, ref
from datapilot.engine.executor import execute


def plan_of(*steps: list[Call]) -> Plan:
    return Plan(steps=[Step(calls=list(calls)) for calls in steps])


def sleepy(output: str, seconds: float = 0.3, name: str | None = None) -> Call:
    return Call(
        interface="sleepy", args={"seconds": seconds, "name": name or output}, output=output
    )


@pytest.mark.perf
async def test_calls_of_a_step_run_concurrently() -> None:
    registry, _ = make_registry()
    plan = plan_of([sleepy("a"), sleepy("b")])
    started = time.perf_counter()
    run = await execute(plan, toy_context(), registry=registry)
    elapsed = time.perf_counter() - started
    assert [c.status for c in run.calls] == ["ok", "ok"]
    # Side by side, the step takes about one call's time, not the sum of its calls' own times
    # (~1/2 of it): a ratio measured in this run, whatever the machine's load.
    one_after_the_other = sum(c.elapsed_ms for c in run.calls) / 1000
    assert 0.28 <= elapsed < 0.8 * one_after_the_other, (
        f"two 0.3 s calls took {elapsed:.2f} s, {one_after_the_other:.2f} s between them"
    )


async def test_steps_run_in_order() -> None:
    registry, _ = make_registry()
    plan = plan_of([sleepy("a", 0.2)], [sleepy("b", 0.2)])
    started = time.perf_counter()
    await execute(plan, toy_context(), registry=registry)
    assert time.perf_counter() - started >= 0.39


async def test_event_loop_stays_responsive() -> None:
    registry, _ = make_registry()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await execute(plan_of([sleepy("a", 0.4)]), toy_context(), registry=registry)
    task.cancel()
    # 0.4 s of 10 ms ticks: a blocked loop would manage one or two.
    assert ticks >= 20


async def test_timeout_is_recorded_and_dependents_skipped() -> None:
    registry, _ = make_registry()
    plan = plan_of(
        [sleepy("slow", 2.0), sleepy("quick", 0.0)],
        [Call(interface="scale", args={"frame": ref("slow")}, output="scaled")],
    )
    started = time.perf_counter()
    run = await execute(plan, toy_context(), registry=registry, call_timeout_s=0.2)
    assert time.perf_counter() - started < 1.0
    status = {c.output: c for c in run.calls}
    assert status["slow"].status == "timeout" and "0.2 s" in status["slow"].error
    assert status["quick"].status == "ok"
    assert status["scaled"].status == "skipped" and "'slow'" in status["scaled"].error


async def test_failures_are_isolated_with_clear_messages() -> None:
    registry, _ = make_registry()
    plan = plan_of(
        [Call(interface="fetch", args={"ids": ["AAA"]}, output="prices")],
        [
            Call(interface="refuse", args={"frame": ref("prices"), "message": "No!"}, output="r"),
            Call(interface="crash", args={"frame": ref("prices")}, output="c"),
            Call(interface="returns_nothing", args={"frame": ref("prices")}, output="n"),
            Call(interface="scale", args={"frame": ref("prices")}, output="ok"),
        ],
        [Call(interface="scale", args={"frame": ref("r")}, output="after_r")],
        [Call(interface="combine", args={"frames": [ref("after_r"), ref("ok")]}, output="both")],
    )
    run = await execute(plan, toy_context(), registry=registry)
    calls = {c.output: c for c in run.calls}
    assert calls["r"].status == "failed" and calls["r"].error == "No!"  # verbatim
    assert calls["c"].status == "failed"
    assert "crash" in calls["c"].error and "ZeroDivisionError" in calls["c"].error
    assert calls["n"].status == "failed" and "returned NoneType" in calls["n"].error
    assert calls["ok"].status == "ok"
    assert (
        calls["after_r"].status == "skipped"
        and "'r', which failed (refuse)" in calls["after_r"].error
    )
    # The reason travels down the chain to the root cause.
    assert calls["both"].status == "skipped" and "'r'" in calls["both"].error
    assert [c.output for c in run.failed] == ["r", "c", "n", "after_r", "both"]


async def test_references_resolve_to_values_and_inputs_are_protected() -> None:
    registry, _ = make_registry()
    plan = plan_of(
        [Call(interface="fetch", args={"ids": ["AAA", "BBB"]}, output="prices")],
        [
            Call(interface="mutate", args={"frame": ref("prices")}, output="m"),
            Call(interface="scale", args={"frame": ref("prices"), "factor": 10}, output="s"),
        ],
    )
    run = await execute(plan, toy_context(), registry=registry)
    expected = toy_prices(["AAA", "BBB"])
    # A mutating sibling neither corrupts the stored result nor what the other call saw.
    assert run.values["prices"].equals(expected)
    assert (run.values["s"] == expected * 10).all().all()
    assert list(run.values["m"].columns) == ["AAA", "BBB", "extra"]


async def test_identical_calls_run_once_per_request() -> None:
    registry, runs = make_registry()
    plan = plan_of(
        [sleepy("a", 0.1, "X"), sleepy("b", 0.1, "X"), sleepy("c", 0.1, "Y")],
        [
            Call(interface="scale", args={"frame": ref("a")}, output="sa"),
            Call(interface="scale", args={"frame": ref("b")}, output="sb"),
        ],
    )
    run = await execute(plan, toy_context(), registry=registry)
    assert runs["sleepy"] == 2 and runs["scale"] == 1
    assert all(c.status == "ok" for c in run.calls)
    assert run.values["sa"].equals(run.values["sb"])
    assert {f.source for f in run.calls[1].facts} == {"b"}
    # A new request computes again.
    await execute(plan, toy_context(), registry=registry)
    assert runs["sleepy"] == 4


async def test_events_outputs_facts_and_sources() -> None:
    registry, _ = make_registry()
    plan = plan_of(
        [Call(interface="fetch", args={"ids": ["AAA"]}, output="prices")],
        [
            Call(interface="table", args={"frame": ref("prices"), "title": "T"}, output="t"),
            Call(interface="line", args={"frame": ref("prices"), "title": "L"}, output="l"),
        ],
    )
    events = []
    run = await execute(plan, toy_context(), registry=registry, on_event=events.append)
    kinds = [type(e) for e in events]
    assert (
        kinds
        == [StepStarted, StepFinished, StepStarted, StepStarted]
        + [StepFinished] * 2
        + [OutputEvent] * 2
    )
    assert [o.kind for o in run.outputs] == ["table", "chart"]  # plan order
    assert [e.output.kind for e in events if isinstance(e, OutputEvent)] == ["table", "chart"]
    assert run.sources == ["toy warehouse", "toyland"]
    last = toy_prices(["AAA"])["AAA"].iloc[-1]
    fact = next(f for f in run.facts if f.measure == "last")
    assert fact.value == pytest.approx(last) and fact.source == "prices"


async def test_invalid_plans_do_not_run() -> None:
    registry, runs = make_registry()
    plan = plan_of([sleepy("a")], [Call(interface="scale", args={"frame": ref("zz")}, output="s")])
    with pytest.raises(PlanError):
        await execute(plan, toy_context(), registry=registry)
    assert runs["sleepy"] == 0
