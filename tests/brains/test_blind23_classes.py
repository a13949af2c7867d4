"""Classes a fresh blind set found, each now read:

- a question typed in traditional characters (摩根大通和美國銀行…誰的表現更好) reads as simplified;
- a ranking of returns says the closes it ran between;
- "since its first trading day, August 19, 2004": the day beside it pins the start, and
  "dividends reinvested" asks the adjusted close;
- "the average monthly … and the worst month": the worst month carries no average, so it is
  declined, never answered with the worst month alone;
- 在2008年和2017年: two years, not the span between them (在 is no "between");
- "in millions of shares", （百万股）: the headline restated in that scale (never "10万美元", an
  amount with its number).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, bokeh_series
from support.numeric_expect import source_frame


def _year_return(closes: pd.Series, year: int) -> float:
    base = closes.loc[: f"{year - 1}-12-31"].iloc[-1]
    return float((closes.loc[: f"{year}-12-31"].iloc[-1] / base - 1) * 100)


async def test_traditional_characters_read_as_simplified(data: Any) -> None:
    closes = load_sp500_dataset()
    jpm, bac = (_year_return(closes[t], 2019) for t in ("JPM", "BAC"))
    answer = await ask_offline(
        "摩根大通和美國銀行2019年誰的表現更好？各自回報多少？", date(2020, 1, 8)
    )
    assert answer.status == "ok", answer.message
    for figure in (jpm, bac):
        assert f"{figure:.2f}%" in answer.summary, answer.summary
    assert not answer.notes, answer.notes


async def test_a_ranking_says_the_closes_it_ran_between(data: Any) -> None:
    closes = load_sp500_dataset()
    question = "Rank Exxon, Chevron and Range Resources by their 2022 return, best first."
    answer = await ask_offline(question, date(2023, 1, 3))
    assert answer.status == "ok", answer.message
    last = closes["XOM"].loc[:"2022-12-31"].index[-1]
    assert f"{last:%Y-%m-%d}" in answer.summary, answer.summary


async def test_a_first_trading_day_named_beside_its_date(data: Any) -> None:
    closes = bokeh_series("GOOG")
    expected = (closes.iloc[-1] / closes.loc["2004-08-19"] - 1) * 100
    question = "How much has Google stock returned since its first trading day, August 19, 2004?"
    answer = await ask_offline(question, date(2013, 3, 5))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


async def test_dividends_reinvested_is_the_adjusted_close(data: Any) -> None:
    closes = load_sp500_dataset()["KO"]
    value = 10_000 * closes.loc["2019-12-31"] / closes.loc["2010-01-04"]
    question = (
        "If I put $10,000 into Coca-Cola at the close on January 4, 2010, what was it worth at "
        "the close on December 31, 2019 (dividends reinvested)?"
    )
    answer = await ask_offline(question, date(2020, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{value:,.2f}" in answer.summary, answer.summary


async def test_an_average_beside_the_worst_month_gives_both(data: Any) -> None:
    """It was declined; the mean of the months is now given beside the worst of them."""
    months = source_frame("arch_french")["FF_MKT_RF"].loc["2008-01-01":"2008-12-31"]
    question = (
        "What was the average monthly Fama-French market excess return in 2008, and the worst "
        "month?"
    )
    answer = await ask_offline(question, date(2009, 3, 1))
    assert answer.status == "ok", answer.message
    for shown in (f"{months.mean():.2f}%", f"{months.min():.2f}%", f"{months.idxmin():%Y-%m}"):
        assert shown in answer.summary, (shown, answer.summary)


async def test_two_years_after_zai_are_two_windows(data: Any) -> None:
    closes = load_sp500_index()["SP500"]

    def volatility(year: int) -> float:
        window = closes.loc[f"{year - 1}-12-01" : f"{year}-12-31"]
        moves = window.pct_change().loc[f"{year}-01-01" :]
        return float(moves.std() * 252**0.5 * 100)

    answer = await ask_offline("对比一下标普500在2008年和2017年的年化波动率。", date(2018, 1, 5))
    assert answer.status == "ok", answer.message
    for year in (2008, 2017):
        assert f"{volatility(year):.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What was IBM's average daily trading volume in 2012, in millions of shares?",
            "{m} million",
        ),
        ("IBM在2012年的日均成交量是多少（百万股）？", "即{m}百万股"),
    ],
)
async def test_a_figure_restated_in_the_scale_asked(data: Any, question: str, said: str) -> None:
    mean = bokeh_series("IBM", "volume").loc["2012-01-01":"2012-12-31"].mean()
    answer = await ask_offline(question, date(2013, 1, 10))
    assert answer.status == "ok", answer.message
    assert said.format(m=f"{mean / 1e6:.2f}") in answer.summary, answer.summary
    assert not answer.notes, answer.notes


async def test_an_amount_with_its_number_is_no_scale(data: Any) -> None:
    answer = await ask_offline(
        "三年前拿10万美元买了联合健康(UNH)，到现在值多少钱？", date(2022, 12, 30)
    )
    assert answer.status == "ok", answer.message
    assert "即" not in answer.summary, answer.summary
