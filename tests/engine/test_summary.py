"""The template summary: first person, names tasks and interfaces, quotes only computed numbers."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from support.toy_interfaces import make_registry, toy_context, toy_prices

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
    # Changed: the method named each interface ("with fetch", "with line"); it now says what was
    # done in words, and the plan view names the interfaces.
    for done in ["3 tasks", "fetched close for AAA", "computed scaled close", "a line chart"]:
        assert done in text
    assert "with fetch" not in text and "with scale" not in text and "with line" not in text
    assert text.index("fetched") > text.index(format_value(scaled["BBB"].iloc[-1], "USD"))
    assert text.count("fetch") == 1  # one sentence of method: not the tasks and the calls twice
    assert grounded(text, run.facts, context=question)
    assert len(numbers_in(text)) >= 8


async def test_chinese_question_gets_a_chinese_summary() -> None:
    question = "AAA和BBB在2021年初的走势如何？"
    plan, run = await run_plan()
    text = template_summary(question, understanding(plan), run)
    assert is_chinese(text)
    # Changed: "用 fetch 获取了…": the interfaces are named in the plan view, not the summary.
    assert "获取了" in text and "折线图" in text
    assert "fetch" not in text and "scale" not in text and "用 " not in text
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
    # Changed: two phrases are joined by "and" without a comma; the operation is said in words
    # (an interface the summary has no words for "reworked the result"), not by its name.
    assert "fetched close for AAA and reworked the result" in text


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
    from datapilot.data.phrases_zh import title_zh as _title_zh

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
    from datapilot.data.phrases_zh import unit_zh as _unit_zh

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


# --- the first sentence answers the question --------------------------------------------------
#
# Expected figures are computed here with pandas from the source datasets (skfolio's S&P 500
# prices and index), or from toy frames, never with the project's functions.


def _result_run(frame: pd.DataFrame, interface: str = "measure") -> tuple[Plan, RunResult]:
    """A plan of one call whose result is shown in a table, and its run."""
    from datapilot.core.outputs import TableOutput

    plan = Plan(
        steps=[
            Step(calls=[Call(interface=interface, output="result")]),
            Step(calls=[Call(interface="show", args={"frame": ref("result")}, output="t")]),
        ]
    )
    table = TableOutput(title="t", columns=["id"], rows=[])
    run = RunResult(
        calls=[
            _record("result", interface, frame),
            CallRecord(output="t", interface="show", status="ok"),
        ],
        values={"result": frame, "t": table},
    )
    return plan, run


def _intent(start: date, end: date, *ids: str) -> Intent:
    return Intent(
        rewritten="q",
        entities=[EntityRef(id=i, kind="stock", name=i) for i in ids],
        start=start,
        end=end,
    )


def _pct(value: float) -> str:
    return f"{value:.2f}%"


@pytest.fixture(scope="module")
def sp500() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()


def _close_on(prices: pd.Series, day: str) -> float:
    return float(prices.loc[:day].iloc[-1])


@pytest.mark.parametrize(
    "question", ["What was Apple's return in 2021?", "苹果2021年的收益率是多少？"]
)
async def test_a_period_return_is_answered_first_with_its_base(data, sp500, question) -> None:  # type: ignore[no-untyped-def]
    import re

    from support.asking import ask

    from datapilot.core.context import QuestionContext

    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    aapl = sp500["AAPL"]
    end = _close_on(aapl, "2021-12-31")
    if is_chinese(question):
        found = re.match(
            r"苹果2021年的收益率为(?P<r>-?[\d.]+)%：复权收盘价从(?P<d>[\d-]{10})的(?P<b>[\d,.]+)"
            r"升至2021-12-31的(?P<e>[\d,.]+)。",
            answer.summary,
        )
    else:
        found = re.match(
            r"Apple Inc\. returned (?P<r>-?[\d.]+)% in 2021: its adjusted close went from "
            r"(?P<b>[\d,.]+) on (?P<d>[\d-]{10}) to (?P<e>[\d,.]+) on 2021-12-31\. ",
            answer.summary,
        )
    assert found, answer.summary
    # The base is the close the answer says it started from: the last close of 2020 (the
    # calendar-year convention) or, before that convention, the first close of 2021.
    assert found["d"] in {"2020-12-31", "2021-01-04"}
    base = float(aapl.loc[found["d"]])
    assert found["b"] == f"{base:.2f}" and found["e"] == f"{end:.2f}"
    assert found["r"] == f"{(end / base - 1) * 100:.2f}"
    # The method comes after, in one sentence naming the tasks and what each did (changed: it
    # named the interfaces, such as period_return; the plan view does).
    method = "我分" if is_chinese(question) else "In 5 tasks, I fetched"
    assert answer.summary.count(method) == 1 and "period_return" not in answer.summary
    assert "split the question" not in answer.summary


async def test_a_ranking_names_the_best_and_the_worst_first(data, sp500) -> None:  # type: ignore[no-untyped-def]
    from support.asking import ask

    from datapilot.core.context import QuestionContext

    question = "Rank Apple, Microsoft, Exxon, Coca-Cola and Walmart by their return in 2021"
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    ids = ["AAPL", "MSFT", "XOM", "KO", "WMT"]
    window = sp500[ids]
    returns = (window.loc[:"2021-12-31"].iloc[-1] / window.loc[:"2020-12-31"].iloc[-1] - 1) * 100
    best, worst = returns.idxmax(), returns.idxmin()
    first = answer.summary.split(". ")[0] + "."
    assert first == (
        f"Of the 5, {best} returned most in 2021 ({_pct(returns[best])}) "
        f"and {worst} least ({_pct(returns[worst])})."
    )


async def test_a_maximum_drawdown_says_its_peak_and_trough(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_index
    from support.asking import ask

    from datapilot.core.context import QuestionContext

    question = "Maximum drawdown of the S&P 500 in 2020"
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    index = load_sp500_index()["SP500"].loc["2020-01-01":"2020-12-31"]
    drawdown = index / index.cummax() - 1
    trough = drawdown.idxmin()
    peak = index.loc[:trough].idxmax()
    assert answer.summary.startswith(
        f"S&P 500's maximum drawdown in 2020 was {_pct(drawdown.min() * 100)}, "
        f"from its peak {index[peak]:,.2f} on {peak.date()} to the trough {index[trough]:,.2f} "
        f"on {trough.date()}"
    )


def test_the_moved_window_note_comes_first_and_missing_data_right_after_the_answer() -> None:
    frame = pd.DataFrame(
        {
            "start_date": [date(2019, 12, 27)],
            "start_value": [70.1234],
            "end_date": [date(2022, 12, 28)],
            "end_value": [126.5],
            "return_pct": [(126.5 / 70.1234 - 1) * 100],
        },
        index=pd.Index(["AAPL"], name="id"),
    )
    frame.attrs = {"kind": "cross_section", "unit": "%", "title": "Period return"}
    plan, run = _result_run(frame, "period_return")
    moved = (
        "The bundled data ends on 2022-12-28, so 'the past 3 years' is 2019-12-28 to 2022-12-28."
    )
    missing = (
        "I have no bundled data for Amazon (AMZN) (fetch it with `datapilot data fetch AMZN`), "
        "so the answer covers Apple Inc. only."
    )
    understanding = Understanding(
        intent=_intent(date(2019, 12, 28), date(2022, 12, 28), "AAPL"),
        plan=plan,
        notes=["AAPL's data ends on 2022-12-28, so its answer covers it only.", missing, moved],
    )
    text = template_summary("Apple and Amazon over the past 3 years", understanding, run)
    answer = (
        f"AAPL returned {_pct((126.5 / 70.1234 - 1) * 100)} from 2019-12-28 to 2022-12-28: "
        "its price went from 70.12 on 2019-12-27 to 126.50 on 2022-12-28."
    )
    assert text.startswith(f"{moved} {answer} {missing} ")
    assert "covers it only" not in text  # notes on a data edge stay in the Answer's notes


def _toy_returns() -> pd.Series:
    return toy_prices(["AAA"])["AAA"].pct_change().dropna() * 100


@pytest.mark.parametrize("zh", [False, True])
def test_best_and_worst_days_say_each_date_and_return(zh: bool) -> None:
    returns = _toy_returns()
    worst = returns.nsmallest(2)
    frame = pd.DataFrame(
        {
            "id": ["AAA", "AAA"],
            "date": [d.date() for d in worst.index],
            "return_pct": worst.to_numpy(),
            "rank": [1, 2],
        }
    )
    frame.attrs = {"kind": "cross_section", "unit": "%", "title": "Worst days", "which": "worst"}
    plan, run = _result_run(frame, "extreme_days")
    intent = _intent(date(2021, 1, 1), date(2021, 2, 12), "AAA")
    question = "AAA最差的两天" if zh else "AAA's two worst days"
    text = template_summary(question, Understanding(intent=intent, plan=plan), run)
    days = [(d.date().isoformat(), _pct(v)) for d, v in worst.items()]
    if zh:
        listed = "、".join(f"{d}（{v}）" for d, v in days)
        assert text.startswith(f"AAA 2021-01-01至2021-02-12表现最差的2个交易日：{listed}。")
    else:
        listed = " and ".join(f"{d} ({v})" for d, v in days)
        assert text.startswith(f"AAA's 2 worst days from 2021-01-01 to 2021-02-12 were {listed}.")
    assert grounded(text, run.facts)


@pytest.mark.parametrize("zh", [False, True])
def test_investment_growth_says_the_final_value(zh: bool) -> None:
    prices = toy_prices(["AAA"])["AAA"]
    value = (prices / prices.iloc[0] * 10_000).to_frame("AAA")
    value.attrs = {"kind": "timeseries", "unit": "USD", "title": "Value of 10,000", "amount": 1e4}
    plan, run = _result_run(value, "investment_growth")
    question = "投资AAA一万美元" if zh else "10,000 invested in AAA"
    text = template_summary(question, Understanding(plan=plan), run)
    final = f"{value['AAA'].iloc[-1]:,.2f}"
    start, end = prices.index[0].date(), prices.index[-1].date()
    gain = _pct((prices.iloc[-1] / prices.iloc[0] - 1) * 100)
    made = f"{value['AAA'].iloc[-1] - 10_000:,.2f}"  # the money made, beside the value
    if zh:
        assert text.startswith(
            f"{start}投入AAA的10,000.00美元，到{end}价值{final}美元（{gain}），盈利{made}美元。"
        )
    else:
        assert text.startswith(
            f"10,000.00 USD invested in AAA on {start} would have been worth {final} USD "
            f"on {end} ({gain}), a gain of {made} USD."
        )


def test_a_sharpe_ratio_says_the_risk_free_rate_used() -> None:
    returns = toy_prices(["AAA", "BBB"]).pct_change().dropna()
    sharpe = (returns.mean() - 0.02 / 252) / returns.std() * 252**0.5
    frame = sharpe.to_frame("sharpe")
    frame.index.name = "id"
    frame.attrs = {"kind": "cross_section", "unit": "", "title": "Sharpe ratio", "risk_free": 2.0}
    plan, run = _result_run(frame, "sharpe_ratio")
    intent = _intent(date(2021, 1, 1), date(2021, 12, 31), "AAA", "BBB")
    text = template_summary("Sharpe of AAA and BBB", Understanding(intent=intent, plan=plan), run)
    assert text.startswith(
        f"AAA's Sharpe ratio in 2021 was {sharpe['AAA']:.2f} and BBB's {sharpe['BBB']:.2f}, "
        "with a risk-free rate of 2.00%."
    )
    assert grounded(text, run.facts)


@pytest.mark.parametrize("zh", [False, True])
def test_annualised_volatility_and_cagr_first_sentences(zh: bool) -> None:
    returns = _toy_returns()
    vol = returns.std() * 252**0.5
    table = pd.DataFrame(
        {"annualized_volatility_pct": [vol], "observations": [len(returns)]},
        index=pd.Index(["AAA"], name="id"),
    )
    table.attrs = {"kind": "cross_section", "unit": "%", "title": "Annualised volatility"}
    plan, run = _result_run(table, "annualized_volatility")
    intent = _intent(date(2021, 1, 1), date(2021, 3, 31), "AAA")
    question = "AAA一季度的年化波动率" if zh else "AAA's annualised volatility in Q1 2021"
    text = template_summary(question, Understanding(intent=intent, plan=plan), run)
    if zh:
        expected = f"AAA 2021年第一季度的年化波动率为{_pct(vol)}（基于{len(returns)}个收益率）。"
    else:
        expected = (
            f"AAA's annualised volatility in Q1 2021 was {_pct(vol)} (from {len(returns)} returns)."
        )
    assert text.startswith(expected)

    prices = toy_prices(["AAA"])["AAA"]
    years = (prices.index[-1] - prices.index[0]).days / 365.25
    cagr = ((prices.iloc[-1] / prices.iloc[0]) ** (1 / years) - 1) * 100
    table = pd.DataFrame({"annualized_return_pct": [cagr]}, index=pd.Index(["AAA"], name="id"))
    table.attrs = {"kind": "cross_section", "unit": "%", "title": "Annualised return"}
    plan, run = _result_run(table, "annualized_return")
    text = template_summary(question, Understanding(intent=intent, plan=plan), run)
    if zh:
        assert text.startswith(f"2021年第一季度的年化收益率（按年复利）：AAA为{_pct(cagr)}。")
    else:
        assert text.startswith(f"AAA returned {_pct(cagr)} a year, compounded, in Q1 2021.")


def test_a_candlestick_names_the_closing_and_intraday_extremes_apart() -> None:
    close = toy_prices(["AAA"])["AAA"]
    ohlcv = pd.DataFrame(
        {"open": close - 1, "high": close + 2, "low": close - 3, "close": close, "volume": 1e6}
    )
    ohlcv.attrs = {"kind": "ohlcv", "unit": "USD", "title": "AAA OHLCV", "entity": "AAA"}
    plan, run = _result_run(ohlcv, "get_ohlcv")
    text = template_summary("AAA K-line", Understanding(plan=plan), run)
    first = text.split(". ")[0]
    assert first.startswith(f"AAA closed at {close.iloc[-1]:.2f} USD on {close.index[-1].date()}")
    assert f"its highest close was {close.max():.2f} USD on {close.idxmax().date()}" in first
    assert f"the intraday high was {close.max() + 2:.2f} USD" in first
    assert f"the intraday low {close.min() - 3:.2f} USD on {close.idxmin().date()}" in first
    assert grounded(text, run.facts)
