""" "How much" beside a name and a window, with no measure word, asks the name's return: "Exxon -
how much last year? and ytd?" is two returns (each window asked in a sentence of its own), "how
much did Exxon make in 2021", "how much was Exxon up last year". "How much is Apple" (its price),
"how much was Apple on 2021-03-01" (a day's close) and "how much did Apple cost" stay prices.
Expected figures come from skfolio's shipped prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _return(ticker: str, start: str, end: str) -> float:
    """Close to close: the last close before `start` to the last close on or before `end`."""
    prices = load_sp500_dataset()[ticker]
    before = prices.loc[:start].iloc[:-1] if start in prices.index else prices.loc[:start]
    return float((prices.loc[:end].iloc[-1] / before.iloc[-1] - 1) * 100)


async def _ask(question: str) -> Answer:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    return answer


@pytest.mark.parametrize(
    "question",
    [
        "Exxon - how much last year? and ytd?",
        "Exxon: how much in 2021? And this year?",
        "how much did Exxon make last year? and ytd?",
    ],
)
async def test_two_windows_asked_apart_are_two_returns(question: str) -> None:
    last_year = _return("XOM", "2021-01-01", "2021-12-31")
    ytd = _return("XOM", "2022-01-01", "2022-12-28")
    answer = await _ask(question)
    assert f"{last_year:.2f}%" in answer.summary and f"{ytd:.2f}%" in answer.summary, answer.summary
    spanning = _return("XOM", "2021-01-01", "2022-12-28")
    assert f"{spanning:.2f}%" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "how much did Exxon make in 2021",
        "Exxon - how much in 2021?",
        "how much was Exxon up in 2021?",
        "How much would I have made in Exxon in 2021?",
    ],
)
async def test_how_much_of_a_name_over_a_window_is_its_return(question: str) -> None:
    answer = await _ask(question)
    assert answer.intent is not None and "return" in answer.intent.metrics, answer.intent
    want = _return("XOM", "2021-01-01", "2021-12-31")
    assert f"{want:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    ["how much is Apple", "how much was Apple on 2021-03-01", "how much did Apple cost in 2021"],
)
async def test_how_much_a_name_costs_is_its_price(question: str) -> None:
    answer = await _ask(question)
    assert answer.intent is not None and "return" not in answer.intent.metrics, answer.intent
