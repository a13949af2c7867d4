"""Classes a fresh blind set found, each now read:

- a month listed before another that says the year ("March and April 2020", "Jan, Feb or Mar
  2021") is that year's month, wherever the list stands in the sentence;
- two adjoining years set against each other ("compare 2019 and 2020", 2019年和2020年哪年涨得多)
  are two windows, each answered, and the better one named; said plainly ("in 2019 and 2020")
  they stay one span.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline


def _return(closes: Any, start: str, end: str) -> float:
    """From the last close before `start` to the last close on or before `end`."""
    before = closes[closes.index < start].iloc[-1]
    return float((closes.loc[:end].iloc[-1] / before - 1) * 100)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("March and April 2020: how did the S&P 500 do? return please", "2020-03-01", "2020-04-30"),
        ("S&P 500 return in March, April and May 2020", "2020-03-01", "2020-05-31"),
    ],
)
async def test_a_month_listed_before_the_year_is_that_years_month(
    data: Any, question: str, start: str, end: str
) -> None:
    closes = load_sp500_index()["SP500"]
    expected = _return(closes, start, end)
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    assert (str(answer.intent.start), str(answer.intent.end)) == (start, end)
    assert f"{expected:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "better"),
    [
        ("Apple: compare 2019 and 2020 returns", "did better in {top} ({high}) than in {low_year}"),
        ("苹果2019年和2020年哪年涨得多", "{top}年的收益率（{high}）高于{low_year}年"),
    ],
)
async def test_two_adjoining_years_set_against_each_other_are_two_windows(
    data: Any, question: str, better: str
) -> None:
    closes = load_sp500_dataset()["AAPL"]
    returns = {year: _return(closes, f"{year}-01-01", f"{year}-12-31") for year in ("2019", "2020")}
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    for figure in returns.values():
        assert f"{figure:.2f}%" in answer.summary, answer.summary
    top, low_year = sorted(returns, key=lambda y: returns[y], reverse=True)
    said = better.format(top=top, high=f"{returns[top]:.2f}%", low_year=low_year)
    assert said in answer.summary, answer.summary


async def test_two_adjoining_years_said_plainly_stay_one_span(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    expected = _return(closes, "2019-01-01", "2020-12-31")
    answer = await ask_offline("Apple return in 2019 and 2020", date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary
