"""The offline brain answers the measure that was asked: growth on the right period, CAGR,
annualised volatility, best/worst days, an investment's value, both ends of a ranking, lists of
entities, and an honest no_data for what the bundled data cannot give."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from support.asking import ask

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
    prices = load_sp500_dataset()["MSFT"].loc[:"2022-12-31"]
    # Changed: the base (the last close of 2021) is part of the window's closes now that it is
    # carried with the data, so only the base-included value is right.
    window = prices.loc["2021-12-31":]
    assert window.index[0] == pd.Timestamp("2021-12-31")
    expected = (window / window.cummax() - 1).min() * 100
    assert got == pytest.approx(expected, abs=0.01)
    assert not pd.isna(got) and got < -20


# ---- best / worst days, read by grammar ----------------------------------------------------


@needs("extreme_days")
@pytest.mark.parametrize(
    ("question", "which", "n"),
    [
        ("On which day did Microsoft fall the most in 2020?", "worst", 1),
        ("What day was Pfizer's worst in 2021?", "worst", 1),
        ("the three worst trading days for Exxon in 2020", "worst", 3),
        ("Coca-Cola's best and worst sessions in 2019", "both", 5),
        ("the days with the largest drops for JPMorgan in 2020", "worst", 5),
        ("标普500 2020年哪一天跌得最多", "worst", 1),
        ("苹果2020年表现最好的3个交易日", "best", 3),
        ("可口可乐2019年涨幅最大和跌幅最大的一天", "both", 1),
        ("雪佛龙2021年涨得最多的两天", "best", 2),
    ],
)
def test_days_are_read_from_a_superlative_and_a_day_word(
    brain: OfflineBrain, question: str, which: str, n: int
) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "extreme_days")
    assert (args["which"], args["n"]) == (which, n)
    # The measure word inside the phrase ("涨幅", "表现") describes the day, not a period return.
    assert not {"period_return", "cumulative_returns", "summary_stats"} & used(u)


@pytest.mark.parametrize(
    "question",
    [
        "Which of Apple and Microsoft did best over the past 5 days?",
        "苹果和微软近5天谁涨幅最大",
        "Apple's return over the past 10 days",
    ],
)
def test_a_window_of_days_is_not_a_best_day_question(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert "extreme_days" not in used(u)


@needs("extreme_days")
async def test_the_worst_day_is_measured_from_the_base_close(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset

    answer = await ask(
        "On which day did Exxon fall the most in 2020?",
        QuestionContext(today=TODAY, brain="offline"),
    )
    closes = load_sp500_dataset()["XOM"].loc[:"2020-12-31"]
    daily = closes.pct_change().loc["2020-01-01":] * 100  # the first day from 2019-12-31
    day, value = daily.idxmin(), daily.min()
    table = next(o for o in answer.outputs if isinstance(o, TableOutput))
    row = table.rows[0]
    assert str(row[table.columns.index("date")]).startswith(day.strftime("%Y-%m-%d"))
    assert row[table.columns.index("return_pct")] == pytest.approx(value, abs=0.005)
    assert f"{value:.2f}%" in (answer.summary or "")


# ---- money put in, both ends, period tables -----------------------------------------------


@needs("investment_growth")
@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("If I had put $2,500 into Coca-Cola in 2019, what is it worth now?", 2_500.0),
        ("2019年拿5万元买可口可乐，现在值多少", 50_000.0),
    ],
)
def test_an_amount_put_into_a_stock_is_an_investment(
    brain: OfflineBrain, question: str, amount: float
) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "investment_growth")
    assert args["amount"] == amount


def test_a_price_threshold_is_not_an_investment(brain: OfflineBrain) -> None:
    u = understand(brain, "When did Apple close above $150 in 2021?")
    assert "investment_growth" not in used(u)


@needs("top_bottom")
@pytest.mark.parametrize(
    ("question", "n"),
    [
        ("苹果、微软、摩根大通、美国银行、可口可乐、百事和辉瑞2021年收益率前三名和后三名", 3),
        (
            "Of Apple, Microsoft, JPMorgan, Bank of America, Coca-Cola, Pepsi and Pfizer, the top "
            "three and bottom three by return in 2021",
            3,
        ),
        ("强生、辉瑞、默克、礼来和联合健康2020年收益率最好的两只和最差的两只", 2),
    ],
)
def test_top_and_bottom_of_named_entities(brain: OfflineBrain, question: str, n: int) -> None:
    u = understand(brain, question)
    (args,) = calls(u, "top_bottom")
    assert args["n"] == n
    assert u.intent is not None and not any("unknown" in line for line in u.intent.trace)


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("Quarterly returns of Walmart in 2021", "quarterly"),
        ("沃尔玛2019年各季度收益率", "quarterly"),
        ("宝洁2015年到2020年逐年的收益率", "annual"),
    ],
)
def test_period_returns_come_as_a_table(brain: OfflineBrain, question: str, period: str) -> None:
    u = understand(brain, question)
    (returns,) = calls(u, "compute_returns")
    assert returns["period"] == period
    assert any(t["frame"]["$ref"] == f"{period}_returns" for t in calls(u, "show_table"))


async def test_quarterly_returns_include_the_first_quarter(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset

    answer = await ask(
        "Quarterly returns of Walmart in 2021", QuestionContext(today=TODAY, brain="offline")
    )
    closes = load_sp500_dataset()["WMT"].loc["2020-10-01":"2021-12-31"]
    ends = closes.groupby(closes.index.to_period("Q")).last()
    expected = (ends.pct_change().dropna() * 100).round(2).tolist()
    assert len(expected) == 4  # Q1 runs from the 2020 year-end close
    table = next(o for o in answer.outputs if isinstance(o, TableOutput))
    shown = [round(float(v), 2) for row in table.rows for v in row[1:] if isinstance(v, float)]
    assert shown == pytest.approx(expected, abs=0.011)


# ---- words for returns, compounding, adjusted closes ----------------------------------------


@pytest.mark.parametrize(
    "question",
    ["How much has Merck returned since 2019?", "How much did Pepsi go up in 2021?"],
)
def test_plain_verbs_of_return_ask_for_the_return(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert "period_return" in used(u)


def test_hyphenated_and_spaced_phrases_are_the_same(brain: OfflineBrain) -> None:
    for question in (
        "Largest peak-to-trough fall of Apple in 2022",
        "Largest peak to trough fall of Apple in 2022",
    ):
        assert "max_drawdown" in used(understand(brain, question))


def test_average_daily_return_in_chinese(brain: OfflineBrain) -> None:
    u = understand(brain, "微软2021年日均收益率")
    (mean,) = calls(u, "mean")
    assert mean["frame"]["$ref"] == "daily_returns"


async def test_a_factor_return_over_a_year_is_compounded(data) -> None:  # type: ignore[no-untyped-def]
    import arch.data.frenchdata

    answer = await ask(
        "What did the SMB factor return in 2010?",
        QuestionContext(today=date(2018, 12, 31), brain="offline"),
    )
    french = arch.data.frenchdata.load()
    months = pd.to_datetime(french.index.asi8.astype(str), format="%Y%m")
    smb = pd.Series(french["SMB"].to_numpy(), index=months).loc["2010-01-01":"2010-12-31"]
    expected = ((1 + smb / 100).prod() - 1) * 100
    assert answer.status == "ok"
    assert f"{expected:.2f}%" in (answer.summary or "")


async def test_returns_of_a_stock_beside_an_index_use_adjusted_closes(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset, load_sp500_index

    answer = await ask(
        "Compare the cumulative returns of Apple and the S&P 500 in 2005",
        QuestionContext(today=TODAY, brain="offline"),
    )
    # Apple split 2:1 in February 2005: only adjusted closes give its real return.
    apple = load_sp500_dataset()["AAPL"].loc[:"2005-12-31"]
    index = load_sp500_index()["SP500"].loc[:"2005-12-31"]
    summary = answer.summary or ""
    for closes in (apple, index):
        base = closes.loc[:"2004-12-31"].iloc[-1]
        assert f"{(closes.iloc[-1] / base - 1) * 100:.2f}%" in summary, summary


async def test_a_price_summary_measures_the_change_from_the_base(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_dataset

    answer = await ask("Home Depot in 2019", QuestionContext(today=TODAY, brain="offline"))
    closes = load_sp500_dataset()["HD"].loc[:"2019-12-31"]
    base = closes.loc[:"2018-12-31"]
    change = (closes.iloc[-1] / base.iloc[-1] - 1) * 100
    summary = answer.summary or ""
    assert f"{change:.2f}%" in summary and base.index[-1].strftime("%Y-%m-%d") in summary


def test_a_year_before_a_measure_is_its_window_not_an_end(brain: OfflineBrain) -> None:
    question = "Top two and bottom two of Apple, Microsoft, Pfizer, Merck, Chevron by 2021 return"
    u = understand(brain, question)
    assert u.intent is not None
    assert (str(u.intent.start), str(u.intent.end)) == ("2021-01-01", "2021-12-31")
    assert calls(u, "top_bottom")[0]["n"] == 2


@needs("extreme_days")
def test_a_single_day_phrase_with_fillers(brain: OfflineBrain) -> None:
    u = understand(brain, "What was the worst single day for Bank of America in 2008?")
    (args,) = calls(u, "extreme_days")
    assert (args["which"], args["n"]) == ("worst", 1)


@needs("top_bottom")
@pytest.mark.parametrize(
    ("question", "n"),
    [
        ("强生、辉瑞、默克、礼来和联合健康2021年涨幅前二和后二", 2),
        # No count said: never more than half of the names at each end (five or fewer names
        # are ranked whole instead, each one's figure shown).
        (
            "Of Apple, Microsoft, Exxon, Pfizer, Merck and Chevron, which did best and which did "
            "worst in 2021?",
            3,
        ),
    ],
)
def test_both_ends_without_a_classifier_or_a_count(
    brain: OfflineBrain, question: str, n: int
) -> None:
    (args,) = calls(understand(brain, question), "top_bottom")
    assert args["n"] == n


def test_a_time_count_is_not_a_ranking(brain: OfflineBrain) -> None:
    u = understand(brain, "苹果、微软、埃克森美孚和辉瑞2021年前三季度的收益率")
    assert u.intent is not None and str(u.intent.end) == "2021-09-30"
    assert "top_bottom" not in used(u) and "rank" not in used(u)


@needs("investment_growth")
def test_money_put_in_years_ago_grows_until_today(brain: OfflineBrain) -> None:
    u = understand(brain, "Value today of $10,000 put into Pfizer five years ago")
    assert u.intent is not None
    assert (str(u.intent.start), str(u.intent.end)) == ("2017-12-28", "2022-12-28")
    (data,) = calls(u, "get_prices")
    assert data["base"] == "on_or_before"  # bought at that day's close


@needs("investment_growth")
def test_an_amount_held_in_a_name_is_an_investment(brain: OfflineBrain) -> None:
    u = understand(
        brain, "How much money would I have made with $5,000 in Procter & Gamble from 2015 to 2020?"
    )
    (args,) = calls(u, "investment_growth")
    assert args["amount"] == 5_000.0


@needs("investment_growth")
def test_a_date_later_this_year_beside_a_past_one_is_until_today(brain: OfflineBrain) -> None:
    u = understand(
        brain, "What is $20k in Coca-Cola bought at the end of 2018 worth at the end of 2022?"
    )
    assert u.intent is not None and str(u.intent.end) == "2022-12-28"
    assert "investment_growth" in used(u) and not any("forecast" in i for i in used(u))


@needs("investment_growth")
async def test_growth_of_an_amount_in_an_index_is_no_index_points(data) -> None:  # type: ignore[no-untyped-def]
    from skfolio.datasets import load_sp500_index

    answer = await ask(
        "Growth of 10000 dollars invested in the S&P 500 since 2010",
        QuestionContext(today=TODAY, brain="offline"),
    )
    assert "pct_change" not in {c.interface for c in answer.plan.calls()}  # "growth" of money
    index = load_sp500_index()["SP500"].loc[:"2022-12-28"]
    final = 10_000 * index.iloc[-1] / index.loc[:"2009-12-31"].iloc[-1]
    summary = answer.summary or ""
    assert f"{final:,.2f}" in summary and "index points" not in summary


@pytest.mark.parametrize(
    ("question", "interface"),
    [
        ("Apple's average yearly return since 2012", "annualized_return"),
        ("微软2015年以来每年平均回报多少", "annualized_return"),
        pytest.param(
            "Standard deviation of daily returns of Apple in 2021, annualized",
            "annualized_volatility",
            marks=needs("annualized_volatility"),
        ),
    ],
)
def test_everyday_names_of_cagr_and_volatility(
    brain: OfflineBrain, question: str, interface: str
) -> None:
    u = understand(brain, question)
    assert interface in used(u)
    assert not {"summary_stats", "mean"} & used(u)
