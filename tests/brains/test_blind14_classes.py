"""Classes a fresh blind set found answered `ok` about something else, each now read:

- two series combined value by value are taken at one frequency (Brent − WTI with Brent monthly
  uses the monthly WTI series, not a day's WTI beside a month's Brent);
- "than a year earlier", 比去年同期: the change on a year earlier, with the two levels compared;
- "what's the spread between them" of two priced names: the gap between their returns, in
  percentage points, never a spread of their prices;
- 最低点是哪天？到现在反弹了多少: the rise from that low to the window's end;
- a move told as the occasion of advice ("JPM had a rough drawdown this year - should my client
  buy more here?") asks no figure: the answer declines the advice.

Expected figures are computed here with pandas from the warehouse's series and skfolio's prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_factors_dataset, load_sp500_index
from support.asking import ask, series_values, shown

from datapilot.core.context import QuestionContext


async def test_a_spread_of_a_monthly_and_a_daily_name_is_taken_month_by_month(data: Any) -> None:
    gap = (series_values(data, "MCOILBRENTEU") - series_values(data, "MCOILWTICO")).loc["2011"]
    question = "Brent minus WTI in 2011: what was the widest monthly gap and which month?"
    answer = await ask(question, QuestionContext(today=date(2019, 1, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{gap.max():.2f}" in text, text
    assert gap.idxmax().date().isoformat() in text, text


@pytest.mark.parametrize(
    "question",
    [
        "US unemployment rate in Q2 2009 and how much higher was it than a year earlier?",
        "2009年二季度美国失业率比去年同期高了多少",
    ],
)
async def test_a_change_on_a_year_earlier_shows_both_levels(data: Any, question: str) -> None:
    rate = series_values(data, "UNRATE")
    now, then = rate.loc["2009-04-01"], rate.loc["2008-04-01"]
    answer = await ask(question, QuestionContext(today=date(2009, 12, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    for figure in (now, then, now - then):
        assert f"{figure:.2f}" in answer.summary, (figure, answer.summary)


@pytest.mark.parametrize(
    "question",
    ["MTUM vs USMV year to date - what's the spread between them?", "MTUM和USMV今年以来的价差"],
)
async def test_the_spread_between_two_funds_is_their_return_gap(data: Any, question: str) -> None:
    prices = load_factors_dataset()[["MTUM", "USMV"]]
    base = prices[prices.index < "2022-01-01"].iloc[-1]
    last = prices[prices.index <= "2022-06-30"].iloc[-1]
    returns = (last / base - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    gap = abs(returns["MTUM"] - returns["USMV"])
    assert f"{gap:.2f}" in answer.summary, answer.summary


async def test_a_rebound_from_the_years_low_to_now(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2022"]
    closes = closes[closes.index <= "2022-12-28"]
    low_day, low = closes.idxmin(), closes.min()
    question = "标普今年最低点是哪天？到现在反弹了多少"
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{(closes.iloc[-1] / low - 1) * 100:.2f}" in answer.summary, answer.summary
    assert low_day.date().isoformat() in answer.summary, answer.summary


async def test_a_move_told_before_advice_asks_no_figure() -> None:
    question = "JPM had a rough drawdown this year - should my client buy more here?"
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "out_of_scope", answer.summary
    asked = "What was JPM's drawdown this year, and should I buy more?"
    answer = await ask(asked, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "ok", answer.message  # the figure asked is still answered
