"""Classes a blind set (blind84) answered "ok" with other figures, or declined though its data
answers them, each failing before its fix:

- how many sessions closed above a level "and when was the first one" (第一次收在3000点上方是
  哪一天, "which day was the first", "the date of the first close above that level", "how many
  closes above 1500"): the count with its first and last such sessions (was the count alone,
  "ok", or declined);
- two names' "return for the year, maximum drawdown, and the date each hit its low point": the
  year's return beside the drawdowns (was daily returns' statistics);
- "their annualised vols": the volatility (was the annualised return);
- 2019年年底比年初涨了还是跌了（从2018年最后一个交易日收盘算起）: the year measured from its base
  (was the base to today);
- a rate's points change between two quarters beside its peak over a longer span: both said
  (was the statistics alone);
- 投5000美元… 到…还剩多少: the sum's worth (was declined).

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline
from support.numeric_expect import source_frame


def _index() -> pd.Series:
    return source_frame("skfolio_index")["^GSPC"].dropna()


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


async def test_a_count_above_a_level_and_its_first_session(data: Any) -> None:
    closes = _index().loc["2019"]
    above = closes[closes > 3000]
    answer = await ask_offline(
        "标普500在2019年有多少个交易日收盘高于3000点？第一次收在3000点上方是哪一天？",
        date(2020, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"有{len(above)}个交易日收盘高于3000" in answer.summary, answer.summary
    assert f"第一次在{above.index[0]:%Y-%m-%d}" in answer.summary, answer.summary


async def test_how_many_closes_above_and_the_date_of_the_first(data: Any) -> None:
    closes = _index().loc["2014"]
    above = closes[closes > 1900]
    answer = await ask_offline(
        "S&P 500 in 2014 - how many closes above 1900 did we get, and what was the date of the "
        "first one?",
        date(2015, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"on {len(above)} of {len(closes)} trading sessions" in answer.summary
    assert f"the first was {above.index[0]:%Y-%m-%d}" in answer.summary, answer.summary


async def test_each_names_year_return_beside_its_drawdown_and_low(data: Any) -> None:
    returns = {
        t: (_stock(t).loc[:"2020-12-31"].iloc[-1] / _stock(t).loc[:"2019-12-31"].iloc[-1] - 1) * 100
        for t in ("JPM", "BAC")
    }
    answer = await ask_offline(
        "JPMorgan vs Bank of America for calendar 2020: each one's return for the year, its "
        "maximum drawdown, and the date each hit its low point.",
        date(2021, 1, 20),
    )
    assert answer.status == "ok", answer.message
    for ticker, value in returns.items():
        assert f"{value:.2f}%" in answer.summary, (ticker, answer.summary)
    assert "daily return" not in answer.summary, answer.summary


async def test_annualised_vols_are_volatilities(data: Any) -> None:
    moves = _stock("KO").loc["2015-12-31":"2016-12-30"].pct_change().dropna()
    vol = moves.std() * 252**0.5 * 100
    answer = await ask_offline(
        "can u pull the correlation between Coca-Cola and Pepsi daily returns for calendar 2016? "
        "and their annualised vols too",
        date(2017, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"annualised volatility in 2016 was {vol:.2f}%" in answer.summary, answer.summary


async def test_a_year_measured_from_the_base_said_after_it(data: Any) -> None:
    closes = _stock("JNJ")
    change = (closes.loc[:"2017-12-29"].iloc[-1] / closes.loc[:"2016-12-30"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "强生2017年年底比年初是涨了还是跌了？涨跌多少？（从2016年最后一个交易日收盘算起）",
        date(2018, 3, 5),
    )
    assert answer.status == "ok", answer.message
    assert f"2017年的收益率为{change:.2f}%" in answer.summary, answer.summary


async def test_a_rates_change_between_quarters_beside_its_peak_over_a_span(data: Any) -> None:
    rate = source_frame("statsmodels_macro")["UNRATE"]
    moved = rate[pd.Timestamp("1982-10-01")] - rate[pd.Timestamp("1981-07-01")]
    peak = rate.loc["1981":"1983"]
    answer = await ask_offline(
        "For my recession series: points change in the jobless rate from 1981Q3 to 1982Q4, and "
        "the peak level and its quarter over 1981-1983?",
        date(1985, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"up {moved:.2f} percentage points" in answer.summary, answer.summary
    assert f"max {peak.max():.2f}% on {peak.idxmax():%Y-%m-%d}" in answer.summary


async def test_what_is_left_of_a_sum_put_in(data: Any) -> None:
    closes = source_frame("arch_nasdaq")["^IXIC"].dropna()
    worth = 5000 * closes.loc[:"2002-10-09"].iloc[-1] / closes.loc[:"2000-03-10"].iloc[-1]
    answer = await ask_offline(
        "我在寫報告，想知道2000年3月10日收盤時投5000美元到那斯達克綜合指數，到2002年10月9日收盤"
        "還剩多少？",
        date(2003, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary
