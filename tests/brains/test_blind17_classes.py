"""Classes a fresh blind set found, each now read:

- Cantonese as Hong Kong investors type it (跌咗几多, 而家离佢仲差几多%, 係几多) is read as the
  Mandarin it says;
- "in percent and in index points": the change in the level's unit beside the return; "in
  percentage points" of a rate: its change from the value before the window.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pandas as pd
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline


async def test_cantonese_is_read_as_mandarin(data: Any) -> None:
    closes = load_sp500_dataset()["AMD"]
    closes = closes[closes.index <= "2022-11-15"]
    base = closes[closes.index < "2022-01-01"].iloc[-1]
    ytd = (closes.iloc[-1] / base - 1) * 100
    answer = await ask_offline("AMD今年以来跌咗几多%？最大回撤又係几多？", date(2022, 11, 15))
    assert answer.status == "ok", answer.message
    assert f"{ytd:.2f}%" in answer.summary, answer.summary


async def test_a_distance_from_the_52_week_high_in_cantonese(data: Any) -> None:
    closes = load_sp500_dataset()["GE"]
    year = closes[(closes.index > "2021-12-28") & (closes.index <= "2022-12-28")]
    answer = await ask_offline("GE 52周最高价係几多？而家离佢仲差几多%？", date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{year.max():.2f}" in answer.summary, answer.summary
    assert f"{(1 - year.iloc[-1] / year.max()) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_fall_in_percent_and_in_index_points(data: Any) -> None:
    closes = arch.data.nasdaq.load()["Adj Close"]
    start, end = closes.loc[:"2008-10-03"].iloc[-1], closes.loc[:"2008-10-10"].iloc[-1]
    question = (
        "How much did the Nasdaq lose in the week before 2008-10-10, in percent and in index "
        "points?"
    )
    answer = await ask_offline(question, date(2009, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{abs(end - start):,.2f}" in answer.summary, answer.summary
    assert f"{(end / start - 1) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_rates_rise_in_percentage_points_starts_before_the_year(data: Any) -> None:
    bars = data.warehouse.series(["UNRATE"], date(2007, 1, 1), date(2009, 1, 1))
    rate = bars.set_index("date")["value"]
    rate.index = pd.to_datetime(rate.index)
    before, last = rate.loc[:"2007-12-31"].iloc[-1], rate.loc[:"2008-12-31"].iloc[-1]
    question = "How much did unemployment rise in 2008, in percentage points?"
    answer = await ask_offline(question, date(2009, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{last - before:.2f} percentage points" in answer.summary, answer.summary
