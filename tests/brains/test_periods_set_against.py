"""Two periods set against each other with the measures said for both ("Jan 2020 vs Jan 2019 -
levels and % change"): each period's level, and the change from the earlier to the later, never
one measure per period. Expected figures are computed here with pandas from the source data."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    "question",
    [
        "Brent monthly avg price, Jan 2020 vs Jan 2019 - levels and % change?",
        "Brent monthly avg price, levels and % change, Jan 2020 vs Jan 2019?",
    ],
)
async def test_levels_of_both_and_the_change_between(data: Any, question: str) -> None:
    brent = series_values(data, "MCOILBRENTEU")
    now, then = brent.loc["2020-01"].mean(), brent.loc["2019-01"].mean()
    answer = await ask_offline(question, date(2020, 2, 15))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for figure in (now, then):
        assert f"{figure:.2f}" in text, text
    assert f"{(now / then - 1) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_return_of_each_period_is_no_change_between(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    answer = await ask_offline("Apple 2020 vs 2019 - which year was better?", date(2021, 1, 10))
    assert answer.status == "ok", answer.message
    for year in (2019, 2020):
        base = closes.loc[: f"{year - 1}-12-31"].iloc[-1]
        figure = (closes.loc[: f"{year}-12-31"].iloc[-1] / base - 1) * 100
        assert f"{figure:.2f}%" in answer.summary, answer.summary
