"""The template summary: first person, names tasks and interfaces, quotes only computed numbers."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from toy_interfaces import make_registry, toy_context, toy_prices

from datapilot.core.intent import EntityRef, Intent
from datapilot.core.plan import Call, Plan, Step, Task, ref
from datapilot.core.results import CallRecord, RunResult
from datapilot.data.text import is_chinese
from datapilot.engine.brain import Understanding
from datapilot.engine.executor import execute
from datapilot.engine.facts import format_value, grounded, numbers_in
from datapilot.engine.summary import template_summary

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


async def test_english_summary_answers_first_then_names_tasks_and_interfaces() -> None:
    # Changed: the summary used to open with "I split the question into 3 tasks: …" and list
    # every task and then every call; it now opens with the answer (the plotted values with
    # their dates) and says the method once, in one shorter sentence, after it.
    question = "How did AAA and BBB trade in early 2021?"
    plan, run = await run_plan()
    text = template_summary(question, understanding(plan), run)
    assert not is_chinese(text)
    scaled = toy_prices(["AAA", "BBB"]) * 3
    first = text.split(". ")[0]
    last = scaled["AAA"].index[-1].date().isoformat()
    assert first.startswith("Alpha Corp's scaled close was ")
    assert f"{format_value(scaled['AAA'].iloc[-1], 'USD')} on {last}" in first
    assert format_value(scaled["AAA"].max(), "USD") in first
    assert scaled["AAA"].idxmax().date().isoformat() in first
    assert format_value(scaled["BBB"].iloc[-1], "USD") in text
    for name in ["3 tasks", "with fetch", "with scale", "line chart with line"]:
        assert name in text
    assert text.index("with fetch") > text.index(format_value(scaled["BBB"].iloc[-1], "USD"))
    assert text.count("fetch") == 2  # one sentence of method: not the tasks and the calls twice
    assert grounded(text, run.facts, context=question)
    assert len(numbers_in(text)) >= 8


async def test_chinese_question_gets_a_chinese_summary() -> None:
    question = "AAA和BBB在2021年初的走势如何？"
    plan, run = await run_plan()
    text = template_summary(question, understanding(plan), run)
    assert is_chinese(text)
    assert "fetch" in text and "scale" in text and "折线图" in text
    scaled = toy_prices(["AAA", "BBB"]) * 3
    # Units are said in Chinese: 339.91美元, not 339.91 USD.
    assert format_value(scaled["AAA"].iloc[-1]) + "美元" in text and " USD" not in text
    assert text.index("美元") < text.index("我分3个任务")
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
    from datapilot.engine.facts import facts_of

    run = RunResult(
        calls=[
            CallRecord(
                output="ranked", interface="rank_it", status="ok", facts=facts_of("ranked", table)
            )
        ],
        values={"ranked": table},
    )
    text = template_summary("Rank them by return", Understanding(plan=plan), run)
    assert text.startswith("Of the 3, MSFT returned most (34.50%) and XOM least (-5.00%).")
    assert "1. MSFT 34.50%" in text and "2. AAPL 12.25%" in text and "3. XOM -5.00%" in text
    order = text.split("In order:")[1]  # changed: the list after the answer sentence
    assert order.index("MSFT") < order.index("AAPL") < order.index("XOM")


def test_nothing_ran() -> None:
    plan = Plan(steps=[Step(calls=[Call(interface="x", output="a")])])
    run = RunResult(calls=[CallRecord(output="a", interface="x", status="failed", error="broken")])
    text = template_summary("Show x", Understanding(plan=plan), run)
    assert "x failed: broken" in text and "no results" in text


def _record(output: str, interface: str, frame: pd.DataFrame) -> CallRecord:
    from datapilot.engine.facts import facts_of

    return CallRecord(
        output=output, interface=interface, status="ok", facts=facts_of(output, frame)
    )


def test_forecast_and_indicator_sentences_quote_the_last_values() -> None:
    dates = pd.date_range("2009-10-01", periods=8, freq="QS", name="date")
    forecast = pd.DataFrame(
        {
            "forecast": [100.0 + i for i in range(8)],
            "lower": [90.0 + i for i in range(8)],
            "upper": [110.5 + i for i in range(8)],
        },
        index=dates,
    )
    forecast.attrs = {"kind": "forecast", "unit": "USD", "entity": "GDPC1", "model": "ARIMA"}
    macd = pd.DataFrame(
        {"macd": [0.5, -0.25], "signal": [0.1, -0.126]},
        index=pd.DatetimeIndex(["2012-06-28", "2012-06-29"], name="date"),
    )
    macd.attrs = {"kind": "indicator", "unit": "USD", "entity": "IBM", "title": "MACD of IBM"}
    plan = Plan(
        steps=[
            Step(
                calls=[
                    Call(interface="forecaster", output="fc"),
                    Call(interface="macd_of", output="m"),
                ]
            )
        ]
    )
    run = RunResult(
        calls=[_record("fc", "forecaster", forecast), _record("m", "macd_of", macd)],
        values={"fc": forecast, "m": macd},
    )
    text = template_summary("Forecast GDP", Understanding(plan=plan), run)
    # Changed: the forecast sentence now says the horizon ("8 quarters ahead") and comes first.
    assert text.startswith("The forecast (ARIMA) puts GDPC1 at 107.00 USD on 2011-07-01, ")
    assert "8 quarters ahead (interval 97.00 USD to 117.50 USD)" in text
    assert "MACD of IBM on 2012-06-29: macd -0.25 USD, signal -0.13 USD" in text
    assert grounded(text, run.facts, context="Forecast GDP")


async def test_an_operation_on_a_result_is_named_as_such() -> None:
    registry, _ = make_registry()
    plan = Plan(
        steps=[
            Step(calls=[Call(interface="fetch", args={"ids": ["AAA"]}, output="p")]),
            Step(calls=[Call(interface="mutate", args={"frame": ref("p")}, output="m")]),
        ]
    )
    run = await execute(plan, toy_context(), registry=registry)
    text = template_summary("AAA", Understanding(plan=plan), run)
    # Changed: two phrases are joined by "and" without a comma.
    assert "fetched close for AAA with fetch and applied mutate to it" in text


@pytest.mark.parametrize(
    ("title", "chinese"),
    [
        ("KDJ(9, 3, 3) of IBM", "IBM的KDJ(9, 3, 3)"),
        ("30-period rolling volatility (annualised)", "30期滚动波动率（年化）"),
        ("Correlation (pearson)", "相关系数（皮尔逊）"),
        ("Mean of Daily return & Median of Daily return", "日收益率均值、日收益率中位数"),
        ("Apple Inc. OHLCV", "开高低收和成交量"),
        ("Close forecast (ARIMA(1,1,1) with drift)", "收盘价预测（ARIMA(1,1,1)，含漂移项）"),
        ("US real GDP", "实际GDP"),  # an entity's English name: its Chinese name
        ("Something new", "Something new"),  # unknown titles stay as written
    ],
)
def test_interface_titles_in_chinese(title: str, chinese: str) -> None:
    from datapilot.engine.summary.phrases_zh import title_zh as _title_zh

    assert _title_zh(title, {"US real GDP": "实际GDP"}) == chinese


@pytest.mark.parametrize(
    ("unit", "chinese"),
    [
        ("USD", "美元"),
        ("USD per barrel", "美元/桶"),
        ("index points", "点"),
        ("billions of chained 2005 USD (SAAR)", "十亿美元（季调年率，2005年不变价）"),
        ("index 1982-84=100", "（指数，1982-84=100）"),
        ("thousands of persons", "千人"),
    ],
)
def test_units_in_chinese(unit: str, chinese: str) -> None:
    from datapilot.engine.summary.phrases_zh import unit_zh as _unit_zh

    assert _unit_zh(unit) == chinese


def test_understood_line_speaks_the_question_language() -> None:
    from datapilot.engine.summary import understood_line

    english = Intent(rewritten="Plot Apple from 2018-01-23 to 2019-03-13")
    chinese = Intent(rewritten="IBM从2012年3月28日到2012年9月28日的K线图")
    assert understood_line(english) == "Understood: Plot Apple from 2018-01-23 to 2019-03-13"
    assert understood_line(chinese) == "已理解：IBM从2012年3月28日到2012年9月28日的K线图"


def test_series_of_different_units_each_keep_their_own() -> None:
    frame = pd.DataFrame(
        {"CPI": [100.0, 110.0], "M1": [1000.0, 1500.0]},
        index=pd.DatetimeIndex(["2000-01-01", "2001-01-01"], name="date"),
    )
    frame.attrs = {
        "kind": "timeseries",
        "unit": "billions of USD; index 1982-84=100",
        "units": {"CPI": "index 1982-84=100", "M1": "billions of USD"},
        "title": "Series values",
    }
    plan = Plan(steps=[Step(calls=[Call(interface="series_of", output="s")])])
    run = RunResult(calls=[_record("s", "series_of", frame)], values={"s": frame})
    text = template_summary("CPI and M1", Understanding(plan=plan), run)
    # Changed: a level is said from its latest value, which now carries the unit.
    assert "CPI was 110.00 index 1982-84=100 on 2001-01-01" in text
    assert "M1 was 1,500.00 billions of USD on 2001-01-01" in text
    assert "billions of USD; index" not in text
