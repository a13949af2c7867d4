"""Classes a fresh blind set found, now read:

- the eves and Black Friday are days, said with their year ("Christmas Eve 2018", 2018年平安夜),
  not a holiday without its year beside a whole year;
- a name written right after a holiday (2018年平安夜AAPL) is still read as a name.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, shown


@pytest.mark.parametrize(
    ("question", "ticker", "day"),
    [
        ("Where did Apple close on Christmas Eve 2018?", "AAPL", "2018-12-24"),
        ("2018年平安夜AAPL收盘价是多少", "AAPL", "2018-12-24"),
        ("What did JPMorgan close at on New Year's Eve 2019?", "JPM", "2019-12-31"),
        ("What did Apple close at on Black Friday 2019?", "AAPL", "2019-11-29"),
        ("2019年黑色星期五苹果收盘价", "AAPL", "2019-11-29"),
    ],
)
async def test_a_named_day_with_its_year_is_that_day(
    data: Any, question: str, ticker: str, day: str
) -> None:
    closes = load_sp500_dataset()[ticker]
    answer = await ask_offline(question, date(2020, 3, 2))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{closes.loc[day]:.2f}" in text, text
    assert day in text, text
    assert not any("Eve" in note or "Friday" in note for note in answer.notes), answer.notes
