"""Classes two fresh blind sets (blind47, blind48) found, now read:

- a day or period said relative to today: 去年初, 前年底 (that year's edge, never this year's),
  去年这个时候 / "this time last year" (that day), 上上个月 / "the month before last", "since
  the end of the year before last";
- a length before a return or a change ("AAPL 5d chg", "the 5-day return"): the past that long;
- a bare change over a window ("how much did the S&P 500 change in 2020"): across the window,
  never the last day's change on the day before;
- a percent said in Chinese words (跌超百分之二, 两成);
- a gap between a ranking's ends (第一名比最后一名多多少), an excess return over a name ("how
  much did SIZE beat the S&P 500 by", 相对标普500的超额收益);
- an advice request said with "rotate";
- a method the reader does not apply (log returns, ddof=0, √250, no compounding, a geometric
  mean): `no_data` naming it, never the default figure.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline
from support.numeric_expect import source_frame

_FACTOR_ETFS = {"MTUM", "QUAL", "SIZE", "USMV", "VLUE"}


def _closes(ticker: str) -> Any:
    if ticker.startswith("^"):
        source = "skfolio_index"
    elif ticker in _FACTOR_ETFS:
        source = "skfolio_factors"
    else:
        source = "skfolio_sp500"
    return source_frame(source)[ticker]


def _since(ticker: str, base: str, end: str) -> float:
    closes = _closes(ticker)
    return float((closes.loc[:end].iloc[-1] / closes.loc[:base].iloc[-1] - 1) * 100)


@pytest.mark.parametrize(
    ("question", "today", "ticker", "base", "end"),
    [
        ("微软从前年底到现在涨了多少？", date(2022, 7, 29), "MSFT", "2020-12-31", "2022-07-29"),
        ("Microsoft's return since the end of the year before last", date(2022, 7, 29), "MSFT",
         "2020-12-31", "2022-07-29"),
        ("标普从去年这个时候到现在涨了多少啊", date(2021, 9, 15), "^GSPC", "2020-09-15",
         "2021-09-15"),
        ("How much is the S&P 500 up since this time last year?", date(2021, 9, 15), "^GSPC",
         "2020-09-15", "2021-09-15"),
        ("苹果上上个月涨了多少来着", date(2022, 5, 10), "AAPL", "2022-02-28", "2022-03-31"),
        ("Apple's return the month before last", date(2022, 5, 10), "AAPL", "2022-02-28",
         "2022-03-31"),
        ("AAPL 5d chg?", date(2022, 6, 15), "AAPL", "2022-06-10", "2022-06-15"),
        ("AAPL 5-day return", date(2022, 6, 15), "AAPL", "2022-06-10", "2022-06-15"),
        ("How much did the S&P 500 change in 2020?", date(2022, 6, 15), "^GSPC", "2019-12-31",
         "2020-12-31"),
    ],
)  # fmt: skip
async def test_relative_days_and_windows(
    data: Any, question: str, today: date, ticker: str, base: str, end: str
) -> None:
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{_since(ticker, base, end):.2f}%" in answer.summary, answer.summary


async def test_put_in_at_the_start_of_last_year(data: Any) -> None:
    closes = _closes("KO")
    worth = 10_000 * closes.loc["2022-06-30"] / closes.loc[:"2020-12-31"].iloc[-1]
    answer = await ask_offline("要是去年初往可口可乐里放一万美元，现在值多少钱", date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in answer.summary, answer.summary


async def test_a_percent_in_chinese_words_is_a_threshold(data: Any) -> None:
    returns = _closes("^GSPC").loc[:"2022-12-28"].pct_change().loc["2022"] * 100
    answer = await ask_offline("标普今年单日跌超百分之二的有几天", date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{int((returns < -2).sum())}个交易日" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "today", "names", "year_base", "end"),
    [
        ("五只因子ETF 2015年收益率排个名，第一名比最后一名多多少？", date(2016, 1, 15),
         ["MTUM", "QUAL", "SIZE", "USMV", "VLUE"], "2014-12-31", "2015-12-31"),
        ("How much did SIZE beat the S&P 500 by in the first half of 2022?", date(2022, 6, 30),
         ["SIZE", "^GSPC"], "2021-12-31", "2022-06-30"),
        ("SIZE今年YTD收益多少？相对标普500的超额收益是几个点？", date(2022, 6, 30),
         ["SIZE", "^GSPC"], "2021-12-31", "2022-06-30"),
    ],
)  # fmt: skip
async def test_the_gap_between_returns_is_said(
    data: Any, question: str, today: date, names: list[str], year_base: str, end: str
) -> None:
    returns = {n: _since(n, year_base, end) for n in names}
    gap = max(returns.values()) - min(returns.values())
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{gap:.2f}" in answer.summary, answer.summary


async def test_rotating_between_funds_is_advice(data: Any) -> None:
    answer = await ask_offline(
        "Should I rotate out of MTUM into USMV right now?", date(2022, 6, 30)
    )
    assert answer.status == "out_of_scope", answer.summary


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("For my homework: compute Apple's annualised volatility for 2019 (use log returns, "
         "sample std, annualised with sqrt(252)).", "log returns"),
        ("GE's annualized volatility for 2008 (population standard deviation, ddof=0, of daily "
         "simple returns, times sqrt(252)).", "population standard deviation"),
        ("WTI原油2016年的年化波动率是多少？（日收益率样本标准差×√250）", "√250"),
        ("把标普500 2021年每个月的月收益率（按月末收盘价算）简单相加、不复利，结果是多少？",
         "简单相加"),
        ("标普500在2019年的月度几何平均收益率是多少？（按月末收盘价计算）", "几何平均"),
    ],
)  # fmt: skip
async def test_a_method_not_applied_is_named_not_replaced(
    data: Any, question: str, said: str
) -> None:
    answer = await ask_offline(question, date(2023, 1, 15))
    assert answer.status == "no_data", answer.summary
    assert said in (answer.message or ""), answer.message


async def test_months_that_ended_higher_than_they_started(data: Any) -> None:
    """ "Higher than it started" is the side of a count, not a threshold ("higher than 100" is)."""
    closes = _closes("PEP").loc[:"2020-12-31"]
    ends = closes.resample("ME").last()
    monthly = (ends / ends.shift(1) - 1).loc["2016":"2020"]
    answer = await ask_offline(
        "Between January 2016 and December 2020, in how many months did PepsiCo end higher than "
        "it started?",
        date(2021, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{int((monthly > 0).sum())} of {len(monthly)} months" in answer.summary, answer.summary
