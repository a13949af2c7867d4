"""A length anchored on a day or an episode is that window, not the default one.

"The month after 2020-03-23" starts on 2020-03-23 (its close is the base, as "since 2020-03-23")
and ends a month later; "the week before D" ends on D; "around D" / D前后 is D ± the length;
trading days are weekdays, as "the past 10 trading days" count them; an episode's edge ("the COVID
crash bottom") is its day of record. A length anchored on words nothing dates ("two weeks after
the Fukushima earthquake") is said to be unread, never answered over the past year as if it were
read; an occasion of record ("the 2008 election") dates it.
Expected returns are computed here with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.brains.offline.windows import read_time
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)

WINDOWS = [
    ("How did the S&P 500 do in the month after 2020-03-23?", "2020-03-23", "2020-04-23"),
    ("苹果在2020年3月23日之后一个月的涨幅", "2020-03-23", "2020-04-23"),
    ("the S&P 500 in the fortnight after 2019-08-05", "2019-08-05", "2019-08-19"),
    ("Apple in the week before 2020-03-23", "2020-03-16", "2020-03-23"),
    ("苹果2020年3月23日之前的一个月", "2020-02-23", "2020-03-23"),
    ("Microsoft over the two weeks following 8/5/2019", "2019-08-05", "2019-08-19"),
    ("the 3 months following March 23, 2020", "2020-03-23", "2020-06-23"),
    ("the month leading up to 2020-03-23", "2020-02-23", "2020-03-23"),
    ("a year after 2020-03-23", "2020-03-23", "2021-03-23"),
    ("the quarter after 23 March 2020", "2020-03-23", "2020-06-23"),
    ("2019年8月5日之后两周", "2019-08-05", "2019-08-19"),
    # trading days are weekdays (2021-01-15 is ten weekdays before 2021-01-29)
    ("AAPL in the 10 trading days before 2021-01-29", "2021-01-15", "2021-01-29"),
    ("苹果2021年1月29日之前10个交易日", "2021-01-15", "2021-01-29"),
    ("in the 5 trading days after March 23, 2020", "2020-03-23", "2020-03-30"),
    # around: the day ± the length
    ("the week surrounding 2020-03-23", "2020-03-16", "2020-03-30"),
    ("AAPL around 2020-03-23, two weeks either side", "2020-03-09", "2020-04-06"),
    ("标普500在2020年3月23日前后两周", "2020-03-09", "2020-04-06"),
    ("2020年3月23日前后各一周", "2020-03-16", "2020-03-30"),
    # an episode: after its end, before its start, or the edge named
    ("the month after the COVID crash bottom", "2020-03-23", "2020-04-23"),
    ("the month after the bottom of the covid crash", "2020-03-23", "2020-04-23"),
    ("疫情暴跌低点之后一个月", "2020-03-23", "2020-04-23"),
    ("the week after the dot-com peak", "2000-03-10", "2000-03-17"),
    ("the year after the financial crisis", "2009-03-09", "2010-03-09"),
    ("金融危机结束后一年", "2009-03-09", "2010-03-09"),
    ("the month before the financial crisis", "2007-09-09", "2007-10-09"),
    # a calendar month or year as the anchor keeps its calendar reading
    ("the six months after January 2019", "2019-01-01", "2019-06-30"),
    ("three months before 2020", "2019-10-01", "2019-12-31"),
]


@pytest.mark.parametrize(("question", "start", "end"), WINDOWS)
def test_a_length_beside_a_day_is_that_window(question: str, start: str, end: str) -> None:
    time = read_time(question, TODAY)
    assert (time.start, time.end) == (date.fromisoformat(start), date.fromisoformat(end))


@pytest.mark.parametrize(
    "question",
    [
        "two weeks after the Fukushima earthquake",
        "the month after the great recession bottom",  # dated by whole months, no low of record
        "since the 2012 election",
    ],
)
def test_an_anchor_nothing_dates_is_no_window(question: str) -> None:
    time = read_time(question, TODAY)
    assert not time.explicit and time.start is None, time.clauses


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("two weeks after the 2008 election", date(2008, 11, 4), date(2008, 11, 18)),
        ("since the 2016 election", date(2016, 11, 8), TODAY),
    ],
)
def test_an_occasion_of_record_dates_its_anchor(question: str, start: date, end: date) -> None:
    time = read_time(question, TODAY)
    assert (time.start, time.end) == (start, end), time.clauses


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


def _change(prices: pd.Series, base_day: str, end_day: str) -> float:
    """The % change from the close on or before `base_day` to the close on or before `end_day`."""
    base = prices[:base_day].iloc[-1]
    return float((prices[:end_day].iloc[-1] / base - 1) * 100)


@pytest.mark.parametrize(
    ("question", "ticker", "base_day", "end_day"),
    [
        ("How did the S&P 500 do in the month after 2020-03-23?", "^GSPC", "2020-03-23",
         "2020-04-23"),
        ("标普500在2020年3月23日之后一个月的涨幅", "^GSPC", "2020-03-23", "2020-04-23"),
        ("苹果在2020年3月23日之后一个月的涨幅", "AAPL", "2020-03-23", "2020-04-23"),
        ("Apple's return in the week before 2020-02-19", "AAPL", "2020-02-12", "2020-02-19"),
        ("S&P 500 return in the month after the COVID crash bottom", "^GSPC", "2020-03-23",
         "2020-04-23"),
    ],
)  # fmt: skip
async def test_the_return_is_over_the_anchored_window(
    data: Any, question: str, ticker: str, base_day: str, end_day: str
) -> None:
    prices = load_sp500_index()["SP500"] if ticker == "^GSPC" else load_sp500_dataset()[ticker]
    answer = await _ask(question)
    assert answer.status == "ok" and [e.id for e in answer.intent.entities] == [ticker]
    assert (answer.intent.start, answer.intent.end) == (
        date.fromisoformat(base_day),
        date.fromisoformat(end_day),
    )
    assert f"{_change(prices, base_day, end_day):.2f}%" in answer.summary, answer.summary
    said = " ".join(answer.intent.trace)
    assert base_day in said and end_day in said  # the window used is stated


async def test_ten_trading_days_before_a_day_start_ten_weekdays_earlier(data: Any) -> None:
    prices = load_sp500_dataset()["AAPL"]
    first = pd.bdate_range(end="2021-01-29", periods=11)[0].date().isoformat()
    answer = await _ask("What was AAPL's return in the 10 trading days before 2021-01-29?")
    assert answer.intent.start == date.fromisoformat(first)
    assert f"{_change(prices, first, '2021-01-29'):.2f}%" in answer.summary, answer.summary


async def test_two_anchored_windows_keep_each_its_own(data: Any) -> None:
    prices = load_sp500_dataset()["AAPL"]
    answer = await _ask(
        "Apple's return in the month after 2020-03-23 and its volatility in the month before "
        "2020-02-19"
    )
    parts = [(p.metrics, p.start, p.end) for p in answer.intent.parts]
    assert parts == [
        (["return"], date(2020, 3, 23), date(2020, 4, 23)),
        (["volatility"], date(2020, 1, 19), date(2020, 2, 19)),
    ]
    returns = prices[:"2020-02-19"][prices[:"2020-01-19"].index[-1] :].pct_change().dropna()
    volatility = returns.std() * 252**0.5 * 100
    assert f"{_change(prices, '2020-03-23', '2020-04-23'):.2f}%" in answer.summary
    assert f"{volatility:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "How did the S&P 500 do in the two weeks after the Fukushima earthquake?",
        "Apple in the month after the great recession bottom",
        "大选之后两周标普500涨了多少",
    ],
)
async def test_a_length_anchored_on_an_unknown_event_is_declared(data: Any, question: str) -> None:
    """No figure for another window: the answer says it cannot date the words and asks for the
    day (it was `ok` over the past year with a note before)."""
    answer = await _ask(question)
    said = " ".join([answer.message or "", *answer.notes])
    assert answer.status == "no_data" and not answer.outputs
    assert ("after the" in said and "can't date" in said) or "大选之后" in said, said
    # and no window was made up from the year: neither 2009-01-01 onwards nor 2008
    assert answer.intent.start is None or answer.intent.start.year > 2009
