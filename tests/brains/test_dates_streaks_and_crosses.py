"""Dates asked beside a figure: the quarter or month of a level's peak (of a spread too), the
day of the high a distance is measured from, the longest run of up or down sessions and its
last day, up days against down days, and the day a moving average crossed another — each
answered `ok` with the figure and its date, in English and Chinese."""

from __future__ import annotations

from datetime import date
from typing import Any

import arch.data.crude
import arch.data.default
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from statsmodels.datasets import macrodata
from support.asking import ask, shown

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 30)


async def _answer(question: str, today: date = TODAY) -> str:
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    return answer.summary


def _unemployment() -> pd.Series:
    frame = macrodata.load_pandas().data
    index = pd.PeriodIndex.from_fields(
        year=frame["year"].astype(int), quarter=frame["quarter"].astype(int), freq="Q"
    )
    return pd.Series(frame["unemp"].to_numpy(), index=index)


@pytest.mark.parametrize(
    ("question", "first", "last", "zh"),
    [
        ("Jobless rate peak between Q1 2008 and Q3 2009 - how high and which quarter?",
         "2008Q1", "2009Q3", False),
        ("美国失业率1980年代最高到多少？是哪个季度？", "1980Q1", "1989Q4", True),
    ],
)  # fmt: skip
async def test_the_quarter_of_a_levels_peak(
    data: Any, question: str, first: str, last: str, zh: bool
) -> None:
    rates = _unemployment()[first:last]
    peak = rates.idxmax()
    summary = await _answer(question)
    assert f"{rates.max():.2f}%" in summary
    assert f"{peak.year}Q{peak.quarter}" in summary
    if zh:
        assert f"{peak.year}年第" in summary


@pytest.mark.parametrize(
    ("question", "side", "zh"),
    [
        ("Brent minus WTI monthly spread: what was its max over 2011-2013 and in which month?",
         "max", False),
        ("布伦特减WTI月度价差2011到2013年最大是多少？在哪个月？", "max", True),
    ],
)  # fmt: skip
async def test_the_month_of_a_spreads_extreme_is_the_spreads_not_a_legs(
    data: Any, question: str, side: str, zh: bool
) -> None:
    crude = arch.data.crude.load()
    spread = (crude["Brent"] - crude["WTI"])["2011":"2013"]
    month = spread.idxmax()
    summary = await _answer(question)
    assert f"{spread.max():.2f}" in summary and f"{month:%Y-%m}" in summary
    assert f"{(crude['Brent']['2011':'2013']).max():.2f}" not in summary.split("。")[0]


async def test_the_narrowest_month_of_the_baa_aaa_spread_in_chinese(data: Any) -> None:
    yields = arch.data.default.load()
    spread = (yields["BAA"] - yields["AAA"])["2008":"2009"]
    month = spread.idxmin()
    summary = await _answer("穆迪Baa减Aaa利差2008到2009年最窄是多少？哪个月？")
    assert f"{spread.min():.2f}%" in summary and f"{month.year}年{month.month}月" in summary


async def test_a_figure_asked_in_a_window_inside_the_extremes_is_a_part_of_its_own(
    data: Any,
) -> None:
    yields = arch.data.default.load()
    spread = (yields["BAA"] - yields["AAA"]).dropna()
    span = spread.loc["2008":"2009"]
    answer = await ask(
        "Baa minus Aaa spread: what was it in March 2008, and the widest in 2008-2009, which "
        "month?",
        QuestionContext(today=TODAY, brain="offline"),
    )
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{spread.loc['2008-03-01']:.2f}" in text, text
    assert f"{span.max():.2f}%" in text and f"{span.idxmax():%Y-%m}" in text, text


def _closes(ticker: str) -> pd.Series:
    return load_sp500_dataset()[ticker]


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("How far is Walmart below its 52-week high, and on which day was that high?",
         date(2022, 6, 30)),
        ("沃尔玛离52周高点还差多少？高点是哪一天？", date(2022, 6, 30)),
    ],
)  # fmt: skip
async def test_the_day_of_the_high_a_distance_is_measured_from(
    data: Any, question: str, today: date
) -> None:
    closes = _closes("WMT")[str(today - pd.Timedelta(weeks=52)) : str(today)]
    summary = await _answer(question, today)
    assert f"{(closes.iloc[-1] / closes.max() - 1) * -100:.2f}%" in summary
    assert f"{closes.idxmax():%Y-%m-%d}" in summary


def _longest_run(closes: pd.Series, start: str, end: str, up: bool) -> tuple[int, str, str]:
    moves = closes.diff()[start:end]
    hits = moves > 0 if up else moves < 0
    best, first, last, run, began = 0, "", "", 0, None
    for day, hit in hits.items():
        if hit:
            began = day if run == 0 else began
            run += 1
            if run > best:
                best, first, last = run, f"{began:%Y-%m-%d}", f"{day:%Y-%m-%d}"
        else:
            run = 0
    return best, first, last


@pytest.mark.parametrize(
    ("question", "ticker", "year", "up"),
    [
        ("How long was Apple's longest losing streak in 2022, and on what day did it end?",
         "AAPL", "2022", False),
        ("Microsoft's longest winning streak in 2019 - how many sessions and when did it end?",
         "MSFT", "2019", True),
        ("微软2019年最长连涨了几天？到哪天结束？", "MSFT", "2019", True),
        ("苹果2022年最多连续下跌几天？哪天结束？", "AAPL", "2022", False),
    ],
)  # fmt: skip
async def test_the_longest_streak_its_length_and_its_last_day(
    data: Any, question: str, ticker: str, year: str, up: bool
) -> None:
    sessions, first, last = _longest_run(_closes(ticker), year, year, up)
    summary = await _answer(question)
    assert f"{sessions}" in summary and last in summary and first in summary


