"""Classes a fresh blind set (blind60) found, each failing before its fix:

- basis points of a move between two periods named first ("Pull TB3MS for 2000Q3 and 2003Q3.
  How many bp did the 3-month bill yield move between those two quarters?"): the change in
  points said in basis points, never a level's;
- a comparison with one side unknown (美孚和雪佛龙谁更猛 before 美孚 was known; "Compare
  Zorblax and Chevron") is declined naming the unknown name, not answered for the other alone;
- "core CPI inflation year over year in June 2008, and in June 2018": "inflation" is the core
  CPI's measure, not the headline CPI, and each June is a part of its own; two quarters' yoy
  set against each other ("Q2 1980 vs Q2 2008") are each quarter's yoy;
- two closes bounding one move ("did it double between the 2019 year-end close and the 2021
  year-end close") are its ends, never two closes read apart;
- 各买一半 weights a basket equally; an opinion on whether the market is manipulated is no data
  question.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import buy_and_hold, source_frame


async def test_basis_points_of_a_move_between_two_named_quarters(data: Any) -> None:
    rate = series_values(data, "TB3MS")
    moved = (rate.loc["2003-07-01"] - rate.loc["2000-07-01"]) * 100
    answer = await ask_offline(
        "Pull TB3MS for 2000Q3 and 2003Q3. How many bp did the 3-month bill yield move between "
        "those two quarters?",
        date(2004, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.0f} basis points" in answer.summary, answer.summary
    level = rate.loc["2000-07-01"] * 100
    assert f"{level:.0f} basis points" not in answer.summary


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("Compare Zorblax and Chevron returns this year", "Zorblax"),
        ("今年以来佐布拉克斯和雪佛龙谁涨得多", "佐布拉克斯"),
    ],
)
async def test_a_comparison_with_an_unknown_side_is_declined(
    data: Any, question: str, unknown: str
) -> None:
    answer = await ask_offline(question, date(2022, 6, 30))
    assert answer.status == "no_data"
    assert unknown in (answer.message or "")


async def test_mobil_is_exxon_mobil_in_a_comparison(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["XOM", "CVX"]].loc[:"2022-06-30"]
    base = closes.loc[:"2021-12-31"].iloc[-1]
    returns = (closes.iloc[-1] / base - 1) * 100
    answer = await ask_offline("今年以来美孚和雪佛龙谁更猛？各自涨了多少", date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    for ticker in ("XOM", "CVX"):
        assert f"{returns[ticker]:.2f}%" in answer.summary, answer.summary


def _yoy(values: Any, day: str, year_before: str) -> float:
    return float((values.loc[day] / values.loc[year_before] - 1) * 100)


async def test_core_cpi_inflation_in_two_junes(data: Any) -> None:
    core = series_values(data, "CPILFESL")
    answer = await ask_offline(
        "June vs June: what was core CPI inflation year over year in June 2008, and in June 2018?",
        date(2018, 8, 1),
    )
    assert answer.status == "ok", answer.message
    assert [e.id for e in answer.intent.entities] == ["CPILFESL"]  # type: ignore[union-attr]
    for day, before in (("2008-06-01", "2007-06-01"), ("2018-06-01", "2017-06-01")):
        assert f"{_yoy(core, day, before):.2f}%" in answer.summary, answer.summary


async def test_two_quarters_yoy_set_against_each_other(data: Any) -> None:
    cpi = series_values(data, "CPIAUCSL")
    answer = await ask_offline(
        "Headline CPI, year-over-year, Q2 1980 vs Q2 2008 (quarterly CPI) - how do the two "
        "inflation rates compare?",
        date(2008, 9, 15),
    )
    assert answer.status == "ok", answer.message
    quarterly = cpi.resample("QS").first()
    for day, before in (("1980-04-01", "1979-04-01"), ("2008-04-01", "2007-04-01")):
        assert f"{_yoy(quarterly, day, before):.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "Did Eli Lilly really double between the 2019 year-end close (Dec 31, 2019) and the 2021 "
        "year-end close (Dec 31, 2021)?",
        "How much did Eli Lilly gain between the 2019 year-end close and the 2021 year-end close?",
    ],
)
async def test_two_closes_bound_one_move(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["LLY"]
    gained = (closes.loc["2021-12-31"] / closes.loc["2019-12-31"] - 1) * 100
    answer = await ask_offline(question, date(2022, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{gained:.2f}%" in answer.summary, answer.summary


async def test_half_each_weights_a_basket_equally(data: Any) -> None:
    closes = source_frame("skfolio_sp500")
    held = buy_and_hold(closes, {"AAPL": 0.5, "MSFT": 0.5}, "2018-12-31", "2019-12-31")
    worth = 20_000 * held.iloc[-1] / 100
    answer = await ask_offline(
        "2018年12月31日收盘拿2万美元，苹果和微软各买一半，中间不调仓，放到2019年12月31日收盘"
        "一共值多少？",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["说实话，美股是不是被华尔街庄家操纵的？你怎么看", "Is the stock market rigged?"]
)
async def test_an_opinion_on_manipulation_is_no_data_question(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "out_of_scope"
