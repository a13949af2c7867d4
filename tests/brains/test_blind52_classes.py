"""Classes a fresh blind set (blind52) found, each failing before its fix:

- Cantonese as Hong Kong investors type it (升咗幾多, 邊三隻升得最勁, 收市價係幾多, 係邊日嚟㗎,
  幾多倍, 應唔應該入貨撈底) reads as the Mandarin it says: a stock's rise (升), which (邊 before a
  count), is (係, which OpenCC writes 系), these (呢幾隻), the close (收市價), buying the dip
  (入貨撈底, advice);
- a multiple claimed and checked ("is it true that AMD more than doubled in 2020?", 翻倍了吗,
  "buddy says it doubled. true?") is answered with the return over the window;
- "the factor ETFs ex-MTUM" leaves MTUM out;
- "the first 100 trading days of 2020" (2020年前100个交易日) runs to that session's day on the
  exchange's calendar, from the close before the year;
- "sqrt 252" in brackets after a measure says how it is computed (√252 is the convention);
  "sqrt 250" is another method, declined.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest
from support.asking import ask_offline
from support.numeric_expect import close_to_close, source_frame


def _return(ticker: str, start: str, end: str) -> float:
    return close_to_close(source_frame("skfolio_sp500")[ticker], start, end)


async def test_cantonese_rises_and_which_three(data: Any) -> None:
    names = ["AAPL", "MSFT", "AMD", "JPM", "XOM", "PFE"]
    returns = {n: _return(n, "2020-12-31", "2021-12-31") for n in names}
    top = sorted(returns, key=returns.__getitem__, reverse=True)[:3]
    answer = await ask_offline(
        "AAPL、MSFT、AMD、JPM、XOM、PFE 呢幾隻喺2021年邊三隻升得最勁？各自升咗幾多%？",
        date(2022, 1, 15),
    )
    assert answer.status == "ok", answer.message
    for name in top:
        assert f"{returns[name]:.2f}%" in answer.summary, answer.summary
    assert answer.summary.index(f"{returns[top[0]]:.2f}") < answer.summary.index(
        f"{returns[top[2]]:.2f}"
    )


async def test_cantonese_halves_are_each_their_own(data: Any) -> None:
    first = _return("WMT", "2020-12-31", "2021-06-30")
    second = _return("WMT", "2021-06-30", "2021-12-31")
    answer = await ask_offline("WMT 2021年上半年升咗幾多？下半年呢？", date(2022, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"{first:.2f}%" in answer.summary and f"{second:.2f}%" in answer.summary


async def test_cantonese_lowest_close_and_its_day(data: Any) -> None:
    march = source_frame("skfolio_sp500")["KO"].loc["2020-03-01":"2020-03-31"]
    answer = await ask_offline(
        "可口可樂 KO 喺2020年3月最低收市價係幾多？係邊日嚟㗎？", date(2020, 4, 20)
    )
    assert answer.status == "ok", answer.message
    assert f"{march.min():.2f}" in answer.summary, answer.summary
    assert march.idxmin().date().isoformat() in answer.summary, answer.summary


async def test_cantonese_times_another_and_buying_the_dip(data: Any) -> None:
    xom, cvx = (
        _return("XOM", "2020-12-31", "2021-12-31"),
        _return("CVX", "2020-12-31", "2021-12-31"),
    )
    answer = await ask_offline("2021年 XOM 嘅升幅係 CVX 嘅幾多倍？", date(2022, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{xom / cvx:.2f}" in answer.summary, answer.summary
    advice = await ask_offline(
        "AAPL 跌咗咁多，我應唔應該而家入貨撈底？定係再等等先？", date(2022, 12, 28)
    )
    assert advice.status == "out_of_scope", advice.summary


@pytest.mark.parametrize(
    ("question", "ticker", "start", "end", "today"),
    [
        (
            "Is it true that AMD more than doubled in 2020? What was the exact gain?",
            "AMD",
            "2019-12-31",
            "2020-12-31",
            date(2021, 1, 15),
        ),
        ("AMD前年是不是翻倍了？", "AMD", "2019-12-31", "2020-12-31", date(2022, 3, 1)),
        ("Did AMD double in 2020?", "AMD", "2019-12-31", "2020-12-31", date(2022, 3, 1)),
    ],
)
async def test_a_multiple_claimed_is_answered_with_the_return(
    data: Any, question: str, ticker: str, start: str, end: str, today: date
) -> None:
    made = _return(ticker, start, end)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary, answer.summary


async def test_ex_a_member_leaves_it_out(data: Any) -> None:
    closes = source_frame("skfolio_factors").loc["2020-12-31":"2021-12-31"]
    deepest = {c: float((closes[c] / closes[c].cummax() - 1).min() * 100) for c in closes}
    kept = {c: v for c, v in deepest.items() if c != "MTUM"}
    assert min(deepest, key=deepest.__getitem__) == "MTUM"  # leaving it in changes the answer
    worst = min(kept, key=kept.__getitem__)
    answer = await ask_offline(
        "Max drawdown in 2021 for the factor ETFs ex-MTUM -- which one had the deepest, and how "
        "deep was it?",
        date(2022, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"{kept[worst]:.2f}%" in answer.summary, answer.summary
    assert f"{deepest['MTUM']:.2f}%" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "AAPL total return over the first 100 trading days of 2020?",
        "苹果2020年前100个交易日的收益率",
    ],
)
async def test_a_years_first_sessions_counted(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    sessions = closes.loc["2020-01-01":"2020-12-31"]
    made = float((sessions.iloc[99] / closes.loc[:"2019-12-31"].iloc[-1] - 1) * 100)
    answer = await ask_offline(question, date(2020, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary, answer.summary
    assert sessions.index[99].date().isoformat() in answer.summary, answer.summary


async def test_a_square_root_in_brackets_says_the_method(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["XOM"].loc[:"2020-09-30"]
    window = closes.loc[closes.loc[:"2019-12-31"].index[-1] :]
    vol = float(window.pct_change().dropna().std(ddof=1) * np.sqrt(252) * 100)
    answer = await ask_offline(
        "XOM annualized volatilty over Q1-Q3 2020 (daily simple rets, sqrt 252)?", date(2020, 10, 5)
    )
    assert answer.status == "ok", answer.message
    assert f"{vol:.2f}%" in answer.summary, answer.summary
    other = await ask_offline(
        "XOM annualized volatility in 2020 (daily returns, sqrt 250)?", date(2021, 1, 5)
    )
    assert other.status == "no_data", other.summary
