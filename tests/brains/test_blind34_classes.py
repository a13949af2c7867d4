"""Classes a fresh blind set found, now read:

- "after the 2008 financial crisis, on what day did the S&P 500 close back at its pre-crisis
  peak": the fall's peak is what was regained, so the window starts on it, not after the fall;
  金融危机前的高点 dates the window by the fall alone, and the recovery comes after it;
- "get back to its pre-2008 peak" with no named fall: the recovery words are recognised and,
  unanswered, decline the question instead of answering the year's highest close;
- "if you compound the monthly figures": the factor's compounded return, not its levels;
- a correlation states how many rows it was taken over and their first and last dates;
- a Chinese measure typed with a character of the same sound (收溢率 for 收益率);
- "in how many months from 2012 to 2016 did Johnson & Johnson finish higher": a count of up
  months with the window and the name between the words;
- "X divided by Y — what's the ratio?": the operator word restates the ratio read, it is not
  another operation (blind33's declined b33-007).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.nasdaq
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown
from support.numeric_expect import fall_and_recovery


@pytest.mark.parametrize(
    "question",
    [
        "After the 2008 financial crisis, on what day did the S&P 500 finally close back at its "
        "pre-crisis peak?",
        "哪天标普500收复了金融危机前的高点？",
    ],
)
async def test_the_peak_regained_after_a_named_fall(data: Any, question: str) -> None:
    # The S&P 500's 2007 peak, the trough after it by 2009, the first close back at the peak.
    closes = load_sp500_index()["SP500"]
    peak_day, trough_day, recovered = fall_and_recovery(
        closes, "2007-01-01", "2007-12-31", "2009-12-31"
    )
    answer = await ask_offline(question, date(2015, 6, 30))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for day in (peak_day, trough_day, recovered):
        assert f"{day:%Y-%m-%d}" in text, text
    assert not any("pre-crisis" in note for note in answer.notes), answer.notes


async def test_a_recovery_from_no_named_fall_is_declined(data: Any) -> None:
    answer = await ask_offline(
        "When did the S&P 500 get back to its pre-2008 peak?", date(2015, 6, 30)
    )
    assert answer.status == "no_data", answer.summary
    assert "get back to" in (answer.message or ""), answer.message


async def test_compounding_a_factors_monthly_figures(data: Any) -> None:
    monthly = series_values(data, "FF_HML").loc["2009-01-01":"2009-12-31"]
    compounded = ((1 + monthly / 100).prod() - 1) * 100
    answer = await ask_offline(
        "What did the Fama-French HML value factor return over 2009 if you compound the monthly "
        "figures?",
        date(2018, 11, 30),
    )
    assert answer.status == "ok", answer.message
    assert f"{compounded:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("苹果和微软2021年日收益率的相关系数", "AAPL", "MSFT"),
        ("correlation of daily returns between Exxon and Chevron in 2021", "XOM", "CVX"),
    ],
)
async def test_a_correlation_states_its_rows(
    data: Any, question: str, first: str, second: str
) -> None:
    prices = load_sp500_dataset()[[first, second]].loc["2020-12-31":"2021-12-31"]
    returns = prices.pct_change().dropna()
    answer = await ask_offline(question, date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{returns[first].corr(returns[second]):.2f}" in answer.summary, answer.summary
    for said in (
        f"{len(returns)}",
        f"{returns.index[0]:%Y-%m-%d}",
        f"{returns.index[-1]:%Y-%m-%d}",
    ):
        assert said in answer.summary, answer.summary


async def test_a_measure_typed_with_a_character_of_the_same_sound(data: Any) -> None:
    prices = load_sp500_dataset()["AAPL"]
    expected = (prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100
    answer = await ask_offline("苹果2021年收溢率多少", date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary
    assert any("收溢率" in note and "收益率" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    "question",
    [
        "In how many months from 2012 to 2016 did Johnson & Johnson finish higher?",
        "How many months from 2012 to 2016 was Johnson & Johnson up?",
    ],
)
async def test_up_months_counted_with_the_window_and_name_between(data: Any, question: str) -> None:
    month_ends = load_sp500_dataset()["JNJ"].resample("ME").last()
    returns = month_ends.pct_change().loc["2012-01":"2016-12"]
    up = int((returns > 0).sum())
    answer = await ask_offline(question, date(2017, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{up} of {len(returns)} months" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "When did the S&P 500 recover from COVID?",
        "When did the S&P 500 get back to its pre-pandemic high?",
        "哪天标普500收复了疫情前的高点？",
    ],
)
async def test_a_recovery_from_an_episode_that_outlasted_its_fall(data: Any, question: str) -> None:
    # The pandemic ran on for years; its fall is the crash, from the February 2020 peak.
    closes = load_sp500_index()["SP500"]
    peak_day, trough_day, recovered = fall_and_recovery(
        closes, "2020-01-01", "2020-02-29", "2020-12-31"
    )
    answer = await ask_offline(question, date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    for day in (peak_day, trough_day, recovered):
        assert f"{day:%Y-%m-%d}" in text, text


async def test_an_operation_restated_by_its_word(data: Any) -> None:
    nasdaq = arch.data.nasdaq.load()["Close"].loc["2000-03-10"]
    sp500 = load_sp500_index()["SP500"].loc["2000-03-10"]
    answer = await ask_offline(
        "Nasdaq Composite divided by the S&P 500 at the close on March 10, 2000 — "
        "what's the ratio?",
        date(2000, 6, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{nasdaq / sp500:.2f}" in answer.summary, answer.summary
