"""Classes two blind sets (blind89, blind90) declined though the data answer them, or answered
"ok" with other figures, each failing before its fix:

- Cantonese best and worst quarters: 邊季升得最多、邊季跌得最多, 最好嗰季同最差嗰季 (was "one
  thing to rank");
- the asker's age ("I'm 71 and trying to understand what I sat through") is who asks, no
  number to read (was declined);
- "Should I sell my GE shares and move everything into P&G?": advice, whatever "move" is
  (was a line chart of both);
- 有几天单日涨幅超过3%？最大单日涨幅是哪一天: the count and the best day (was the count alone,
  declined for the date);
- 金融危机那几年定投…假设2007年1月到2009年12月: the dates written decide the regular buying's
  window, not the crisis named before them (was cut at the crisis low);
- "- need it for a hedge ratio", "Building a hedge ratio: …": what the answer is for, no ratio
  asked (was declined);
- blind90: a figure a newsletter "brags" about is checked; the asker's life told first (我今年29,
  "after 30 years as a machinist") is no window; "the best day and which the worst" beside a
  count; "the worst drop from a high to a low" is the maximum drawdown; "what does that work out
  to per year" beside each name's total return.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask_offline, shown
from support.numeric_expect import source_frame


def _quarters(ticker: str, year: str) -> pd.Series:
    closes = source_frame("skfolio_sp500")[ticker].dropna()
    ends = closes.loc[: f"{year}-12-31"].resample("QE").last()
    return (ends.pct_change() * 100).loc[year]


@pytest.mark.parametrize(
    ("question", "ticker", "year", "today"),
    [
        (
            "美國銀行2009年四個季度入面，邊季升得最多、邊季跌得最多？數字都畀埋我吖，唔該",
            "BAC",
            "2009",
            date(2010, 1, 20),
        ),
        (
            "微軟2008年逐季計，最好嗰季同最差嗰季分別係邊個季度？回報各係幾多？",
            "MSFT",
            "2008",
            date(2009, 2, 14),
        ),
    ],
)
async def test_cantonese_best_and_worst_quarters(
    question: str, ticker: str, year: str, today: date
) -> None:
    quarters = _quarters(ticker, year)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for day in (quarters.idxmax(), quarters.idxmin()):
        assert f"{quarters[day]:.2f}%" in answer.summary, answer.summary
        assert f"{day.year}Q{day.quarter}" in answer.summary, answer.summary


async def test_the_askers_age_is_no_number_asked(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["HD"].dropna().loc["2017-12-29":"2018-12-31"]
    drawdown = (closes / closes.cummax() - 1) * 100
    trough = drawdown.idxmin()
    peak = closes.loc[:trough].idxmax()
    answer = await ask_offline(
        "Home Depot maximum drawdown during calendar year 2018 please, with the date of the top "
        "and the date of the bottom. I'm 71 and trying to understand what I sat through.",
        date(2019, 6, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{drawdown.min():.2f}%" in answer.summary, answer.summary
    assert f"{peak:%Y-%m-%d}" in answer.summary and f"{trough:%Y-%m-%d}" in answer.summary


async def test_advice_to_move_everything_is_advice(data: Any) -> None:
    answer = await ask_offline(
        "I'm 68 and just retired. Should I sell my General Electric shares and move everything "
        "into Procter & Gamble? What would you do in my place?",
        date(2019, 9, 10),
    )
    assert answer.status == "out_of_scope", answer.summary


async def test_a_count_of_big_days_and_the_biggest_day(data: Any) -> None:
    closes = source_frame("arch_nasdaq")["^IXIC"]
    returns = (closes.pct_change() * 100).loc["2001"]
    answer = await ask_offline(
        "2001年那斯達克指數有幾天單日漲幅超過3%？最大單日漲幅是哪一天、漲了多少？",
        date(2002, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{int((returns > 3).sum())}个交易日" in answer.summary, answer.summary
    best = returns.idxmax()
    assert f"{best:%Y-%m-%d}" in answer.summary and f"{returns[best]:.2f}%" in answer.summary


async def test_written_dates_decide_regular_buying_beside_a_named_crisis(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna().loc["2007-01-01":"2009-12-31"]
    firsts = closes.groupby(closes.index.to_period("M")).head(1)
    shares = (1500 / firsts).sum()
    worth = shares * closes.iloc[-1]
    answer = await ask_offline(
        "金融危机那几年定投标普500会亏吗？假设2007年1月到2009年12月，每月第一个交易日收盘投1500美元，"
        "到2009年底值多少，盈亏多少？",
        date(2010, 2, 8),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary
    assert f"{abs(worth - 1500 * len(firsts)):,.2f}" in answer.summary, answer.summary


async def test_what_the_answer_is_for_asks_no_ratio(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["WMT"]].join(source_frame("skfolio_index")["^GSPC"])
    returns = closes.loc["2007-12-31":"2008-12-31"].pct_change().dropna()
    beta = returns["WMT"].cov(returns["^GSPC"]) / returns["^GSPC"].var()
    answer = await ask_offline(
        "Walmart's beta relative to the S&P 500 during 2008 using daily returns - need it for a "
        "hedge ratio.",
        date(2009, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{beta:.2f}" in shown(answer), answer.summary


# blind90: a claim bragged about, the asker's life told first, both days of a count.


async def test_a_bragged_figure_is_checked(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["BBY"]].join(source_frame("skfolio_index")["^GSPC"])
    returns = (closes.loc["2019-12-31"] / closes.loc["2018-12-31"] - 1) * 100
    answer = await ask_offline(
        "A stock-picking newsletter brags that Best Buy was up more than 80% in 2019. Is that "
        "actually right? And how did it stack up against the S&P 500 that year?",
        date(2020, 2, 1),
    )
    assert answer.status == "ok", answer.message
    for value in returns:
        assert f"{value:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "today"),
    [
        (
            "我今年29，在杭州做UI设计，老婆刚生了二胎，手上有点闲钱买了微软和苹果。想问下2020年这俩谁涨得多？各涨了多少？",
            date(2021, 1, 10),
        ),
        (
            "I'm 62, just retired after 30 years as a machinist, and I hold Microsoft and Apple. "
            "What did each one return in 2020?",
            date(2021, 1, 10),
        ),
    ],
)
async def test_the_askers_life_is_no_window(question: str, today: date) -> None:
    closes = source_frame("skfolio_sp500")[["MSFT", "AAPL"]]
    returns = (closes.loc["2020-12-31"] / closes.loc["2019-12-31"] - 1) * 100
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert answer.intent is not None and answer.intent.start == date(2020, 1, 1)
    for value in returns:
        assert f"{value:.2f}%" in answer.summary, answer.summary


async def test_a_count_with_the_best_day_and_which_the_worst(data: Any) -> None:
    returns = (source_frame("skfolio_index")["^GSPC"].pct_change() * 100).loc["2020-03"]
    answer = await ask_offline(
        "Writing tonight's issue and still shell-shocked. Last month, how many days did the "
        "S&P 500 close up or down by more than 4%? Which was the best day and which the worst?",
        date(2020, 4, 3),
    )
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{int((returns.abs() > 4).sum())} of" in text, text
    for day in (returns.idxmax(), returns.idxmin()):
        assert f"{day:%Y-%m-%d}" in text and f"{returns[day]:.2f}%" in text, text


async def test_a_drop_from_a_high_to_a_low_beside_the_years_return(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["KO"].loc["2007-12-31":"2008-12-31"]
    drawdown = (closes / closes.cummax() - 1) * 100
    answer = await ask_offline(
        "I'm retired and Coca-Cola has been my sleep-well-at-night stock for 30 years. How bad "
        "did it get in 2008? I'd like the worst drop from a high to a low during that year, the "
        "date of the high and the date of the low, and what the stock returned for 2008 as a "
        "whole.",
        date(2009, 2, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{drawdown.min():.2f}%" in answer.summary, answer.summary
    assert f"{(closes.iloc[-1] / closes.iloc[0] - 1) * 100:.2f}%" in answer.summary


async def test_a_yearly_rate_beside_each_ones_total(data: Any) -> None:
    closes = source_frame("skfolio_sp500")[["JNJ", "PG"]].loc[:"2021-06-25"]
    base = closes.loc[:"2018-06-25"].iloc[-1]
    end = closes.iloc[-1]
    years = (closes.index[-1] - closes.loc[:"2018-06-25"].index[-1]).days / 365.25
    answer = await ask_offline(
        "Over the past three years, what was JNJ and PG's total return, and what does that work "
        "out to per year?",
        date(2021, 6, 25),
    )
    assert answer.status == "ok", answer.message
    for ticker in ("JNJ", "PG"):
        total = (end[ticker] / base[ticker] - 1) * 100
        yearly = ((end[ticker] / base[ticker]) ** (1 / years) - 1) * 100
        assert f"{total:.2f}%" in answer.summary and f"{yearly:.2f}%" in answer.summary


# blind91: months counted beside the best month, a day trader's green and red days, a
# Cantonese doubling checked, the asker's context ("high school", 996, "without context").


def _months(ticker: str, year: str) -> pd.Series:
    closes = source_frame("skfolio_sp500")[ticker].dropna().loc[: f"{year}-12-31"]
    return (closes.resample("ME").last().pct_change() * 100).loc[year]


@pytest.mark.parametrize(
    ("question", "ticker", "year", "today"),
    [
        (
            "I teach high school econ and want a real example for class: in 2019, in how many "
            "months did Coca-Cola's stock go up, and which was its best month (and by how much)?",
            "KO",
            "2019",
            date(2020, 1, 20),
        ),
        (
            "For tomorrow's personal finance class: how many of the 12 months in 2011 did PepsiCo "
            "close up, and which month was the best one with its % gain?",
            "PEP",
            "2011",
            date(2012, 1, 15),
        ),
    ],
)
async def test_months_counted_beside_the_best_month(
    question: str, ticker: str, year: str, today: date
) -> None:
    months = _months(ticker, year)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"rose in {int((months > 0).sum())} of 12 months" in answer.summary, answer.summary
    best = months.idxmax()
    assert f"{best:%Y-%m}" in answer.summary and f"{months[best]:.2f}%" in answer.summary


@pytest.mark.parametrize(
    ("question", "ticker", "month", "today"),
    [
        (
            "day trading AMD all last month and got absolutely chopped lol. what was its single "
            "biggest green day last month and its worst red day? need the dates + the % moves",
            "AMD",
            "2020-03",
            date(2020, 4, 6),
        ),
        (
            "JPM in oct 2008 was insane. which day did it pop the most and which day did it dump "
            "the hardest? % moves pls",
            "JPM",
            "2008-10",
            date(2008, 11, 5),
        ),
    ],
)
async def test_a_day_traders_best_and_worst_days(
    question: str, ticker: str, month: str, today: date
) -> None:
    returns = (source_frame("skfolio_sp500")[ticker].pct_change() * 100).loc[month]
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for day in (returns.idxmax(), returns.idxmin()):
        assert f"{day:%Y-%m-%d}" in answer.summary and f"{returns[day]:.2f}%" in answer.summary


async def test_a_cantonese_doubling_checked(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["XOM"]
    change = (closes.loc["2022-06-08"] / closes.loc["2020-10-30"] - 1) * 100
    answer = await ask_offline(
        "埃克森美孚由2020年10月30號收市到2022年6月8號收市，有冇翻倍呀？升咗幾多個%？",
        date(2022, 6, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_work_schedule_is_no_number_asked(data: Any) -> None:
    answer = await ask_offline(
        "纳指去年最长连跌纪录是几天啊，起止日期？在深圳天天996没空自己算", date(2012, 3, 5)
    )
    assert answer.status == "ok", answer.message


async def test_without_context_leaves_no_name_out(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["KO"].loc["2018-12-31":"2019-12-31"]
    volatility = closes.pct_change().dropna().std() * 252**0.5 * 100
    answer = await ask_offline(
        "i sell covered calls on KO. my broker shows an IV number that means nothing to me "
        "without context, so just the realized side: what was KO's annualized historical "
        "volatility for calendar 2019 (daily returns, sqrt 252)?",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{volatility:.2f}%" in answer.summary, answer.summary


async def test_a_name_glossed_by_an_unknown_code_is_that_unknown_thing(data: Any) -> None:
    answer = await ask_offline(
        "How many years between 2000 and 2017 was the momentum factor (UMD) negative, and which "
        "year was worst?",
        date(2019, 1, 15),
    )
    assert answer.status == "no_data", answer.summary
    assert "UMD" in (answer.message or ""), answer.message


async def test_than_the_same_month_a_year_earlier_is_the_yoy_change(data: Any) -> None:
    aaa = source_frame("arch_default")["AAA"].dropna()
    move = (aaa.loc["2018-11-01"] - aaa.loc["2017-11-01"]) * 100
    answer = await ask_offline(
        "where did Moody's Aaa print last month, and how many bps higher was that than the same "
        "month a year earlier?",
        date(2018, 12, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{aaa.loc['2017-11-01']:.2f}%" in answer.summary, answer.summary
    assert f"{round(move)} basis points" in answer.summary, answer.summary
