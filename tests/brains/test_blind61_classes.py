"""Classes a fresh blind set (blind61) found, each failing before its fix:

- a word of time left unread (蘋果舊年成年升咗幾多: 舊年 is Cantonese for last year) answered
  over the past twelve months instead: 舊年 is last year, and a time word the reader does not
  know declines when no window was read;
- 从1969年四季度算到1979年四季度 ("counting from … to …") is one range, not two open windows;
- "Equal parts JNJ, PFE and MRK (not LLY)": an equal-weight basket of the three, LLY left out
  (also ", not LLY" in a ranking);
- a basket set against a benchmark ("how did it stack up against the S&P 500"), bought "at the
  2014 year-end close" and "held to the 2019 year-end close": the gap between the two in
  percentage points, and no closing prices read as a measure of their own;
- a compound annual rate asked with "how many times over" (期末价格是期初的多少倍, "the ending
  level as a multiple of the starting one"): the yearly rate and the multiple, of one name or of
  each of two;
- 哪个月跌得最厉害？当月跌了多少？: 当月 is the month asked about, not the current month;
  增长最快 / 下降最多 are superlatives of a move; 不年化 ("not annualized") is the simple change,
  never the 年化 inside it.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import buy_and_hold, source_frame
from support.report_tables import first_sentence


def _closes(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _growth(closes: pd.Series, start: str, end: str) -> tuple[float, float]:
    """(CAGR in %, end over start) between the last closes on or before `start` and `end`."""
    first, last = closes.loc[:start], closes.loc[:end]
    multiple = float(last.iloc[-1] / first.iloc[-1])
    years = (last.index[-1] - first.index[-1]).days / 365.25
    return (multiple ** (1 / years) - 1) * 100, multiple


async def test_cantonese_last_year_is_the_calendar_year_before(data: Any) -> None:
    closes = _closes("AAPL")
    expected = (closes.loc[:"2019-12-31"].iloc[-1] / closes.loc[:"2018-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline("蘋果舊年成年升咗幾多？", date(2020, 3, 15))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


async def test_an_unread_time_word_without_a_window_is_declined(data: Any) -> None:
    answer = await ask_offline("苹果成年升咗几多？", date(2020, 3, 15))
    assert answer.status == "no_data"
    assert "成年" in (answer.message or "")


async def test_counting_from_one_quarter_to_another_is_one_range(data: Any) -> None:
    cpi = series_values(data, "CPIAUCSL")
    expected = (cpi.loc["1979-10-01"] / cpi.loc["1969-10-01"] - 1) * 100
    answer = await ask_offline(
        "整个70年代美国物价涨了多少？用CPI，从1969年四季度算到1979年四季度。", date(2010, 1, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


async def test_equal_parts_basket_leaves_out_the_name_in_parentheses(data: Any) -> None:
    closes = source_frame("skfolio_sp500")
    held = buy_and_hold(
        closes, {"JNJ": 1 / 3, "PFE": 1 / 3, "MRK": 1 / 3}, "2019-12-31", "2020-12-31"
    )
    expected = held.iloc[-1] - 100
    answer = await ask_offline(
        "Equal parts JNJ, PFE and MRK (not LLY), bought at the start of this year and held - "
        "how's that basket done YTD?",
        date(2020, 12, 31),
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary
    assert "LLY" not in answer.summary


async def test_a_name_after_comma_not_is_left_out_of_a_ranking(data: Any) -> None:
    answer = await ask_offline(
        "JNJ, PFE and MRK, not LLY: which did best in 2020?", date(2021, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert "LLY" not in answer.summary and "Of the 3" in answer.summary, answer.summary


async def test_a_basket_against_a_benchmark_states_the_gap(data: Any) -> None:
    closes = source_frame("skfolio_sp500")
    held = buy_and_hold(closes, {"MSFT": 0.6, "JNJ": 0.4}, "2014-12-31", "2019-12-31")
    index = source_frame("skfolio_index")["^GSPC"]
    benchmark = (index.loc[:"2019-12-31"].iloc[-1] / index.loc[:"2014-12-31"].iloc[-1] - 1) * 100
    basket = held.iloc[-1] - 100
    answer = await ask_offline(
        "60/40 MSFT/JNJ bought at the 2014 year-end close, never rebalanced, held to the 2019 "
        "year-end close. Total return, and how did it stack up against the S&P 500 over the "
        "same stretch?",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert answer.intent is not None and "close" not in answer.intent.metrics
    for figure in (basket, benchmark, basket - benchmark):
        assert f"{figure:,.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "ticker", "start", "end", "today"),
    [
        (
            "a dollar put into Microsoft at the end of 1990 - how many times over had it grown "
            "by the end of 2020, and what is that as a compound annual rate?",
            "MSFT",
            "1990-12-31",
            "2020-12-31",
            date(2021, 1, 15),
        ),
        (
            "宝洁从1995年最后一个交易日的收盘价拿到2020年最后一个交易日的收盘价，年复合增长率是多少？"
            "期末价格是期初的多少倍？",
            "PG",
            "1995-12-31",
            "2020-12-31",
            date(2021, 2, 1),
        ),
        (
            "If the scheme had bought Johnson & Johnson at the 1992 year-end close and held it to "
            "the 2012 year-end close, what compound annual growth rate does that work out to, and "
            "how many times over would the money have multiplied?",
            "JNJ",
            "1992-12-31",
            "2012-12-31",
            date(2013, 2, 1),
        ),
    ],
)
async def test_a_compound_rate_with_its_multiple(
    data: Any, question: str, ticker: str, start: str, end: str, today: date
) -> None:
    rate, multiple = _growth(_closes(ticker), start, end)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for figure in (rate, multiple):
        assert f"{figure:,.2f}" in answer.summary, answer.summary


async def test_each_of_two_names_grew_how_many_times_over(data: Any) -> None:
    answer = await ask_offline(
        "Walmart versus Coca-Cola from the 1991 year-end close to the 2021 year-end close. CAGR "
        "for each, and how many times over did each one grow?",
        date(2022, 2, 1),
    )
    assert answer.status == "ok", answer.message
    for ticker in ("WMT", "KO"):
        rate, multiple = _growth(_closes(ticker), "1991-12-31", "2021-12-31")
        assert f"{rate:.2f}%" in answer.summary, answer.summary
        assert f"{multiple:.2f} times" in answer.summary, answer.summary
    assert "it peaked" not in answer.summary  # one path of two names would not say whose


def _worst_month(values: pd.Series, year: str) -> tuple[str, float]:
    ends = values.loc[: f"{year}-12-31"].resample("ME").last()
    returns = (ends / ends.shift(1) - 1).loc[year] * 100
    return f"{returns.idxmin():%Y-%m}", float(returns.min())


@pytest.mark.parametrize(
    "question",
    [
        "2008年WTI原油哪个月跌得最厉害？当月跌了多少？",
        "Which month of 2008 was worst for WTI, and how much did it fall that month?",
    ],
)
async def test_that_month_is_the_month_asked_about(data: Any, question: str) -> None:
    month, fell = _worst_month(series_values(data, "DCOILWTICO").dropna(), "2008")
    answer = await ask_offline(question, date(2009, 2, 1))
    assert answer.status == "ok", answer.message
    assert month in answer.summary and f"{fell:.2f}%" in answer.summary, answer.summary


async def test_fastest_quarter_growth_not_annualized(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    growth = (gdp / gdp.shift(1) - 1).loc["1970":"1979"] * 100
    best = growth.idxmax()
    answer = await ask_offline(
        "1970年代美国实际GDP哪个季度环比增长最快？增长了多少？（环比，不年化）", date(2010, 1, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{best.year}Q{best.quarter}" in answer.summary, answer.summary
    assert f"{growth.max():.2f}%" in answer.summary, answer.summary
    assert "年化" not in answer.summary.replace("未年化", "")


def _nasdaq_bars() -> pd.DataFrame:
    import arch.data.nasdaq

    return arch.data.nasdaq.load()


@pytest.mark.parametrize(
    ("question", "field", "window", "side", "today"),
    [
        (
            "What was the Nasdaq Composite's intraday high in 2000, and what day did it hit it?",
            "High",
            "2000",
            "max",
            date(2001, 1, 15),
        ),
        (
            "nasdaq comp, oct '18: highest intraday high and what day?",
            "High",
            "2018-10",
            "max",
            date(2018, 11, 5),
        ),
        ("纳指2018年10月盘中最低价是多少，哪天？", "Low", "2018-10", "min", date(2018, 11, 5)),
    ],
)
async def test_a_daily_bar_field_not_the_close(
    data: Any, question: str, field: str, window: str, side: str, today: date
) -> None:
    bars = _nasdaq_bars().loc[window, field]
    day = bars.idxmax() if side == "max" else bars.idxmin()
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{bars.loc[day]:,.2f}" in answer.summary, answer.summary
    assert f"{day:%Y-%m-%d}" in answer.summary, answer.summary
    closes = _nasdaq_bars().loc[window, "Close"]
    extreme_close = closes.max() if side == "max" else closes.min()
    assert f"{extreme_close:,.2f}" not in answer.summary


async def test_two_bar_fields_at_once_are_declined(data: Any) -> None:
    answer = await ask_offline("Nasdaq intraday high and low in October 2018", date(2018, 11, 5))
    assert answer.status == "no_data"
    assert "high and low" in (answer.message or "")


@pytest.mark.parametrize(
    "question",
    [
        "goog o/h/l/c on 10/13/08?",
        "GOOG open, high, low and close on 2008-10-13",
        "谷歌2008年10月13日的开盘价、最高价、最低价和收盘价",
    ],
)
async def test_one_sessions_open_high_low_and_close(data: Any, question: str) -> None:
    from support.asking import bokeh_series

    day = "2008-10-13"
    bar = {f: float(bokeh_series("GOOG", f).loc[day]) for f in ("open", "high", "low", "close")}
    answer = await ask_offline(question, date(2008, 10, 20))
    assert answer.status == "ok", answer.message
    for value in bar.values():
        assert f"{value:,.2f}" in answer.summary, answer.summary


async def test_a_basket_beside_a_benchmark_names_each_line(data: Any) -> None:
    answer = await ask_offline(
        "60/40 AAPL/MSFT vs the S&P 500 in 2019, closing levels", date(2020, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert "S&P 500's 60/40" not in answer.summary and "60/40 AAPL/MSFT's 60/40" not in (
        answer.summary
    ), answer.summary


async def test_a_realized_vol_of_its_own_length_on_a_us_date(data: Any) -> None:
    closes = _closes("UNH").loc[:"2022-06-30"]
    returns = closes.pct_change().dropna().iloc[-30:]
    expected = returns.std(ddof=1) * 252**0.5 * 100
    answer = await ask_offline("UNH 30d realized vol (annualized) as of 6/30/22?", date(2022, 7, 1))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in first_sentence(answer.summary), answer.summary