@pytest.mark.parametrize(
    "question",
    ["how many up days vs down days did Coke have in 2018?",
     "可口可乐2018年上涨和下跌的交易日各有多少天？"],
)  # fmt: skip
async def test_up_days_against_down_days_counts_both(data: Any, question: str) -> None:
    moves = _closes("KO").diff()["2018"]
    summary = await _answer(question)
    assert str(int((moves > 0).sum())) in summary and str(int((moves < 0).sum())) in summary


def _crosses(closes: pd.Series, year: str) -> list[str]:
    fast, slow = closes.rolling(50).mean(), closes.rolling(200).mean()
    above = fast > slow
    crossed = above & ~above.shift(1, fill_value=True) & slow.shift(1).notna()
    return [f"{d:%Y-%m-%d}" for d in crossed[crossed][year].index]


@pytest.mark.parametrize(
    ("question", "ticker"),
    [
        ("When did Apple's 50-day moving average cross above its 200-day in 2019?", "AAPL"),
        ("Did Microsoft have a golden cross in 2019? When?", "MSFT"),
        ("微软2019年50日均线上穿200日均线是哪天？", "MSFT"),
    ],
)
async def test_the_day_a_moving_average_crossed_above_another(
    data: Any, question: str, ticker: str
) -> None:
    days = _crosses(_closes(ticker), "2019")
    assert days
    summary = await _answer(question)
    assert all(day in summary for day in days)


def _quarterly(column: str) -> pd.Series:
    frame = macrodata.load_pandas().data
    index = pd.PeriodIndex.from_fields(
        year=frame["year"].astype(int), quarter=frame["quarter"].astype(int), freq="Q"
    )
    return pd.Series(frame[column].to_numpy(), index=index)


@pytest.mark.parametrize(
    "question",
    [
        "Average 3-month T-bill rate in the 1990s, and which was its highest quarter?",
        "3个月国债利率1990年代平均是多少？最高的是哪个季度？",
    ],
)
async def test_a_rates_highest_quarter_is_its_level_beside_the_average(
    data: Any, question: str
) -> None:
    rates = _quarterly("tbilrate")["1990Q1":"1999Q4"]
    peak = rates.idxmax()
    summary = await _answer(question)
    assert f"{rates.max():.2f}%" in summary and f"{peak.year}Q{peak.quarter}" in summary
    assert f"{rates.mean():.2f}%" in summary


async def test_the_lowest_quarter_of_a_rate_ranks_levels_not_changes(data: Any) -> None:
    rates = _quarterly("unemp")["2000Q1":"2009Q4"]
    trough = rates.idxmin()
    summary = await _answer("Which was the lowest quarter for the jobless rate in the 2000s?")
    assert f"{rates.min():.2f}%" in summary and f"{trough.year}Q{trough.quarter}" in summary


async def test_a_years_low_its_day_and_how_far_above_it_the_year_finished(data: Any) -> None:
    import arch.data.wti

    wti = arch.data.wti.load().iloc[:, 0].dropna()["2016"]
    summary = await _answer(
        "WTI crude in 2016: what was the lowest close, on what day, and how far above that "
        "low did it finish the year?"
    )
    assert f"{wti.min():.2f}" in summary and f"{wti.idxmin():%Y-%m-%d}" in summary
    assert f"{(wti.iloc[-1] / wti.min() - 1) * 100:.2f}%" in summary


@pytest.mark.parametrize(
    "question",
    [
        "US real GDP growth in Q3 2009 - quarter over quarter and year over year?",
        "Real GDP, Q3 2009 — quarter over quarter, and year over year?",
    ],
)
async def test_a_dash_after_a_year_is_a_break_not_a_length_of_years_quarters(
    data: Any, question: str
) -> None:
    gdp = _quarterly("realgdp")
    qoq = (gdp["2009Q3"] / gdp["2009Q2"] - 1) * 100
    yoy = (gdp["2009Q3"] / gdp["2008Q3"] - 1) * 100
    summary = await _answer(question)
    assert f"{qoq:.2f}%" in summary and f"{yoy:.2f}%" in summary
    assert "Q3" not in summary.split("In ")[0] or "don't know" not in summary


@pytest.mark.parametrize(
    "question",
    [
        "Over the last 18 months, did JPMorgan or Bank of America hold up better, and by how "
        "many percentage points?",
        "过去18个月摩根大通和美国银行哪个更抗跌？差几个百分点？",
    ],
)
async def test_which_held_up_better_and_by_how_many_points(data: Any, question: str) -> None:
    prices = load_sp500_dataset()[["JPM", "BAC"]]
    change = (prices.loc["2022-06-30"] / prices.loc["2020-12-30"] - 1) * 100
    summary = await _answer(question, date(2022, 6, 30))
    gap = abs(change["BAC"] - change["JPM"])
    assert f"{change['BAC']:.2f}%" in summary and f"{change['JPM']:.2f}%" in summary
    assert f"{gap:.2f}" in summary
