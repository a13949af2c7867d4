"""Classes a fresh blind set (blind71) found, each failing before its fix:

- equal sums put into two names and valued on the same day: the dollars between the two
  holdings ("how many dollars apart", 相差多少美元) — was each holding alone, an ok about part
  of the question; with a name that has no data, declined;
- a rate's level at two months set against each other ("Dec 2008 monthly reading vs Jun 2008 …
  the move in basis points") and "how many bp above the December 2007 print" — was each level
  restated in basis points;
- the best month and the compounded return of the whole window asked in a sentence of its own
  — the second was dropped;
- "how many of those months were negative" is a count the answer must give (declined when it
  cannot), never filler;
- a bracket describing the window after it ("(roughly oil's peak to its trough)") asks no
  measure; 从6月30日收盘算到12月31日收盘 is one range;
- 满仓梭哈能起飞不，给个准话 asks for advice;
- a sentence's first word, capitalised, before lower-case words is no unknown name.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _worth(ticker: str, amount: float, start: str, end: str) -> float:
    closes = _stock(ticker)
    return amount * closes.loc[:end].iloc[-1] / closes.loc[:start].iloc[-1]


async def test_the_dollars_between_two_equal_holdings(data: Any) -> None:
    apple = _worth("AAPL", 10_000, "2009-12-31", "2019-12-31")
    microsoft = _worth("MSFT", 10_000, "2009-12-31", "2019-12-31")
    answer = await ask_offline(
        "Post idea: if I'd put $10,000 into Apple and another $10,000 into Microsoft at the "
        "close on Dec 31, 2009 and checked at the close on Dec 31, 2019, what would each be "
        "worth and how many dollars apart would they be?",
        date(2020, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{abs(apple - microsoft):,.2f} USD above" in answer.summary, answer.summary
    jnj = _worth("JNJ", 40_000, "2011-12-31", "2016-12-31")
    pfe = _worth("PFE", 40_000, "2011-12-31", "2016-12-31")
    answer = await ask_offline(
        "写理财博客用：如果2012年初（按2011年最后一个交易日收盘买入）拿4万美元买强生，另外4万美元"
        "买辉瑞，一直拿到2016年最后一个交易日收盘，两笔钱各变成多少？相差多少美元？",
        date(2017, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"多{abs(jnj - pfe):,.2f}美元" in answer.summary, answer.summary
    answer = await ask_offline(
        "If I had invested $10k in Tesla vs $10k in Apple at the start of 2019, how many dollars "
        "more would the Tesla position be worth at the end of 2021?",
        date(2022, 2, 1),
    )
    assert answer.status == "no_data", answer.summary


async def test_a_rates_two_months_and_the_move_in_basis_points(data: Any) -> None:
    aaa = series_values(data, "AAA")
    move = round((aaa.loc["2008-12-01"] - aaa.loc["2008-06-01"]) * 100)
    answer = await ask_offline(
        "Aaa corporate yield: Dec 2008 monthly reading vs Jun 2008. Give me both levels and the "
        "move in basis points.",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{move} basis points" in answer.summary, answer.summary
    for month in ("2008-12-01", "2008-06-01"):
        assert f"{aaa.loc[month]:.2f}%" in answer.summary, (month, answer.summary)
    baa = series_values(data, "BAA")
    above = round((baa.loc["2008-11-01"] - baa.loc["2007-12-01"]) * 100)
    answer = await ask_offline(
        "Moody's Baa corporate yield for November 2008 — and how many bp above the December "
        "2007 print was that?",
        date(2009, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{above} basis points" in answer.summary, answer.summary


async def test_the_best_month_and_the_whole_windows_compounded_return(data: Any) -> None:
    hml = series_values(data, "FF_HML").loc["2000-03":"2002-12"]
    compounded = ((1 + hml / 100).prod() - 1) * 100
    for question in (
        "HML from March 2000 to December 2002: which month was best and by how much? And what "
        "was the compounded cumulative return over the whole period?",
        "价值因子HML从2000年3月到2002年12月，哪个月表现最好、当月收益多少？这段时间按月复利累计"
        "收益是多少？",
    ):
        answer = await ask_offline(question, date(2003, 2, 1))
        assert answer.status == "ok", answer.message
        assert f"{compounded:.2f}%" in answer.summary, (question, answer.summary)
        assert f"{hml.max():.2f}%" in answer.summary, (question, answer.summary)


async def test_how_many_of_those_months_is_a_count(data: Any) -> None:
    answer = await ask_offline(
        "HML 2007 through 2010 — compound the 48 monthly returns for me, and tell me how many of "
        "those months were negative.",
        date(2011, 2, 1),
    )
    assert answer.status == "no_data", answer.summary  # never the compounded return alone


async def test_a_bracket_describing_the_window(data: Any) -> None:
    xom = _stock("XOM")
    move = (xom.loc[:"2016-02-11"].iloc[-1] / xom.loc[:"2014-06-20"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "From the close on June 20, 2014 to the close on Feb 11, 2016 (roughly oil's peak to its "
        "trough), what were Exxon's and Chevron's returns on adjusted closes, and how much did "
        "the daily WTI spot price change over exactly the same window?",
        date(2016, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary and "mean" not in answer.summary, answer.summary
    move = (xom.loc[:"2008-12-31"].iloc[-1] / xom.loc[:"2008-06-30"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "2008年下半年（从6月30日收盘算到12月31日收盘），埃克森美孚和雪佛龙的股价回报分别是多少？"
        "同一时段WTI原油日度现货价格跌了多少？",
        date(2009, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary, answer.summary


async def test_all_in_and_tell_me_straight_is_advice(data: Any) -> None:
    answer = await ask_offline("AMD跌成这样，现在满仓梭哈能起飞不？给个准话", date(2022, 1, 10))
    assert answer.status == "out_of_scope", answer.summary


async def test_a_sentences_first_word_is_no_name(data: Any) -> None:
    answer = await ask_offline(
        "Factor ETF showdown for the blog: $15,000 in MTUM vs $15,000 in VLUE, bought at the Dec "
        "31, 2014 close and valued at the Dec 31, 2021 close. Ending balances and the gap in "
        "dollars?",
        date(2022, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert "Ending" not in answer.summary, answer.summary
    # a name nobody knows still is one, first in its sentence or not
    answer = await ask_offline("Apple return in 2019. Zorblax too?", date(2020, 2, 1))
    assert "Zorblax" in answer.summary, answer.summary


async def test_a_two_digit_years_end(data: Any) -> None:
    spx = source_frame("skfolio_index")["^GSPC"].dropna()
    move = (spx.loc["2009-12-31"] / spx.loc["2009-03-09"] - 1) * 100
    answer = await ask_offline("标普从2009年3月9号收盘算到09年底，涨了多少", date(2010, 2, 1))
    assert answer.status == "ok", answer.message
    assert f"{move:.2f}%" in answer.summary, answer.summary


async def test_a_zero_risk_free_rate_said_as_taken_for(data: Any) -> None:
    closes = _stock("MSFT").loc[:"2021-12-31"]
    moves = closes.loc["2020-12-31":].pct_change().dropna()
    sharpe = moves.mean() / moves.std() * 252**0.5
    answer = await ask_offline(
        "請問微軟去年的年化波動率是多少？夏普比率呢？無風險利率當作0就好。", date(2022, 2, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{sharpe:.2f}" in answer.summary, answer.summary


async def test_dividend_investors_ask_no_dividends(data: Any) -> None:
    coke = _worth("KO", 6_000, "2014-12-31", "2019-12-31")
    pepsi = _worth("PEP", 6_000, "2014-12-31", "2019-12-31")
    answer = await ask_offline(
        "Coke vs Pepsi for my dividend-investing readers: 6k in each, held over the five calendar "
        "years 2015 through 2019 (from the 2014 year-end close). Ending value of each and the "
        "difference in dollars?",
        date(2020, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{abs(pepsi - coke):,.2f} USD above" in answer.summary, answer.summary
    assert "Ending" not in answer.summary, answer.summary  # a sentence's first word, no name


async def test_one_quarter_over_another_decides_over_each_quarter(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    start, end = gdp.loc["1990-10-01"], gdp.loc["1991-10-01"]
    answer = await ask_offline(
        "1990年四季度和1991年四季度美国实际GDP分别是多少？按1991年四季度对1990年四季度算，"
        "增长了百分之几？",
        date(1992, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for figure in (f"{start:,.2f}", f"{end:,.2f}", f"{(end / start - 1) * 100:.2f}%"):
        assert figure in answer.summary, (figure, answer.summary)


async def test_levels_of_two_quarters_joined_into_one_window(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    inside = gdp.loc["2001-01-01":"2001-07-01"]
    answer = await ask_offline(
        "Real GDP (GDPC1) levels for 2000Q4 and 2001Q4, and which quarter in between (2001Q1 to "
        "2001Q3) was the lowest?",
        date(2002, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for figure in (gdp.loc["2000-10-01"], gdp.loc["2001-10-01"], inside.min()):
        assert f"{figure:,.2f}" in answer.summary, (figure, answer.summary)
