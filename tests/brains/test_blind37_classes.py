"""Classes a fresh blind set found, now read:

- a frequency word anywhere in the question picks a series' sibling of that frequency ("use
  the monthly prices": the monthly WTI), and "how much pricier / cheaper" asks the gap;
- a decade in words ("the sixties", "the late nineties");
- "back-to-back down closes" is a losing streak, "chained together" compounds, 收涨的日子和收跌的
  日子 counts both sides, 刷新历史纪录 counts record closes;
- a measure typed with an input method's fuzzy syllable (最大回测 for 最大回撤);
- periods picked by another name's move ("on the days the S&P 500 fell more than 2%",
  标普500收跌的那几个月): each other name's mean return over exactly those periods.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask_offline, series_values, shown
from support.numeric_expect import source_frame


async def test_a_frequency_said_apart_picks_the_sibling_series(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2008-07"].iloc[0]
    wti = series_values(data, "MCOILWTICO").loc["2008-07"].iloc[0]
    answer = await ask_offline(
        "How much pricier was Brent than WTI in July 2008? use the monthly prices",
        date(2009, 1, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{brent - wti:.2f}" in answer.summary, answer.summary
    assert answer.intent is not None
    assert "MCOILWTICO" in [entity.id for entity in answer.intent.entities]


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("avg US jobless rate during the sixties?", "1960", "1969"),
        ("average US unemployment rate in the late nineties", "1997", "1999"),
    ],
)
async def test_a_decade_in_words(data: Any, question: str, first: str, last: str) -> None:
    rate = series_values(data, "UNRATE").loc[first:last]
    answer = await ask_offline(question, date(2001, 1, 1))
    assert answer.status == "ok", answer.message
    assert f"{rate.mean():.2f}%" in answer.summary, answer.summary


def _runs(moves: pd.Series) -> list[tuple[pd.Timestamp, pd.Timestamp, int]]:
    runs, start, length = [], None, 0
    for day, move in moves.items():
        if move < 0:
            start, length = (start or day), length + 1
            runs.append((start, day, length))
        else:
            start, length = None, 0
    return runs


async def test_back_to_back_down_closes_are_a_losing_streak(data: Any) -> None:
    closes = load_sp500_dataset()["JPM"].loc["2021-12-31":"2022-12-31"]
    first, last, length = max(_runs(closes.pct_change().dropna()), key=lambda run: run[2])
    answer = await ask_offline(
        "In 2022, what was JPMorgan's longest run of back-to-back down closes?", date(2023, 1, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"{length} sessions" in answer.summary, answer.summary
    assert f"{first:%Y-%m-%d}" in answer.summary and f"{last:%Y-%m-%d}" in answer.summary


async def test_monthly_figures_chained_together_compound(data: Any) -> None:
    smb = series_values(data, "FF_SMB").loc["2016"]
    chained = ((1 + smb / 100).prod() - 1) * 100
    answer = await ask_offline(
        "Fama-French SMB for 2016, monthly figures chained together - what's the total?",
        date(2017, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{chained:.2f}%" in answer.summary, answer.summary


async def test_up_days_and_down_days_said_as_days(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"].loc["2020-12-31":"2021-12-31"]
    moves = closes.pct_change().dropna()
    answer = await ask_offline("2021年苹果收涨的日子和收跌的日子分别有多少？", date(2022, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{(moves > 0).sum()}个交易日上涨" in answer.summary, answer.summary
    assert f"{(moves < 0).sum()}个交易日下跌" in answer.summary, answer.summary


async def test_a_typed_measure_with_a_fuzzy_syllable(data: Any) -> None:
    closes = load_sp500_dataset()["PEP"].loc["2021-12-31":"2022-12-31"]
    drawdown = (closes / closes.cummax() - 1).min() * 100
    answer = await ask_offline("百事可乐2022年的最大回测是多少", date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{drawdown:.2f}%" in shown(answer), answer.summary


def _returns(closes: pd.Series, first: str, last: str, period: str) -> pd.Series:
    """Period returns in % over [first, last], the first from the close before `first`."""
    levels = closes.loc[:last]
    if period == "monthly":
        levels = levels.resample("ME").last()
    base = levels.loc[: pd.Timestamp(first) - pd.Timedelta(days=1)].iloc[-1:]
    inside = levels.loc[first:]
    return (pd.concat([base, inside]).pct_change().dropna() * 100).loc[first:]


@pytest.mark.parametrize(
    ("question", "condition", "target", "year", "period", "limit", "today"),
    [
        (
            "In 2022, on the days the S&P 500 fell more than 2%, what was Walmart's average "
            "return on those same days?",
            "^GSPC", "WMT", "2022", "daily", 2.0, date(2023, 2, 1),
        ),
        (
            "2011年标普500收跌的那几个月，可口可乐平均每个月涨跌多少？",
            "^GSPC", "KO", "2011", "monthly", 0.0, date(2012, 2, 1),
        ),
        (
            "2020年标普500单日跌幅超过3%的那些天里，强生平均涨跌了多少？",
            "^GSPC", "JNJ", "2020", "daily", 3.0, date(2021, 1, 15),
        ),
    ],
)  # fmt: skip
async def test_returns_over_the_periods_another_name_fell(
    data: Any,
    question: str,
    condition: str,
    target: str,
    year: str,
    period: str,
    limit: float,
    today: date,
) -> None:
    # Before: declined (or, for the months, every month's mean came back `ok`).
    index = source_frame("skfolio_index")[condition]
    stock = load_sp500_dataset()[target]
    first, last = f"{year}-01-01", f"{year}-12-31"
    moves = _returns(index, first, last, period)
    picked = moves[moves < -limit].index
    mean = _returns(stock, first, last, period).reindex(picked).mean()
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{mean:.2f}%" in answer.summary, answer.summary
    assert str(len(picked)) in answer.summary, answer.summary
    assert f"{picked[0]:%Y-%m-%d}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "write me a limerick about the market crash of 1929",
        "帮我写一首关于2008年金融危机的打油诗",
    ],
)
async def test_a_creative_writing_request_is_not_a_data_question(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2024, 1, 1))
    assert answer.status == "out_of_scope", answer.summary or answer.message


async def test_third_from_the_bottom_shows_the_places_down_to_it(data: Any) -> None:
    names = {"AAPL": "苹果", "MSFT": "微软", "AMD": "AMD", "BBY": "百思买", "HD": "家得宝"}
    prices = load_sp500_dataset()[list(names)].loc["2021-12-31":"2022-12-31"]
    returns = (prices.iloc[-1] / prices.iloc[0] - 1) * 100
    third = returns.sort_values().index[2]
    answer = await ask_offline(
        "苹果、微软、AMD、百思买、家得宝，2022年收益率倒数第三的是哪只？", date(2023, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{returns[third]:.2f}%" in answer.summary, answer.summary
    ranked = answer.summary.split("依次为")[-1]
    for ticker in returns.sort_values().index[:3]:
        assert f"{returns[ticker]:.2f}%" in ranked, answer.summary


async def test_a_daily_series_asked_on_a_weekend_is_the_friday_before(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO")
    answer = await ask_offline("2008年6月14号（周六）WTI原油价格是多少？", date(2008, 7, 1))
    assert answer.status == "ok", answer.message
    assert f"{wti.loc['2008-06-13']:.2f}" in answer.summary, answer.summary
    assert "2008-06-13" in answer.summary
    assert any("2008-06-14" in note for note in answer.notes), answer.notes


async def test_a_risk_free_rate_given_with_a_softener_is_used(data: Any) -> None:
    closes = load_sp500_dataset()["JNJ"].loc["2019-12-31":"2020-12-31"]
    returns = closes.pct_change().dropna()
    sharpe = (returns.mean() - 0.015 / 252) / returns.std() * 252**0.5
    answer = await ask_offline(
        "强生2020年的夏普比率是多少？无风险利率就按1.5%算吧", date(2021, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{sharpe:.2f}" in answer.summary, answer.summary
    assert "1.50%" in answer.summary and "2019-12-31" in answer.summary, answer.summary


async def test_a_statistic_of_returns_states_the_close_they_start_from(data: Any) -> None:
    closes = load_sp500_dataset()["KO"].loc["2018-12-31":"2019-12-31"]
    monthly = closes.resample("ME").last().pct_change().dropna() * 100
    answer = await ask_offline("可口可乐2019年的月均收益率是多少？", date(2020, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{monthly.mean():.2f}%" in answer.summary, answer.summary
    assert "首个自2018-12-31起算" in answer.summary, answer.summary


async def test_a_factor_series_mean_claims_no_close_it_starts_from(data: Any) -> None:
    # A factor's monthly figures are returns themselves: no close before them is a base.
    smb = series_values(data, "FF_SMB").loc["2016"]
    answer = await ask_offline("average monthly Fama-French SMB in 2016", date(2017, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{smb.mean():.2f}%" in answer.summary, answer.summary
    assert "the first from" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "What was the Nasdaq-to-S&P 500 ratio on Dec 31 2018?",
        "Nasdaq/S&P 500 ratio on Dec 31 2018",
        "纳斯达克/标普500比值 2018年12月31日",
    ],
)
async def test_two_names_joined_as_a_ratios_legs(data: Any, question: str) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].loc["2018-12-31"]
    sp500 = source_frame("skfolio_index")["^GSPC"].loc["2018-12-31"]
    answer = await ask_offline(question, date(2019, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{nasdaq / sp500:.2f}" in answer.summary, answer.summary
    assert f"{nasdaq:,.2f}" in answer.summary and f"{sp500:,.2f}" in answer.summary


async def test_a_ratio_named_after_a_person_is_no_ratio_of_names(data: Any) -> None:
    answer = await ask_offline("What is Apple's Sortino ratio for 2020?", date(2021, 1, 15))
    assert answer.status == "no_data" and "Sortino" in (answer.message or ""), answer


async def test_a_high_asked_of_a_name_nobody_knows_is_no_data_naming_it(data: Any) -> None:
    # 最高涨到多少 asks a high, so this is a data question about something the data lacks.
    answer = await ask_offline("比特币2021年最高涨到多少？", date(2022, 1, 10))
    assert answer.status == "no_data" and "比特币" in (answer.message or ""), answer


async def test_when_a_gap_was_at_its_widest_and_how_wide(data: Any) -> None:
    gap = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    answer = await ask_offline(
        "When was the gap between Moody's Baa and Aaa yields at its widest in 2008-2009, "
        "and how wide did it get?",
        date(2010, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{gap.max():.2f}" in answer.summary, answer.summary
    assert f"{gap.idxmax():%Y-%m-%d}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # "widest" and "how wide" are both read


@pytest.mark.parametrize(
    "question",
    [
        "90年代美国实际GDP环比增长最快的是哪个季度？增长了多少？",
        "90年代美国实际GDP环比增长最高的是哪个季度？",
    ],
)
async def test_the_fastest_quarter_on_quarter_growth_and_its_size(data: Any, question: str) -> None:
    gdp = series_values(data, "GDPC1").loc["1989-10-01":"1999-12-31"]
    growth = (gdp.pct_change().dropna() * 100).loc["1990":"1999"]
    answer = await ask_offline(question, date(2000, 6, 1))
    assert answer.status == "ok", answer.message
    head = answer.summary.split("。")[0]
    assert f"{growth.max():.2f}%" in head and f"{growth.idxmax():%Y-%m-%d}" in head, head
