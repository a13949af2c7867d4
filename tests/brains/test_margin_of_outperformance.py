"""The margin by which one name beat another: 雪佛龙过去半年跑赢标普多少, "did IBM outperform
Microsoft in 2011? by how much?", "AAPL vs MSFT ytd, whats the gap between them" — both returns
and their difference in percentage points, the summary saying who led by how much (and that the
name asked about trailed, when it did), never the two returns alone or a gap of prices.
Expected figures are computed here with pandas from the warehouse's adjusted closes."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_factors_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


def _return(data: Any, id: str, base: date, end: date) -> float:
    """The return from the last close on or before `base` to the last on or before `end`, in %."""
    bars = data.warehouse.prices([id], date(base.year - 1, 1, 1), end)
    closes = bars.set_index(bars["date"].astype(str))["adj_close"].dropna()
    first = closes[closes.index <= base.isoformat()].iloc[-1]
    return float((closes.iloc[-1] / first - 1) * 100)


@pytest.mark.parametrize(
    ("question", "today", "asked", "other", "base", "trailed"),
    [
        ("雪佛龙过去半年跑赢标普多少", date(2022, 11, 30), "CVX", "^GSPC", date(2022, 5, 30), ""),
        ("礼来今年跑赢默沙东多少个点", date(2022, 12, 28), "LLY", "MRK", date(2021, 12, 31),
         "跑输"),
        ("jpm vs bac in 2021 - who did better and by how many pts?", date(2022, 3, 10), "JPM",
         "BAC", date(2020, 12, 31), "trailed"),
        ("did IBM outperform Microsoft in 2011? by how much?", date(2012, 2, 1), "IBM", "MSFT",
         date(2010, 12, 31), ""),
        ("AAPL vs MSFT ytd, whats the gap between them", date(2022, 12, 28), "AAPL", "MSFT",
         date(2021, 12, 31), ""),
        ("Did Eli Lilly beat Merck this year, and by how many percentage points?",
         date(2022, 12, 28), "LLY", "MRK", date(2021, 12, 31), "trailed"),
        ("今年苹果和微软的收益率差了多少", date(2022, 12, 28), "AAPL", "MSFT", date(2021, 12, 31),
         ""),
        ("Did AAPL lag MSFT this year? by how many points", date(2022, 12, 28), "AAPL", "MSFT",
         date(2021, 12, 31), ""),
        ("what was the gap between Apple's and Microsoft's returns this year?", date(2022, 12, 28),
         "AAPL", "MSFT", date(2021, 12, 31), ""),
    ],
)  # fmt: skip
async def test_both_returns_and_the_margin_between_them(
    data: Any, question: str, today: date, asked: str, other: str, base: date, trailed: str
) -> None:
    end = date(today.year - 1, 12, 31) if "2011" in question or "2021" in question else today
    a, b = _return(data, asked, base, end), _return(data, other, base, end)
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    for value in (a, b, abs(a - b)):
        assert f"{value:.2f}" in answer.summary, answer.summary
    assert "percentage points" in answer.summary or "个百分点" in answer.summary, answer.summary
    assert "USD" not in answer.summary and "美元" not in answer.summary, answer.summary  # no prices
    if trailed:  # the name asked about did worse: its margin is said as a shortfall
        assert a < b and trailed in answer.summary, answer.summary
    else:
        assert "trailed" not in answer.summary and "跑输" not in answer.summary, answer.summary


async def test_the_best_beats_the_worst_of_the_whole_ranking(data: Any) -> None:
    """ "which one held up best, and by how many percentage points did it beat the worst one?" —
    "which one" names no count: the whole ranking stays, so the best's lead on the worst is shown
    (never a gap of 0 from a ranking cut to its best)."""
    prices = load_factors_dataset()
    moves = (prices[:"2022-12-28"].iloc[-1] / prices[:"2021-12-31"].iloc[-1] - 1) * 100
    moves = moves.drop("QUAL")
    question = (
        "factor ETFs this year, leave QUAL out: which one held up best, and by how many percentage "
        "points did it beat the worst one?"
    )
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "ok", answer.message
    for value in (moves.max(), moves.max() - moves.min()):
        assert f"{value:.2f}" in answer.summary, answer.summary


async def test_one_name_left_is_no_ranking_and_no_gap(data: Any) -> None:
    """The other name has no bundled data: the one left is answered alone, never ranked against
    itself ("Of the 1 … outperformed itself by 0.00 percentage points"); a gap asked between the
    two is declined, naming the name without data, rather than answered by one side."""
    if data.warehouse.prices(["TSLA"], date(2021, 1, 1), date(2021, 12, 31)).shape[0]:
        pytest.skip("TSLA is bundled: both names are answered")
    jpm = _return(data, "JPM", date(2020, 12, 31), date(2021, 12, 31))
    context = QuestionContext(today=date(2022, 3, 1), brain="offline")
    alone = await ask("jpm vs tsla 2021 return", context)
    assert f"{jpm:.2f}%" in alone.summary, alone.summary
    assert "Of the 1" not in alone.summary and "0.00 percentage" not in alone.summary
    gap = await ask("jpm vs tsla in 2021 - who did better and by how many points?", context)
    assert gap.status == "no_data", gap.summary
    assert "TSLA" in (gap.message or ""), gap.message
    assert "0.00 percentage" not in gap.summary
