"""A length said right before a return word is the window the return is over: "home depot 5 year
annualized return", "5-yr CAGR", 家得宝5年年化收益率, 3个月涨幅 are the past five years' (three
months') return, as "over the past 5 years" is; before, the length was left for a parameter and
the answer was `ok` over the default past year. "30-day volatility" and 20日波动率 keep their
length as the rolling window. Expected figures come from skfolio's shipped prices, computed here
with pandas."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _closes(ticker: str, years: int = 0, months: int = 0) -> pd.Series:
    """From the last close on or before the day that far back, through TODAY."""
    prices = load_sp500_dataset()[ticker]
    start = pd.Timestamp(TODAY) - pd.DateOffset(years=years, months=months)
    base = prices.loc[:start].index[-1]
    return prices.loc[base : pd.Timestamp(TODAY)]


def _cagr(closes: pd.Series) -> float:
    years = (closes.index[-1] - closes.index[0]).days / 365.25
    return float(((closes.iloc[-1] / closes.iloc[0]) ** (1 / years) - 1) * 100)


@pytest.mark.parametrize(
    "question",
    [
        "home depot 5 year annualized return",
        "home depot 5-yr CAGR",
        "HD 5y annualized return",
        "家得宝5年年化收益率",
        "家得宝5年的年化收益率是多少",
    ],
)
async def test_a_length_before_an_annualised_return_is_its_window(question: str) -> None:
    closes = _closes("HD", years=5)
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    text = answer.summary + " ".join(str(r) for o in answer.outputs for r in getattr(o, "rows", []))
    assert f"{_cagr(closes):.2f}" in text, answer.summary
    assert str(closes.index[0].date()) in text, answer.summary


@pytest.mark.parametrize("question", ["家得宝3个月涨幅", "home depot 3 month return"])
async def test_a_length_before_a_return_is_its_window(question: str) -> None:
    closes = _closes("HD", months=3)
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    change = (closes.iloc[-1] / closes.iloc[0] - 1) * 100
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_length_before_volatility_stays_a_rolling_window() -> None:
    answer = await ask("AAPL 30-day volatility", QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert "30" in answer.summary and "2017" not in answer.summary, answer.summary
