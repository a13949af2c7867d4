"""Classes a fresh blind set found (each was an `ok` about something else), now read:

- a figure said in words where it compares or multiplies ("closed above thirty", "two times
  daily leverage") is the number it names, never a word left over;
- a leverage no reader takes is never ignored: the answer is `no_data`;
- "which one has done best, and what are all three returns": the best of a ranking kept whole;
- "the Brent premium over WTI": a spread, its widest month with its date;
- "the low-vol ETF USMV": a name, not a volatility.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.vix
import pytest
from skfolio.datasets import load_factors_dataset, load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    ("question", "level"),
    [
        ("how many days did the vix close above thirty in 2018", 30),
        ("How many days did the VIX close above twenty-five in 2018?", 25),
    ],
)
async def test_a_level_in_words(data: Any, question: str, level: int) -> None:
    closes = arch.data.vix.load()["vix"].loc["2018"].dropna()  # the source writes holidays empty
    expected = int((closes > level).sum())
    answer = await ask_offline(question, date(2019, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"above {level} on {expected} of {len(closes)}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # every word read


async def test_a_leverage_in_words(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2020-12-31":"2021-12-31"]
    growth = (1 + 2 * closes.pct_change().dropna()).prod()
    question = (
        "If you held the S&P 500 with two times daily leverage through 2021 (ignore fees and "
        "financing), what would the return have been?"
    )
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{(growth - 1) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_leverage_nothing_reads_is_not_ignored(data: Any) -> None:
    question = "What would Apple's 2021 return have been with leverage, roughly?"
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "no_data", answer.summary


async def test_which_one_did_best_keeps_the_ranking_whole(data: Any) -> None:
    closes = load_sp500_dataset()
    returns = {
        t: (closes[t].loc["2022-12-28"] / closes[t].loc["2021-12-31"] - 1) * 100
        for t in ("XOM", "CVX", "RRC")
    }
    question = (
        "Of Exxon, Chevron and Range Resources, which one has done best so far this year, and "
        "what are all three returns?"
    )
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    for figure in returns.values():
        assert f"{figure:.2f}%" in answer.summary, answer.summary


async def test_a_premium_over_is_a_spread(data: Any) -> None:
    brent, wti = series_values(data, "MCOILBRENTEU"), series_values(data, "MCOILWTICO")
    gap = (brent - wti).loc["2011"].dropna()
    question = (
        "In 2011, in which month was the monthly Brent premium over WTI the widest, and by how "
        "many dollars?"
    )
    answer = await ask_offline(question, date(2012, 2, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{gap.max():.2f}" in text and f"{gap.idxmax():%Y-%m}" in text, text
    assert not answer.notes, answer.notes


async def test_a_low_vol_etf_is_a_name(data: Any) -> None:
    usmv = load_factors_dataset()["USMV"]
    fall = (usmv.loc["2020-03-23"] / usmv.loc["2020-02-19"] - 1) * 100
    question = (
        "During the COVID crash, how much did the low-vol ETF USMV fall compared with the S&P 500?"
    )
    answer = await ask_offline(question, date(2020, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{fall:.2f}%" in answer.summary, answer.summary
    assert "volatility" not in answer.summary, answer.summary
