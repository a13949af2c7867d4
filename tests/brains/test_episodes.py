"""Named episodes date a window, and the answer says which days it used.

"During the 2008 financial crisis" is the S&P 500's closing high to its closing low, "since COVID"
starts at the S&P 500's last closing high before the crash, "since the Fed started hiking in
2022" at the FOMC's first rise; each answer's note names the days. An episode whose edges are a
matter of opinion ("the dot-com bubble") is declared unread, never given a made-up window.
Figures and the highs and lows are computed here with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


def _index() -> pd.Series:
    return load_sp500_index()["SP500"]


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


def _said(answer: Answer) -> str:
    return " ".join([answer.summary, *answer.notes])


def test_the_crisis_and_crash_days_are_the_highs_and_lows_of_the_index() -> None:
    """The days the episodes use are where the bundled S&P 500 peaked and bottomed."""
    index = _index()
    assert index["2007"].idxmax() == pd.Timestamp("2007-10-09")
    assert index["2008":"2009"].idxmin() == pd.Timestamp("2009-03-09")
    assert index[:"2020-02-29"]["2019":].idxmax() == pd.Timestamp("2020-02-19")
    assert index["2020"].idxmin() == pd.Timestamp("2020-03-23")


@pytest.mark.parametrize(
    "question",
    [
        "S&P 500 max drawdown during the 2008 financial crisis",
        "标普500在2008年金融危机期间的最大回撤",
    ],
)
async def test_the_2008_financial_crisis_is_the_index_from_its_high_to_its_low(
    data: Any, question: str
) -> None:
    index = _index()
    window = index["2007-10-09":"2009-03-09"]
    drawdown = (window / window.cummax() - 1).min() * 100
    answer = await _ask(question)
    assert answer.status == "ok"
    assert (answer.intent.start, answer.intent.end) == (date(2007, 10, 9), date(2009, 3, 9))
    assert f"{drawdown:.2f}%" in answer.summary
    assert any("2007-10-09" in n and "2009-03-09" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(
    ("question", "ticker", "start"),
    [
        ("how has coca-cola done since covid", "KO", "2020-02-19"),
        ("可口可乐新冠疫情以来的收益率", "KO", "2020-02-19"),
        ("Walmart return since the Fed started hiking in 2022", "WMT", "2022-03-16"),
        ("沃尔玛自2022年美联储开始加息以来的收益率", "WMT", "2022-03-16"),
    ],
)
async def test_since_an_episode_measures_from_its_first_day_and_says_so(
    data: Any, question: str, ticker: str, start: str
) -> None:
    prices = load_sp500_dataset()[ticker]
    # From the close of the episode's first day, exactly as "since <that day>" is measured.
    base = prices[prices.index <= start].iloc[-1]
    growth = (prices.iloc[-1] / base - 1) * 100
    answer = await _ask(question)
    assert answer.status == "ok" and [e.id for e in answer.intent.entities] == [ticker]
    assert answer.intent.start == date.fromisoformat(start)
    assert f"{growth:.2f}%" in answer.summary
    assert any(start in note for note in answer.notes), answer.notes


async def test_an_episode_without_dates_of_record_is_declared_not_guessed(data: Any) -> None:
    answer = await _ask("Walmart during the dot-com bubble")
    assert answer.status == "ok"
    assert "dot-com" in " ".join(answer.notes)
    assert not any("is dated" in note for note in answer.notes), answer.notes
