"""Classes a fresh blind set found, now read: a distance from a peak asked on one day.

- "WTI原油2008年底比当年最高点低了多少": the day (年底) is where the distance is measured; the peak
  is sought over the period the question names for it (当年, "that year"), never over the day
  alone, where every close is its own peak;
- the same with no period named: the peak of all the data up to that day;
- "its 52-week high at the end of 2021": the 52 weeks run to that day, not to today;
- "X at the end of 2021 vs its high that year, how far below?": the peak said before the ask.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown


def _below_peak(closes: pd.Series, start: str, end: str) -> tuple[float, pd.Timestamp]:
    window = closes.loc[start:end]
    return (window.iloc[-1] / window.max() - 1) * 100, window.idxmax()


async def test_the_year_end_below_that_years_high(data: Any) -> None:
    oil = series_values(data, "DCOILWTICO")
    distance, peak_day = _below_peak(oil, "2008-01-01", "2008-12-31")
    answer = await ask_offline("WTI原油2008年底比当年最高点低了多少", date(2009, 6, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{distance:.2f}" in text and f"{peak_day:%Y-%m-%d}" in text, text


async def test_that_years_high_said_before_the_ask(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    distance, peak_day = _below_peak(closes, "2021-01-01", "2021-12-31")
    question = "Apple at the end of 2021 vs its high that year, how far below?"
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{distance:.2f}" in text and f"{peak_day:%Y-%m-%d}" in text, text


async def test_a_day_with_no_period_is_below_the_high_of_all_the_data_before_it(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    distance, peak_day = _below_peak(closes, "1990-01-01", "2020-03-23")
    question = "How far below its high was Apple on March 23, 2020?"
    answer = await ask_offline(question, date(2021, 1, 5))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{distance:.2f}" in text and f"{peak_day:%Y-%m-%d}" in text, text


async def test_a_52_week_high_runs_to_the_day_asked(data: Any) -> None:
    closes = load_sp500_dataset()["MSFT"]
    start = pd.Timestamp("2020-03-31") - pd.Timedelta(weeks=52)
    distance, peak_day = _below_peak(closes, f"{start:%Y-%m-%d}", "2020-03-31")
    answer = await ask_offline("微软2020年3月底离52周高点有多远", date(2021, 6, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{distance:.2f}" in text and f"{peak_day:%Y-%m-%d}" in text, text
