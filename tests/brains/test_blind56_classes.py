"""Classes a fresh blind set (blind56) found, each failing before its fix:

- a window dated by an occasion the reader cannot date ("from the close on the day Obama was
  first sworn in to the last close of his first term", "the day my grandfather retired") is
  declined, naming the words: never answered over the past year, or over one day;
- occasions of record date a window: the year Trump was elected, 美股熔断了四次的那个月, the
  day Lehman filed for bankruptcy, "since Silicon Valley Bank collapsed" (after the data: no
  data, not the past year);
- "only counting the days it closed up", "on up days", 只算上涨的日子: the mean over those days;
- "than when I opened my bakery" tells; it asks for no date.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline
from support.numeric_expect import source_frame


@pytest.mark.parametrize(
    ("question", "today", "said"),
    [
        (
            "From the close on the day Obama was first sworn in to the last close of his first "
            "term, how much did the S&P 500 rise?",
            date(2013, 6, 1),
            "the last close of his first term",
        ),
        (
            "How much has Apple gained since the day my grandfather retired?",
            date(2020, 6, 1),
            "grandfather retired",
        ),
        ("可口可乐在我儿子出生的那一年涨了多少？", date(2020, 6, 1), "儿子出生"),
    ],
)
async def test_a_window_dated_by_an_occasion_not_read_is_declined(
    data: Any, question: str, today: date, said: str
) -> None:
    answer = await ask_offline(question, today)
    assert answer.status == "no_data", answer.summary
    assert said in (answer.message or ""), answer.message


def _change(entity: str, source: str, base: str, end: str) -> float:
    closes = source_frame(source)[entity].dropna()
    return float(closes.loc[:end].iloc[-1] / closes.loc[:base].iloc[-1] - 1) * 100


@pytest.mark.parametrize(
    ("question", "today", "entity", "source", "base", "end"),
    [
        (
            "特朗普当选总统的那一年，埃克森美孚的股价全年涨了多少？",
            date(2017, 11, 8),
            "XOM",
            "skfolio_sp500",
            "2015-12-31",
            "2016-12-31",
        ),
        (
            "美股一个月里熔断了四次的那个月，标普500整个月跌了多少？",
            date(2020, 6, 15),
            "^GSPC",
            "skfolio_index",
            "2020-02-29",
            "2020-03-31",
        ),
        (
            "How much did Bank of America stock lose from the close on the day Lehman filed for "
            "bankruptcy to the end of 2008?",
            date(2009, 3, 1),
            "BAC",
            "skfolio_sp500",
            "2008-09-15",
            "2008-12-31",
        ),
    ],
)
async def test_occasions_of_record_date_the_window(
    data: Any, question: str, today: date, entity: str, source: str, base: str, end: str
) -> None:
    moved = _change(entity, source, base, end)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{moved:.2f}%" in answer.summary, answer.summary


async def test_an_occasion_after_the_data_has_no_data(data: Any) -> None:
    answer = await ask_offline(
        "How much has the S&P 500 moved since Silicon Valley Bank collapsed?", date(2023, 6, 30)
    )
    assert answer.status == "no_data", answer.summary
    assert "2023-03-10" in (answer.message or "") + " ".join(
        answer.intent.trace if answer.intent else []
    )


@pytest.mark.parametrize(
    "question",
    [
        "Only counting the days it closed up, what was Walmart's average daily gain in 2019?",
        "What was Walmart's average daily return in 2019 on the days it rose?",
        "Walmart's average gain on up days in 2019",
        "只算上涨的日子，沃尔玛2019年平均每天涨多少？",
    ],
)
async def test_the_mean_over_a_names_own_up_days(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["WMT"].loc["2018-12-31":"2019-12-31"]
    daily = closes.pct_change().dropna() * 100
    up = daily[daily > 0]
    answer = await ask_offline(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{up.mean():.2f}%" in answer.summary, answer.summary
    assert str(len(up)) in answer.summary


async def test_a_when_that_tells_asks_no_date(data: Any) -> None:
    cpi = source_frame("statsmodels_macro")["CPIAUCSL"].dropna()
    rise = float(cpi.loc["2008-10-01"] / cpi.loc["2000-01-01"] - 1) * 100
    answer = await ask_offline(
        "Prices feel way higher than when I opened my bakery. How much did the consumer price "
        "index go up in total from the first quarter of 2000 to the fourth quarter of 2008?",
        date(2009, 6, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{rise:.2f}%" in answer.summary, answer.summary


async def test_a_day_in_brackets_after_an_occasion_names_its_anchor(data: Any) -> None:
    moved = _change("^GSPC", "skfolio_index", "2008-09-15", "2008-09-22")
    answer = await ask_offline(
        "S&P 500 in the week after the Lehman bankruptcy (Sept 15 2008), what was the return",
        date(2009, 1, 5),
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.2f}%" in answer.summary, answer.summary
    assert "2008-09-22" in answer.summary


@pytest.mark.parametrize(
    ("question", "today"),
    [
        (
            "Across the entire history you hold for the S&P 500, what were its single worst and "
            "single best daily percentage moves, and on which days did they happen?",
            date(2022, 12, 28),
        ),
        ("S&P 500 worst and best daily returns ever", date(2022, 12, 28)),
    ],
)
async def test_two_superlatives_over_one_noun_and_ever(
    data: Any, question: str, today: date
) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna().loc[: today.isoformat()]
    moves = closes.pct_change().dropna() * 100
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for shown in (
        f"{moves.max():.2f}%",
        f"{moves.idxmax():%Y-%m-%d}",
        f"{moves.min():.2f}%",
        f"{moves.idxmin():%Y-%m-%d}",
    ):
        assert shown in answer.summary, (shown, answer.summary)


@pytest.mark.parametrize(
    "question",
    [
        "Saw a headline claiming Exxon is up more than 80% this year. Legit?",
        "新闻说埃克森美孚今年涨了80%以上，是真的吗？",
    ],
)
async def test_a_claimed_change_is_checked_and_a_headline_asks_no_news(
    data: Any, question: str
) -> None:
    moved = _change("XOM", "skfolio_sp500", "2021-12-31", "2022-12-28")
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{moved:.2f}%" in answer.summary, answer.summary


async def test_a_claimed_level_reached_at_some_point_is_not_answered_with_the_average(
    data: Any,
) -> None:
    answer = await ask_offline(
        "A blog says Brent's monthly average price topped $140 at some point in 2008. Does the "
        "data back that up?",
        date(2009, 2, 1),
    )
    assert answer.status == "no_data", answer.summary


async def test_each_quarters_return_is_named_by_its_quarter(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["JPM"].loc[:"2018-12-31"]
    quarterly = closes.resample("QE").last().pct_change().loc["2018"] * 100
    answer = await ask_offline(
        "how did JPMorgan do in each quarter of 2018? quarterly returns pls", date(2019, 3, 1)
    )
    assert answer.status == "ok", answer.message
    table = next(o for o in answer.outputs if getattr(o, "rows", None))
    shown = {row[1]: row[2] for row in table.rows}
    for end, value in quarterly.items():
        assert shown[f"{end.year}Q{end.quarter}"] == pytest.approx(value, abs=0.01)


@pytest.mark.parametrize(
    "question",
    [
        "In the 1990s, in how many quarters was the US unemployment rate at or above 6%?",
        "In the 1990s, how many quarters was the US unemployment rate 6% or more?",
        "1990年代美国失业率在6%及以上（含6%）的季度一共有几个？",
    ],
)
async def test_quarters_at_or_above_a_level_count_the_level_itself(
    data: Any, question: str
) -> None:
    rate = source_frame("statsmodels_macro")["UNRATE"].loc["1990-01-01":"1999-12-31"]
    at_or_above = int((rate >= 6).sum())
    assert at_or_above != int((rate > 6).sum())  # the level is met exactly in some quarter
    answer = await ask_offline(question, date(2005, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{at_or_above}" in answer.summary and f"{len(rate)}" in answer.summary, answer.summary
    assert f"{at_or_above / len(rate) * 100:.2f}%" in answer.summary, answer.summary
