"""Classes a fresh blind set found, now read:

- how a daily leverage is kept, said apart from it ("两倍日杠杆做多标普500（每日调仓，不计费用）"),
  describes the leverage: the year's return at that leverage, never a chart of daily returns;
- "out of the 120 months …, what share did it finish up" counts the months up and gives the
  share;
- a quantity's own verbs ("shrink", "grow") count its periods down or up;
- periods asked "how many" are honoured only by a count: a level of a quarterly series is no
  answer to "in how many quarters".

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


async def test_a_leverage_kept_daily_said_apart_is_the_levered_years_return(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2018-12-31":"2019-12-31"]
    levered = ((closes.pct_change().dropna() * 2 + 1).prod() - 1) * 100
    question = "如果2019年用两倍日杠杆做多标普500（每日调仓，不计费用），全年收益是多少？"
    answer = await ask_offline(question, date(2020, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{levered:.2f}%" in answer.summary, answer.summary


async def test_what_share_of_months_finished_up(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2009-12-31":"2019-12-31"]
    monthly = closes.resample("ME").last().pct_change().dropna()
    up = int((monthly > 0).sum())
    answer = await ask_offline(
        "Out of the 120 months from 2010 through 2019, what share did the S&P 500 finish up?",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{up} of {len(monthly)}" in answer.summary, answer.summary
    assert f"{up / len(monthly) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_quantitys_own_verbs_count_its_periods(data: Any) -> None:
    investment = series_values(data, "GPDIC1").loc["2002-10-01":"2007-12-31"]
    changes = investment.diff().dropna()
    down = int((changes < 0).sum())
    answer = await ask_offline(
        "From 2003 through 2007, in how many quarters did US real private investment shrink?",
        date(2008, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"fell in {down}" in answer.summary, answer.summary


async def test_periods_asked_how_many_are_honoured_only_by_a_count(data: Any) -> None:
    answer = await ask_offline(
        "From 2003 through 2007, in how many quarters did US real private investment wobble?",
        date(2008, 3, 1),
    )
    assert answer.status != "ok", answer.summary


async def test_the_same_count_asked_again_for_its_share_is_one_tally(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc["2009-12-31":"2019-12-31"]
    monthly = closes.resample("ME").last().pct_change().dropna()
    up = int((monthly > 0).sum())
    answer = await ask_offline(
        "2010到2019年，标普500有多少个月是上涨的？上涨月份占比多少？", date(2020, 1, 15)
    )
    assert answer.status == "ok", answer.message
    assert f"{up}个月上涨" in answer.summary, answer.summary
    assert f"{up / len(monthly) * 100:.2f}%" in answer.summary, answer.summary
