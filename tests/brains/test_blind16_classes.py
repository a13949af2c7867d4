"""Classes a fresh blind set found answered `ok` about something else, each now read:

- 年化 said of another measure (谷歌2008年跌了多少，年化波动率多大) leaves the return the year's
  return, never annualised;
- "For our Q1 client letter": a document's label, not a window;
- "Q4 over Q4", 四季度对四季度: the calendar convention every calendar window follows;
- advice after a clause that tells a move ("MSFT is down a lot in 2022 - should I buy more now?",
  苹果今年跌了不少，现在值得买吗) or with its own dates (推荐三只明年会涨的美股) asks no figure;
  a clause that asks one is still answered.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_factors_dataset, load_sp500_dataset
from support.asking import ask_offline


def _return(ticker: str, start: str, end: str) -> float:
    closes = load_sp500_dataset()[ticker]
    base = closes[closes.index < start].iloc[-1]
    return float((closes[closes.index <= end].iloc[-1] / base - 1) * 100)


async def test_annualised_said_of_the_volatility_leaves_the_return_plain(data: Any) -> None:
    answer = await ask_offline("微软2008年跌了多少，年化波动率多大", date(2009, 1, 10))
    assert answer.status == "ok", answer.message
    fall = _return("MSFT", "2008-01-01", "2008-12-31")
    assert f"{fall:.2f}%" in answer.summary, answer.summary


async def test_a_quarter_naming_a_letter_is_not_a_window(data: Any) -> None:
    closes = load_sp500_dataset()["LLY"]
    base = closes[closes.index < "2010-01-01"].iloc[-1]
    last = closes[closes.index <= "2020-12-31"]
    years = (last.index[-1] - base_day(closes)).days / 365.25
    cagr = ((last.iloc[-1] / base) ** (1 / years) - 1) * 100
    question = (
        "For our Q1 client letter: Eli Lilly's compound annual growth rate from 2010 through 2020?"
    )
    answer = await ask_offline(question, date(2021, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


def base_day(closes: pd.Series) -> pd.Timestamp:
    return closes[closes.index < "2010-01-01"].index[-1]


@pytest.mark.parametrize(
    "question",
    ["美国实际GDP 2008年增长了多少（四季度对四季度）", "US real GDP growth in 2008, Q4 over Q4"],
)
async def test_q4_over_q4_is_the_years_change(data: Any, question: str) -> None:
    bars = data.warehouse.series(["GDPC1"], date(2007, 1, 1), date(2009, 1, 1))
    gdp = bars.set_index("date")["value"]
    gdp.index = pd.to_datetime(gdp.index)
    change = (gdp.loc["2008-10-01"] / gdp.loc["2007-10-01"] - 1) * 100
    answer = await ask_offline(question, date(2009, 10, 1))
    assert answer.status == "ok", answer.message
    assert f"{abs(change):.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "MSFT is down a lot in 2022 - should I buy more now?",
        "苹果今年跌了不少，现在值得买吗",
        "推荐三只明年会涨的美股，标普500成分股里挑",
    ],
)
async def test_advice_after_a_told_move_is_declined(question: str) -> None:
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "out_of_scope", answer.summary


@pytest.mark.parametrize(
    "question",
    ["What was JPM's drawdown this year, and should I buy more?", "苹果今年跌了多少？值得买吗"],
)
async def test_a_figure_asked_beside_advice_is_answered(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert answer.notes, "the advice part is declined in a note"


async def test_the_distance_from_a_high_and_the_day_of_that_high(data: Any) -> None:
    closes = load_sp500_dataset()["UNH"]
    closes = closes[closes.index <= "2022-12-28"]
    question = "联合健康现在离历史最高价还差多少？最高是哪天"
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{(1 - closes.iloc[-1] / closes.max()) * 100:.2f}%" in answer.summary, answer.summary
    assert closes.idxmax().date().isoformat() in answer.summary, answer.summary


async def test_how_many_points_higher_than_the_worst_of_a_ranking(data: Any) -> None:
    prices = load_factors_dataset()[["MTUM", "QUAL", "USMV", "VLUE"]]
    base = prices[prices.index < "2021-01-01"].iloc[-1]
    returns = (prices[prices.index <= "2021-12-31"].iloc[-1] / base - 1) * 100
    question = "因子ETF里不算SIZE，2021年哪只最好？比最差的那只高几个点？"
    answer = await ask_offline(question, date(2022, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{returns.max() - returns.min():.2f}个百分点" in answer.summary, answer.summary


async def test_which_of_two_years_was_better_and_by_how_many_points(data: Any) -> None:
    first = _return("AAPL", "2019-01-01", "2019-12-31")
    second = _return("AAPL", "2020-01-01", "2020-12-31")
    question = "apple 2019 vs 2020 - which year was better and by how many points?"
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    for figure in (first, second, first - second):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


async def test_a_window_to_the_last_close_of_a_year(data: Any) -> None:
    import skfolio.datasets as sets

    closes = sets.load_sp500_index()["SP500"]
    start, end = closes.loc["2009-03-09"], closes.loc[:"2011-12-31"].iloc[-1]
    question = (
        "S&P 500 from the Mar 9 2009 close to the last close of 2011 — how many points did it "
        "add, and what % is that?"
    )
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{end - start:,.2f}" in answer.summary, answer.summary
    assert f"{(end / start - 1) * 100:.2f}%" in answer.summary, answer.summary
