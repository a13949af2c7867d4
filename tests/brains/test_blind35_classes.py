"""Classes a fresh blind set found, now read:

- "since the start of last quarter", "since the beginning of last month": from that period's
  first day to today (not the period alone, nor "since the beginning" of the data);
- 月度WTI: a frequency word before a series' name as well as after it (WTI月度);
- a mean and a median of daily returns combined in one table state the returns they were taken
  of (their count, first and last days).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    ("question", "base"),
    [
        ("How has Merck performed since the start of last quarter?", "2022-03-31"),
        ("How has Merck performed since the beginning of last quarter?", "2022-03-31"),
        ("How has Merck performed since the start of last month?", "2022-06-30"),
    ],
)
async def test_since_the_start_of_a_relative_period(data: Any, question: str, base: str) -> None:
    today = date(2022, 8, 15)
    closes = load_sp500_dataset()["MRK"].loc[:"2022-08-15"]
    expected = (closes.iloc[-1] / closes.loc[:base].iloc[-1] - 1) * 100
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{expected:.2f}%" in text, text
    assert base in text and f"{closes.index[-1]:%Y-%m-%d}" in text, text


async def test_a_frequency_word_before_a_series_name(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011-12"]
    wti = series_values(data, "MCOILWTICO").loc["2011-12"]
    gap = float(brent.iloc[0] - wti.iloc[0])
    answer = await ask_offline("2011年12月布伦特原油比月度WTI贵多少？", date(2012, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{gap:.2f}" in answer.summary, answer.summary
    assert answer.intent is not None
    assert "MCOILWTICO" in [entity.id for entity in answer.intent.entities]


@pytest.mark.parametrize(
    "question",
    ["mean and median daily return for Home Depot in 2021", "家得宝2021年日收益率的均值和中位数"],
)
async def test_combined_statistics_state_their_returns(data: Any, question: str) -> None:
    closes = load_sp500_dataset()["HD"].loc["2020-12-31":"2021-12-31"]
    returns: pd.Series = closes.pct_change().dropna() * 100
    answer = await ask_offline(question, date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    for said in (
        f"{returns.mean():.2f}%",
        f"{returns.median():.2f}%",
        str(len(returns)),
        f"{returns.index[0]:%Y-%m-%d}",
        f"{returns.index[-1]:%Y-%m-%d}",
    ):
        assert said in answer.summary, answer.summary
