"""Classes a fresh blind set (blind54) found, each failing before its fix:

- shares said in percent (or in tenths, 三成) each beside its own name make a basket: "60% AAPL
  and 40% MSFT", 三成买宝洁，三成买强生，四成买可口可乐; a benchmark after 跟…比 stays out of it;
- 这五年 (these five years), with no date said, is the past five years; 平均每年涨多少 is the
  annualised return;
- "FY21", "CY19" are those years; "rtn" is a return; a ranking's gap asked in bps is the gap
  × 100, never a return's; "1.5% rf" is the risk-free rate;
- "should i yolo my whole paycheck into AMD" is advice.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline
from support.numeric_expect import buy_and_hold, source_frame


def _basket_return(weights: dict[str, float], start: str, end: str) -> float:
    value = buy_and_hold(source_frame("skfolio_sp500"), weights, start, end)
    return float(value.iloc[-1] / 100 - 1) * 100


@pytest.mark.parametrize(
    ("question", "weights", "year"),
    [
        ("60% AAPL and 40% MSFT, return in 2020?", {"AAPL": 0.6, "MSFT": 0.4}, 2020),
        (
            "我2021年初把钱分成三份：三成买宝洁，三成买强生，四成买可口可乐，之后一直拿着没调整过。"
            "到2021年底一共涨了多少？",
            {"PG": 0.3, "JNJ": 0.3, "KO": 0.4},
            2021,
        ),
    ],
)
async def test_shares_in_percent_beside_their_names_make_a_basket(
    data: Any, question: str, weights: dict[str, float], year: int
) -> None:
    made = _basket_return(weights, f"{year - 1}-12-31", f"{year}-12-31")
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary, answer.summary


async def test_a_benchmark_compared_in_chinese_stays_out_of_the_basket(data: Any) -> None:
    answer = await ask_offline(
        "可口可乐和百事等权买入，中间不再平衡，2020年全年收益率是多少？跟标普500比差多少？",
        date(2022, 1, 20),
    )
    assert "^GSPC 33" not in (answer.message or "") + answer.summary
    assert "标普500 33" not in (answer.message or "") + answer.summary


async def test_these_five_years_and_the_average_yearly_gain(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["JNJ"].loc[:"2022-12-28"]
    start = closes.loc[:"2017-12-28"]
    grown = closes.iloc[-1] / start.iloc[-1]
    days = (closes.index[-1] - start.index[-1]).days
    cagr = (grown ** (365.25 / days) - 1) * 100
    answer = await ask_offline("强生这五年下来，平均每年涨多少？我想心里有个数", date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


async def test_fiscal_shorthand_and_a_gap_in_basis_points(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["JPM", "BAC"]]
    made = (closes.loc[:"2021-12-31"].iloc[-1] / closes.loc[:"2020-12-31"].iloc[-1] - 1) * 100
    gap = abs(made["BAC"] - made["JPM"])
    answer = await ask_offline(
        "for the am note: JPM vs BAC FY21 total rtn, who outperformed + spread in bps pls",
        date(2022, 1, 14),
    )
    assert answer.status == "ok", answer.message
    assert f"{made['JPM']:.2f}%" in answer.summary and f"{made['BAC']:.2f}%" in answer.summary
    assert f"{gap * 100:,.2f} basis points" in answer.summary, answer.summary


async def test_calendar_shorthand_and_rf(data: Any) -> None:
    answer = await ask_offline("MSFT CY19 sharpe, use 1.5% rf", date(2022, 1, 14))
    assert answer.status == "ok", answer.message
    assert "2019" in answer.summary and "1.50%" in answer.summary, answer.summary


async def test_yolo_is_advice(data: Any) -> None:
    answer = await ask_offline(
        "should i yolo my whole paycheck into AMD rn or is it ngmi", date(2022, 6, 1)
    )
    assert answer.status == "out_of_scope", answer.summary


async def test_how_many_bps_wider_than_another_month(data: Any) -> None:
    yields = source_frame("arch_default")
    spread = yields["BAA"] - yields["AAA"]
    wider = (spread.loc["2008-12-01"] - spread.loc["2007-12-01"]) * 100
    answer = await ask_offline(
        "Moody's Baa-Aaa spread Dec '08 - where was it, and how many bps wider than Dec '07?",
        date(2009, 1, 20),
    )
    assert answer.status == "ok", answer.message
    # (a whole number of basis points is said whole: "222 basis points")
    assert f"{wider:.2f}".removesuffix(".00") + " basis points" in answer.summary, answer.summary
