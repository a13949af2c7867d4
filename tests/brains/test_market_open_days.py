"""Whether the market was open on a day, and a holiday said without its year: "was the market
open on July 4th", 感恩节那天股市开门吗, "What did Apple close at on Thanksgiving?" — the holiday
is its latest day on or before today; a question without a name asks about the US market (the
S&P 500's exchange). A shut day is said to be shut (never a figure for another day as the
answer); a day with a session is said to be open. Sessions are checked here against the days
skfolio's S&P 500 prices have."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 8, 15)


@pytest.mark.parametrize(
    ("question", "shut", "before"),
    [
        ("was the market open on July 4th", "2022-07-04", "2022-07-01"),
        ("Was the stock market open on Christmas Day?", "2021-12-25", "2021-12-23"),
        ("感恩节那天股市开门吗", "2021-11-25", "2021-11-24"),
        ("圣诞节美股休市吗", "2021-12-25", "2021-12-23"),
    ],
)
async def test_a_shut_day_is_said_to_be_shut(
    data: Any, question: str, shut: str, before: str
) -> None:
    sessions = load_sp500_index().index
    assert shut not in sessions and sessions[sessions < shut][-1].date().isoformat() == before
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "no_data" and not answer.outputs
    assert [e.id for e in answer.intent.entities] == ["^GSPC"]
    assert shut in (answer.message or "") and before in (answer.message or ""), answer.message


@pytest.mark.parametrize(
    "question", ["was the market open on 2022-07-05?", "2022年7月5日股市开门吗"]
)
async def test_a_day_with_a_session_is_said_to_be_open(data: Any, question: str) -> None:
    close = load_sp500_index()["SP500"]["2022-07-05"]
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert any("2022-07-05" in note and ("open" in note or "开市" in note) for note in answer.notes)
    assert f"{close:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["What did Apple close at on Thanksgiving?", "苹果感恩节那天的收盘价"]
)
async def test_a_holiday_without_its_year_is_its_latest_day(data: Any, question: str) -> None:
    prices = load_sp500_dataset()["AAPL"]
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{prices[:'2021-11-24'].iloc[-1]:.2f}" in answer.summary, answer.summary
    assert any("2021-11-25" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    ("question", "month"),
    [
        ("2020年3月美股一共有几个交易日", "2020-03"),
        ("2020年3月美股有多少个交易日", "2020-03"),
        ("How many trading days did Wall Street have in March 2020?", "2020-03"),
        ("How many sessions did the NYSE have in February 2021?", "2021-02"),
    ],
)
async def test_the_markets_sessions_counted_without_a_name(
    data: Any, question: str, month: str
) -> None:
    """美股 / Wall Street / the NYSE name the US market: its sessions are the S&P 500's days."""
    sessions = len(load_sp500_index().loc[month])
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert [e.id for e in answer.intent.entities] == ["^GSPC"]
    assert str(sessions) in answer.summary, answer.summary


async def test_a_universe_of_us_stocks_is_not_the_market(data: Any) -> None:
    """美股里表现最好的五只股票 ranks stocks; 美股 does not make it a question about the index."""
    context = QuestionContext(today=TODAY, brain="offline")
    answer = await ask("美股里今年表现最好的五只股票", context)
    assert answer.intent is not None
    assert "^GSPC" not in [e.id for e in answer.intent.entities]
