"""Classes a fresh blind set found, each now read:

- 在2020年有多少天收盘高于3500: the year after 在 is no level; the count's threshold is 3500;
- a high and a low asked together with their days ("the 2008 high and low, and on which
  days", 最高价和最低价…各在哪天): both extremes, each with its date, labelled highest and lowest
  (never 涨幅最大, a gain);
- "since COVID hit (Feb 19 2020 peak)": the day in brackets pins the start even with a word
  after it, and the level word inside names that day, not the measure ("how much is it up");
- a statistic of a series states the values it was taken of (how many, first and last day);
- a Sharpe ratio's table states its returns' first and last day, as the volatility's does.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_factors_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown


@pytest.mark.parametrize(
    "question",
    ["标普500在2020年有多少天收盘高于3500？", "标普500在2020年有几天收盘高于3500点？"],
)
async def test_a_year_after_zai_is_not_the_count_level(data: Any, question: str) -> None:
    closes = load_sp500_index()["SP500"].loc["2020"]
    expected = int((closes > 3500).sum())
    answer = await ask_offline(question, date(2021, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"{expected}个交易日" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "highest", "lowest"),
    [
        ("WTI原油2008年最高价和最低价分别是多少？各在哪天？", "最高", "最低"),
        ("What were WTI's 2008 high and low, and on which days?", "highest", "lowest"),
    ],
)
async def test_a_high_and_a_low_with_their_days(
    data: Any, question: str, highest: str, lowest: str
) -> None:
    wti = series_values(data, "DCOILWTICO").loc["2008"].dropna()
    answer = await ask_offline(question, date(2009, 1, 15))
    assert answer.status == "ok", answer.message
    for value, day, word in (
        (wti.max(), wti.idxmax(), highest),
        (wti.min(), wti.idxmin(), lowest),
    ):
        stop = "。" if word == "最高" else ". "
        sentence = next(s for s in answer.summary.split(stop) if word in s)
        assert f"{value:.2f}" in sentence and f"{day:%Y-%m-%d}" in sentence, answer.summary
    if highest == "最高":
        table = next(o for o in answer.outputs if getattr(o, "rows", None))
        assert "涨幅最大" not in str(table.rows), table.rows


@pytest.mark.parametrize(
    "question",
    [
        "How much is the S&P 500 up since COVID hit (Feb 19 2020 peak)?",
        "标普500自新冠暴发（2020年2月19日高点）以来涨了多少？",
    ],
)
async def test_a_bracketed_start_with_a_word_after_its_day(data: Any, question: str) -> None:
    closes = load_sp500_index()["SP500"]
    expected = (closes.loc["2021-12-31"] / closes.loc["2020-02-19"] - 1) * 100
    answer = await ask_offline(question, date(2021, 12, 31))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary
    assert not any("以来" in note for note in answer.notes), answer.notes  # every word read


async def test_a_mean_states_the_values_it_was_taken_of(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2019"].dropna()
    answer = await ask_offline("布伦特原油2019年的平均价格是多少？", date(2020, 1, 20))
    assert answer.status == "ok", answer.message
    said = answer.summary
    assert f"{brent.mean():.2f}" in said, said
    assert f"{len(brent)}个观测值" in said, said
    assert f"{brent.index[0]:%Y-%m-%d}至{brent.index[-1]:%Y-%m-%d}" in said, said


async def test_a_sharpe_ratio_states_its_first_and_last_day(data: Any) -> None:
    closes = load_factors_dataset()["USMV"]
    returns = closes.loc["2016-12-30":"2017-12-31"].pct_change().dropna()
    excess = returns - 0.015 / 252
    expected = excess.mean() / returns.std() * 252**0.5
    question = "USMV在2017年的夏普比率是多少？无风险利率按1.5%计算"
    answer = await ask_offline(question, date(2018, 1, 15))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{expected:.2f}" in answer.summary, answer.summary
    assert f"{returns.index[-1]:%Y-%m-%d}" in text, text
    assert isinstance(returns.index, pd.DatetimeIndex)
