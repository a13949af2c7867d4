"""The offline brain answers the measure that was asked: growth on the right period, CAGR,
annualised volatility, best/worst days, an investment's value, both ends of a ranking, lists of
entities, and an honest no_data for what the bundled data cannot give."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from asking import ask

from datapilot.brains.offline import OfflineBrain
from datapilot.brains.offline.planning.base import library
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput
from datapilot.engine.brain import Understanding

TODAY = date(2022, 12, 28)


def needs(*interfaces: str) -> pytest.MarkDecorator:
    """Skip while the interface library lacks the interfaces the answer is built on."""
    lacking = sorted(set(interfaces) - set(library()))
    return pytest.mark.skipif(bool(lacking), reason=f"no {', '.join(lacking)} in the library")


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def understand(brain: OfflineBrain, question: str, today: date = TODAY) -> Understanding:
    return brain.understand_sync(question, QuestionContext(today=today))


def calls(u: Understanding, interface: str) -> list[dict]:  # type: ignore[type-arg]
    assert u.status == "ok", u.message
    assert u.plan is not None
    return [c.args for c in u.plan.calls() if c.interface == interface]


def used(u: Understanding) -> set[str]:
    assert u.plan is not None, u.message
    return {c.interface for c in u.plan.calls()}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was the quarter-over-quarter growth of US real GDP in 2008?", "qoq"),
        ("US real GDP QoQ growth rate in 2008", "qoq"),
        ("美国实际GDP2008年的季度环比增速", "qoq"),
        ("美国实际GDP2008年的环比增速", "pop"),
        ("Month-over-month change of core CPI in 2010", "mom"),
        ("核心CPI 2010年的月环比", "mom"),
        ("Year-over-year growth of US real GDP in 2008", "yoy"),
        ("美国实际GDP2008年的同比增速", "yoy"),
    ],
)
def test_growth_is_on_the_period_asked(brain: OfflineBrain, question: str, kind: str) -> None:
    u = understand(brain, question, date(2018, 12, 31))
    assert [a["kind"] for a in calls(u, "pct_change")] == [kind]


@pytest.mark.parametrize(
    "question",
    [
        "Apple's annualized return since 2015",
        "CAGR of Microsoft from 2010 to 2020",
        "What was the compound annual growth rate of the S&P 500 over the past 10 years?",
        "苹果近五年年化收益率",
        "微软2010年以来的年复合增长率",
    ],
)
def test_annualised_return_is_a_cagr_not_a_total_return(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert "annualized_return" in used(u)
    assert not {"period_return", "cumulative_returns"} & used(u)
    assert u.intent is not None and u.intent.table


@needs("annualized_volatility")
@pytest.mark.parametrize(
    "question",
    [
        "What is the annualized volatility of Apple in 2021?",
        "苹果2021年的年化波动率",
        "How volatile was Range Resources in 2015?",
    ],
)
def test_annualised_volatility_is_one_number(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert "annualized_volatility" in used(u)
    assert "rolling_volatility" not in used(u)


@pytest.mark.parametrize(
    "question", ["30-day rolling volatility of Apple in 2021", "苹果2021年的20日滚动波动率"]
)
def test_rolling_volatility_is_the_rolling_chart(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert "rolling_volatility" in used(u)
    assert "annualized_volatility" not in used(u)


@needs("annualized_volatility")
def test_ranking_by_volatility_uses_annualised_volatility(brain: OfflineBrain) -> None:
    u = understand(brain, "Which was more volatile in 2022, AMD or Microsoft?")
    assert calls(u, "rank")[0]["by"] == "annualized_volatility_pct"


@needs("extreme_days")
@pytest.mark.parametrize(
    ("question", "which", "n"),
    [
        ("What was Apple's worst day in 2020?", "worst", 1),
        ("微软2020年最大单日跌幅", "worst", 1),
        ("Best 3 days of the S&P 500 in 2020", "best", 3),
        ("the 5 biggest daily gains of Microsoft in 2020", "best", 5),
        ("苹果2020年单日最大涨幅", "best", 1),
        ("Apple's best and worst days in 2020", "both", 5),
    ],
)
def test_best_and_worst_days(brain: OfflineBrain, question: str, which: str, n: int) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "extreme_days")
    assert (args["which"], args["n"]) == (which, n)
    assert "summary_stats" not in used(u)


@needs("investment_growth")
@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("$10,000 invested in Apple since 2015", 10_000.0),
        ("What would $5k invested in Microsoft in 2019 be worth now?", 5_000.0),
        ("2015年以来投资1万元苹果会变成多少", 10_000.0),
        ("如果2018年初投入五千元买微软，现在值多少钱", 5_000.0),
    ],
)
def test_an_investment_grows_from_the_amount(
    brain: OfflineBrain, question: str, amount: float
) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "investment_growth")
    assert args["amount"] == amount
    assert calls(u, "head_rows")  # the final value, as a table
    assert u.intent is not None and u.intent.chart == "line" and u.intent.table


@needs("top_bottom")
@pytest.mark.parametrize(
    "question",
    [
        "Top 3 and bottom 3 of the bundled stocks by return in 2021",
        "best and worst 3 stocks by return in 2021",
        "2021年收益率最好和最差的三只股票",
    ],
)
def test_top_and_bottom_are_both_shown(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "top_bottom")
    assert args["n"] == 3 and args["by"] == "return_pct"


def test_top_alone_stays_a_ranking(brain: OfflineBrain) -> None:
    u = understand(brain, "Top 5 stocks by return in 2021")
    assert calls(u, "rank")[0]["top_k"] == 5
    assert "top_bottom" not in used(u)


@pytest.mark.parametrize(
    "question",
    [
        "P/B of Microsoft",
        "Apple's P/E ratio",
        "Market cap of Apple",
        "苹果的市净率",
        "latest news on Apple",
        "微软最新的新闻",
        "median ROE of the S&P 500 members",
    ],
)
def test_company_figures_and_news_offline_are_no_data(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert u.status == "no_data" and u.plan is None
    assert "provider" in (u.message or "") or "数据源" in (u.message or "")


def test_forecast_of_growth_forecasts_the_growth_rate(brain: OfflineBrain) -> None:
    u = understand(brain, "forecast US real GDP growth for the next 4 quarters", date(2009, 9, 30))
    assert u.plan is not None
    order = [c.interface for c in u.plan.calls()]
    assert order.index("pct_change") < order.index("forecast_arima")
    (forecast,) = calls(u, "forecast_arima")
    assert forecast["frame"]["$ref"] != calls(u, "get_series")[0].get("output")


@pytest.mark.parametrize(
    "question",
    [
        "Apple's closing prices in 2021 in a table",
        "苹果2021年的收盘价，列一张表",
        "苹果2021年的年化收益率用表格列出",
        pytest.param("What was Apple's worst day in 2020 as a table?", marks=needs("extreme_days")),
    ],
)
def test_a_table_asked_for_is_shown(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert calls(u, "show_table")


@needs("annualized_volatility")
def test_every_part_of_a_multi_part_question_is_answered(brain: OfflineBrain) -> None:
    u = understand(brain, "AAPL's return in 2021, and what was the volatility?")
    assert {"period_return", "annualized_volatility"} <= used(u)
    u = understand(brain, "AAPL's return in 2021 and its max drawdown")
    assert {"period_return", "max_drawdown"} <= used(u)


def test_the_members_of_an_index_feed_a_measure_of_each(brain: OfflineBrain) -> None:
    u = understand(brain, "the 2021 returns of the S&P 500 members you have, ranked")
    (args,) = calls(u, "cross_section_returns")
    assert len(args["ids"]) >= 10 and "^GSPC" not in args["ids"]
    assert "FB" not in args["ids"]  # no data in 2021


@pytest.mark.parametrize(
    ("question", "stat", "measure"),
    [
        ("median return of the factor ETFs in 2021", "median", "cross_section_returns"),
        ("因子ETF 2021年收益率的中位数", "median", "cross_section_returns"),
        pytest.param(
            "average volatility of the stocks in 2021",
            "mean",
            "annualized_volatility",
            marks=needs("annualized_volatility"),
        ),
    ],
)
def test_a_statistic_across_a_list(
    brain: OfflineBrain, question: str, stat: str, measure: str
) -> None:
    u = understand(brain, question)
    assert measure in used(u)
    (args,) = calls(u, stat)
    assert args["frame"]["$ref"].startswith("values")  # of each member's measure, not of prices


async def test_max_drawdown_is_on_daily_closes(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset

    answer = await ask(
        "MSFT annual returns and max drawdown in 2022",
        QuestionContext(today=TODAY, brain="offline"),
    )
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    table = next(t for t in tables if "max_drawdown_pct" in t.columns)
    got = table.rows[0][table.columns.index("max_drawdown_pct")]
    prices = load_sp500_dataset()["MSFT"]
    # The window's daily closes, with or without the base (the last close of 2021).
    expected = [
        (w / w.cummax() - 1).min() * 100
        for w in (prices["2022-01-01":"2022-12-31"], prices["2021-12-31":"2022-12-31"])
    ]
    assert any(abs(got - e) < 0.01 for e in expected), (got, expected)
    assert not pd.isna(got) and got < -20
