"""Classes a fresh blind set found, now read:

- 2020年3月一共有多少个交易日: 一 starting a word (一共) is no day of the month;
- "how did Pfizer do last year, and how's it doing year to date": two questions, two windows;
- "the past 6 months" asked months after the data ends: that length of the latest data, not the
  few months of it left inside the window;
- "CAGR over the ten years 2010–2019": the dates restate the length;
- "core CPI (ex food & energy)": what the index leaves out, no member removed;
- "10k went in" is read as an amount (what it became is declined, not answered otherwise).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown


async def test_yi_starting_a_word_is_no_day(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2020-03"]
    answer = await ask_offline("标普500在2020年3月一共有多少个交易日？", date(2020, 4, 5))
    assert answer.status == "ok", answer.message
    assert f"{len(closes)}个交易日" in answer.summary, answer.summary


async def test_two_questions_after_a_comma_are_two_windows(data: Any) -> None:
    closes = load_sp500_dataset()["PFE"]
    last_year = (closes.loc["2021-12-31"] / closes.loc["2020-12-31"] - 1) * 100
    ytd = (closes.loc[:"2022-06-15"].iloc[-1] / closes.loc["2021-12-31"] - 1) * 100
    question = "How did Pfizer do last year, and how's it doing year to date?"
    answer = await ask_offline(question, date(2022, 6, 15))
    assert answer.status == "ok", answer.message
    for figure in (last_year, ytd):
        assert f"{figure:.2f}%" in answer.summary, answer.summary


async def test_a_length_mostly_after_the_data_is_of_the_latest_data(data: Any) -> None:
    closes = load_sp500_index()["SP500"]
    last = closes.index[-1]
    start = closes.loc[: last - pd.DateOffset(months=6)].iloc[-1]
    expected = (closes.iloc[-1] / start - 1) * 100
    answer = await ask_offline("S&P 500 return over the past 6 months", date(2023, 3, 15))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


async def test_dates_restating_a_length(data: Any) -> None:
    closes = load_sp500_dataset()["LLY"]
    years = (pd.Timestamp("2019-12-31") - pd.Timestamp("2009-12-31")).days / 365.25
    cagr = ((closes.loc["2019-12-31"] / closes.loc["2009-12-31"]) ** (1 / years) - 1) * 100
    question = "Eli Lilly's compound annual growth rate (CAGR) over the ten years 2010–2019?"
    answer = await ask_offline(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{cagr:.2f}%" in answer.summary, answer.summary


async def test_what_a_core_index_leaves_out_is_no_exclusion(data: Any) -> None:
    core = series_values(data, "CPILFESL")
    yoy = (core / core.shift(12) - 1).loc["1980":"1989"] * 100
    question = (
        "Core CPI (ex food & energy): in which month of the 1980s was its year-over-year rate "
        "highest?"
    )
    answer = await ask_offline(question, date(2018, 12, 15))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{yoy.max():.2f}" in text and f"{yoy.idxmax():%Y-%m}" in text, text
