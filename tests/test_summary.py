"""The template summary: first person, names tasks and interfaces, quotes only computed numbers."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from toy_interfaces import make_registry, toy_context, toy_prices

from datapilot.brains.base import Understanding
from datapilot.core.executor import execute
from datapilot.core.facts import format_value, grounded, numbers_in
from datapilot.core.intent import EntityRef, Intent
from datapilot.core.plan import Call, Plan, Step, Task, ref
from datapilot.core.results import CallRecord, RunResult
from datapilot.core.summary import is_chinese, template_summary

TASKS = [
    Task(kind="data", instruction="Fetch closing prices of AAA and BBB"),
    Task(kind="processing", instruction="Scale them by three"),
    Task(kind="visualization", instruction="Plot the scaled prices"),
]


def understanding(plan: Plan) -> Understanding:
    intent = Intent(
        rewritten="AAA and BBB prices from 2021-01-04 to 2021-02-12",
        entities=[EntityRef(id="AAA", kind="stock", name="Alpha Corp")],
        start=date(2021, 1, 4),
        end=date(2021, 2, 12),
    )
    return Understanding(intent=intent, plan=plan)


async def run_plan(*extra: Call) -> tuple[Plan, RunResult]:
    registry, _ = make_registry()
    plan = Plan(
        tasks=TASKS,
        steps=[
            Step(calls=[Call(interface="fetch", args={"ids": ["AAA", "BBB"]}, output="prices")]),
            Step(
                calls=[
                    Call(
                        interface="scale", args={"frame": ref("prices"), "factor": 3}, output="x3"
                    ),
                    *extra,
                ]
            ),
            Step(
                calls=[
                    Call(interface="line", args={"frame": ref("x3"), "title": "Scaled"}, output="c")
                ]
            ),
        ],
    )
    return plan, await execute(plan, toy_context(), registry=registry)


async def test_english_summary_names_tasks_interfaces_and_key_numbers() -> None:
    question = "How did AAA and BBB trade in early 2021?"
    plan, run = await run_plan()
    text = template_summary(question, understanding(plan), run)
    assert text.startswith("I ") and not is_chinese(text)
    for word in ["3 tasks", "fetch closing prices of AAA and BBB", "plot the scaled prices"]:
        assert word in text
    for name in ["with fetch", "with scale", "line chart “Scaled” with line"]:
        assert name in text
    # The plotted result is what gets quoted: its last value, computed independently.
    scaled = toy_prices(["AAA", "BBB"]) * 3
    assert format_value(scaled["BBB"].iloc[-1], "USD") in text
    assert format_value(scaled["AAA"].max(), "USD") in text
    assert scaled["AAA"].idxmax().date().isoformat() in text
    assert grounded(text, run.facts, context=question)
    assert len(numbers_in(text)) >= 8


async def test_chinese_question_gets_a_chinese_summary() -> None:
    question = "AAA和BBB在2021年初的走势如何？"
    plan, run = await run_plan()
    text = template_summary(question, understanding(plan), run)
    assert text.startswith("我") and is_chinese(text)
    assert "fetch" in text and "scale" in text and "折线图" in text
    scaled = toy_prices(["AAA", "BBB"]) * 3
    assert format_value(scaled["AAA"].iloc[-1], "USD") in text
    assert grounded(text, run.facts, context=question)


@pytest.mark.parametrize("question", ["Plot AAA", "画出AAA"])
async def test_failures_are_reported_honestly(question: str) -> None:
    plan, run = await run_plan(
        Call(
            interface="refuse",
            args={"frame": ref("prices"), "message": "Data too short"},
            output="r",
        )
    )
    text = template_summary(question, understanding(plan), run)
    assert "refuse" in text and "Data too short" in text
    assert ("Not everything worked" in text) if question.isascii() else ("注意" in text)


def test_ranked_cross_section_is_quoted_in_rank_order() -> None:
    table = pd.DataFrame(
        {"return_pct": [34.5, 12.25, -5.0], "rank": [1, 2, 3]},
        index=pd.Index(["MSFT", "AAPL", "XOM"], name="id"),
    )
    table.attrs = {"kind": "cross_section", "unit": "%", "title": "Period return"}
    plan = Plan(steps=[Step(calls=[Call(interface="rank_it", output="ranked")])])
    from datapilot.core.facts import facts_of

    run = RunResult(
        calls=[
            CallRecord(
                output="ranked", interface="rank_it", status="ok", facts=facts_of("ranked", table)
            )
        ],
        values={"ranked": table},
    )
    text = template_summary("Rank them by return", Understanding(plan=plan), run)
    assert "1. MSFT 34.50%" in text and "2. AAPL 12.25%" in text and "3. XOM -5.00%" in text
    assert text.index("MSFT") < text.index("AAPL") < text.index("XOM")


def test_nothing_ran() -> None:
    plan = Plan(steps=[Step(calls=[Call(interface="x", output="a")])])
    run = RunResult(calls=[CallRecord(output="a", interface="x", status="failed", error="broken")])
    text = template_summary("Show x", Understanding(plan=plan), run)
    assert "x failed: broken" in text and "no results" in text
