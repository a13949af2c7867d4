"""Classes a fresh blind set (blind66) found, each failing before its fix:

- "where was it in Dec 2007 vs Dec 2008, and how many bp did it widen over that year": the
  two levels and the move between them ("bp" as "bps"; "that year" the window named);
- best 跟 worst months, 表现最好的又是哪一季, 最好和最差的各是哪一季: both sides, and 哪一季度 /
  哪一季 is "which quarter", never the first quarter nor the past quarter;
- "the widest Brent premium" by month is the spread's extreme (a premium of one over another);
- a spread's move between two months is said in its unit ("narrowed by how many dollars").

And classes it declined: "the spread between #1 and #4" / "between the leader and the
laggard" of a ranking; "the gain in dollars", 赚了多少美元 of a sum put in.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


def _closes(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _period_returns(ticker: str, start: str, end: str, rule: str) -> pd.Series:
    closes = _closes(ticker).loc[start:end]
    return closes.resample(rule).last().pct_change().dropna() * 100


async def test_two_months_and_the_bp_move_over_that_year(data: Any) -> None:
    baa = series_values(data, "BAA")
    before, after = baa.loc["2007-12-01"], baa.loc["2008-12-01"]
    answer = await ask_offline(
        "Moody's Baa corporate yield: where was it in Dec 2007 vs Dec 2008 (monthly readings), "
        "and how many bp did it widen over that year?",
        date(2009, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{before:.2f}%" in answer.summary and f"{after:.2f}%" in answer.summary
    assert f"{round((after - before) * 100)} basis points" in answer.summary, answer.summary


async def test_best_and_worst_months_said_with_gen(data: Any) -> None:
    months = _period_returns("MSFT", "2018-12", "2019-12", "ME")
    answer = await ask_offline(
        "請問微軟2019年表現最好跟最差的月份分別是哪個月？月報酬率各是多少？", date(2020, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{months.max():.2f}%" in answer.summary, answer.summary
    assert f"{months.min():.2f}%" in answer.summary, answer.summary
    assert months.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_which_quarter_is_never_the_first_quarter(data: Any) -> None:
    quarters = _period_returns("AAPL", "2007-12", "2008-12", "QE")
    answer = await ask_offline(
        "蘋果2008年哪一季跌最兇？跌了幾%？表現最好的又是哪一季？", date(2009, 1, 20)
    )
    assert answer.status == "ok", answer.message
    assert f"{quarters.min():.2f}%" in answer.summary, answer.summary
    assert f"{quarters.max():.2f}%" in answer.summary, answer.summary
    plain = await ask_offline("苹果2008年哪一季度跌最凶？", date(2009, 1, 20))
    assert plain.intent is not None and plain.intent.end == date(2008, 12, 31), plain.intent
    assert f"{quarters.min():.2f}%" in plain.summary, plain.summary
    xom = _period_returns("XOM", "2019-12", "2020-12", "QE")
    both = await ask_offline(
        "埃克森美孚2020年四個季度裡，報酬最好和最差的各是哪一季？數字多少？", date(2021, 2, 1)
    )
    assert f"{xom.max():.2f}%" in both.summary and f"{xom.min():.2f}%" in both.summary


async def test_the_widest_premium_by_month_is_the_spreads_extreme(data: Any) -> None:
    gap = (series_values(data, "MCOILBRENTEU") - series_values(data, "MCOILWTICO")).loc["2011"]
    answer = await ask_offline(
        "Brent vs WTI on monthly average prices: which month in 2011 had the widest Brent "
        "premium, and how many $/bbl was it?",
        date(2012, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{gap.max():.2f}" in answer.summary, answer.summary
    assert gap.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_a_spreads_move_is_said_in_its_unit(data: Any) -> None:
    gap = series_values(data, "MCOILBRENTEU") - series_values(data, "MCOILWTICO")
    before, after = gap.loc["2013-09-01"], gap.loc["2014-09-01"]
    answer = await ask_offline(
        "How much pricier was Brent than WTI in September 2013, and in September 2014? use the "
        "monthly prices. By how many dollars did the gap narrow?",
        date(2015, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"down {before - after:.2f} USD per barrel" in answer.summary, answer.summary


async def test_the_spread_between_a_rankings_ends(data: Any) -> None:
    returns = {
        t: (_closes(t).loc["2019-12-31"] / _closes(t).loc[:"2018-12-31"].iloc[-1] - 1) * 100
        for t in ("JPM", "BAC", "AAPL", "MSFT")
    }
    answer = await ask_offline(
        "pulling together bank vs big tech for a note: JPM, BAC, AAPL and MSFT, full-year 2019 "
        "total return. rank them and give me the spread between #1 and #4 in pts",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    spread = max(returns.values()) - min(returns.values())
    assert f"by {spread:.2f} percentage points" in answer.summary, answer.summary


async def test_the_gain_in_dollars_of_a_sum_put_in(data: Any) -> None:
    closes = _closes("UNH")
    value = 200_000 * closes.loc["2019-12-31"] / closes.loc[:"2015-12-31"].iloc[-1]
    answer = await ask_offline(
        "客户2016年初拿20万美元买了联合健康（UNH），一直拿到2019年底，值多少钱？一共赚了多少美元？",
        date(2020, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{value:,.0f}" in answer.summary, answer.summary
    assert f"{value - 200_000:,.0f}" in answer.summary, answer.summary
