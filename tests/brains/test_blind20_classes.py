"""Classes a fresh blind set found, each now read:

- a month listed before another that says the year ("March and April 2020", "Jan, Feb or Mar
  2021") is that year's month, wherever the list stands in the sentence;
- two adjoining years set against each other ("compare 2019 and 2020", 2019年和2020年哪年涨得多)
  are two windows, each answered, and the better one named; said plainly ("in 2019 and 2020")
  they stay one span;
- a count of sessions with its side said after them (有多少个交易日是上涨的) counts that side, and a
  count of every session never answers "how many were up";
- "student project: correlation between monthly % changes of WTI (MCOILWTICO) and Brent": a
  noun "project" forecasts nothing, a code in brackets says which series a name means, and a
  correlation of changes is taken of the changes;
- 三年前 (three years ago) is a day, the start of what was invested then;
- "close the books for the year: how's Lilly done YTD?", "a mid-year recap … the first half of
  this year": the year the window runs in, a verb "close", and "how's it done" asks its return;
- "how much has GE fallen since its close on D": since that close, a return; "fallen" is one;
- "adjusted closes", 复权, "adjusted for splits/dividends": the adjusted close, for levels too,
  never a question about dividends; "all the history you have" is the whole history;
- a date said again without its year ("（7月4日休市的话…）") is the one said before;
- 该买黄金还是美股？给我个建议吧 asks advice;
- "… close at on March 24, 2000? When did it first close back above that level?" (之后第一次收盘
  站上这个点位): the level pointed at is that day's close.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, bokeh_series, series_values


def _return(closes: Any, start: str, end: str) -> float:
    """From the last close before `start` to the last close on or before `end`."""
    before = closes[closes.index < start].iloc[-1]
    return float((closes.loc[:end].iloc[-1] / before - 1) * 100)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("March and April 2020: how did the S&P 500 do? return please", "2020-03-01", "2020-04-30"),
        ("S&P 500 return in March, April and May 2020", "2020-03-01", "2020-05-31"),
    ],
)
async def test_a_month_listed_before_the_year_is_that_years_month(
    data: Any, question: str, start: str, end: str
) -> None:
    closes = load_sp500_index()["SP500"]
    expected = _return(closes, start, end)
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    assert (str(answer.intent.start), str(answer.intent.end)) == (start, end)
    assert f"{expected:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "better"),
    [
        ("Apple: compare 2019 and 2020 returns", "did better in {top} ({high}) than in {low_year}"),
        ("苹果2019年和2020年哪年涨得多", "{top}年的收益率（{high}）高于{low_year}年"),
    ],
)
async def test_two_adjoining_years_set_against_each_other_are_two_windows(
    data: Any, question: str, better: str
) -> None:
    closes = load_sp500_dataset()["AAPL"]
    returns = {year: _return(closes, f"{year}-01-01", f"{year}-12-31") for year in ("2019", "2020")}
    answer = await ask_offline(question, date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    for figure in returns.values():
        assert f"{figure:.2f}%" in answer.summary, answer.summary
    top, low_year = sorted(returns, key=lambda y: returns[y], reverse=True)
    said = better.format(top=top, high=f"{returns[top]:.2f}%", low_year=low_year)
    assert said in answer.summary, answer.summary


async def test_two_adjoining_years_said_plainly_stay_one_span(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    expected = _return(closes, "2019-01-01", "2020-12-31")
    answer = await ask_offline("Apple return in 2019 and 2020", date(2022, 6, 1))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary


async def test_sessions_counted_with_their_side_said_after_them(data: Any) -> None:
    closes = load_sp500_dataset()["JNJ"].loc[:"2022-09-30"]
    moves = closes.pct_change().loc["2022-07-01":]
    answer = await ask_offline("上季度强生有多少个交易日是上涨的？", date(2022, 11, 5))
    assert answer.status == "ok", answer.message
    assert f"有{int((moves > 0).sum())}个交易日收涨" in answer.summary, answer.summary
    assert f"共{len(moves)}个交易日" in answer.summary, answer.summary


async def test_correlation_of_changes_of_the_series_named_by_their_codes(data: Any) -> None:
    wti, brent = series_values(data, "MCOILWTICO"), series_values(data, "MCOILBRENTEU")
    changes = pd.concat([wti, brent], axis=1).loc["2014-12-01":"2019-12-31"].pct_change().dropna()
    expected = changes.corr().iloc[0, 1]
    question = (
        "Student project: correlation between monthly % changes of WTI (MCOILWTICO) and Brent "
        "(MCOILBRENTEU) over 2015-2019?"
    )
    answer = await ask_offline(question, date(2020, 2, 15))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    assert [e.id for e in answer.intent.entities] == ["MCOILWTICO", "MCOILBRENTEU"]
    assert "forecast" not in answer.intent.metrics
    assert f"was {expected:.2f}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # every word read, WTI included


@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("三年前拿10万美元买了联合健康(UNH)，到现在值多少钱？", 100_000),
        ("两年前投了1万美元到联合健康，现在值多少", 10_000),
    ],
)
async def test_years_ago_in_chinese_is_the_day_the_money_went_in(
    data: Any, question: str, amount: int
) -> None:
    closes = load_sp500_dataset()["UNH"]
    years = 3 if question.startswith("三") else 2
    start = date(2022 - years, 12, 30)
    value = amount * closes.iloc[-1] / closes.loc[: str(start)].iloc[-1]
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{value:,.0f}" in answer.summary, answer.summary
    assert str(start) in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "today", "start", "end"),
    [
        (
            "Quick one before I close the books for the year: how's Eli Lilly done YTD?",
            date(2022, 12, 30),
            "2022-01-01",
            "2022-12-30",
        ),
        (
            "I'm drafting a mid-year recap. What was Eli Lilly's price return in the first half "
            "of this year?",
            date(2021, 7, 1),
            "2021-01-01",
            "2021-06-30",
        ),
        ("how did Eli Lilly do in 2021", date(2022, 3, 1), "2021-01-01", "2021-12-31"),
    ],
)
async def test_the_year_a_window_runs_in_and_how_it_did_is_its_return(
    data: Any, question: str, today: date, start: str, end: str
) -> None:
    closes = load_sp500_dataset()["LLY"]
    expected = _return(closes, start, end)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert answer.summary.startswith(f"Eli Lilly returned {expected:.2f}%"), answer.summary


async def test_fallen_since_its_close_on_a_day(data: Any) -> None:
    closes = load_sp500_dataset()["GE"]
    expected = (closes.iloc[-1] / closes.loc["2000-08-28"] - 1) * 100
    question = "How much has GE fallen since its close on 2000-08-28? Adjusted prices please."
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert answer.summary.startswith(f"General Electric returned {expected:.2f}%"), answer.summary
    assert not answer.notes or all("Adjusted" not in n for n in answer.notes), answer.notes


@pytest.mark.parametrize(
    "question", ["IBM adjusted close on 2012-01-03", "IBM 2012年1月3日的复权收盘价是多少"]
)
async def test_adjusted_prices_asked_are_shown_for_a_level(data: Any, question: str) -> None:
    adjusted, traded = bokeh_series("IBM", "adj_close"), bokeh_series("IBM", "close")
    assert adjusted.loc["2012-01-03"] != traded.loc["2012-01-03"]  # the case that tells them apart
    answer = await ask_offline(question, date(2013, 3, 1))
    assert answer.status == "ok", answer.message
    assert f"{adjusted.loc['2012-01-03']:.2f}" in answer.summary, answer.summary
    assert f"{traded.loc['2012-01-03']:.2f}" not in answer.summary, answer.summary


async def test_adjusted_for_dividends_is_no_question_about_dividends(data: Any) -> None:
    closes = load_sp500_dataset()["AAPL"]
    value = 10_000 * closes.loc[:"2012-12-31"].iloc[-1] / closes.loc["2009-01-02"]
    question = (
        "If I'd put $10,000 into Apple at the close on Jan 2, 2009, what would it have been "
        "worth at the end of 2012 (adjusted for splits/dividends)?"
    )
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{value:,.2f}" in answer.summary, answer.summary


async def test_all_the_history_you_have_is_the_whole_history(data: Any) -> None:
    closes = load_sp500_dataset()["GE"]
    drawdown = (closes / closes.cummax() - 1).min() * 100
    question = (
        "Over all the history you have, what's GE's worst drawdown (adjusted closes) and when "
        "did it peak and bottom?"
    )
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{drawdown:.2f}%" in answer.summary, answer.summary
    trough = (closes / closes.cummax() - 1).idxmin()
    assert f"{trough:%Y-%m-%d}" in answer.summary, answer.summary


async def test_a_day_said_again_without_its_year_is_the_one_said_before(data: Any) -> None:
    closes = load_sp500_dataset()["PG"]
    expected = _return(closes, "2019-07-04", "2019-12-31")
    question = "宝洁从2019年7月4日到2019年12月31日的涨跌幅是多少？（7月4日休市的话用前一个交易日）"
    answer = await ask_offline(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in answer.summary, answer.summary
    assert "2022-07-04" not in answer.summary + " ".join(answer.notes)


async def test_which_to_buy_asks_advice(data: Any) -> None:
    answer = await ask_offline("现在该买黄金还是美股？给我个建议吧", date(2022, 12, 30))
    assert answer.status == "out_of_scope"


@pytest.mark.parametrize(
    "question",
    [
        "What did the S&P 500 close at on March 24, 2000? When did it first close back above "
        "that level?",
        "标普500 2000年3月24日收盘是多少点？之后第一次收盘站上这个点位是哪天？",
    ],
)
async def test_a_level_pointed_at_is_the_close_of_the_day_said_before(
    data: Any, question: str
) -> None:
    closes = load_sp500_index()["SP500"]
    level = closes.loc["2000-03-24"]
    after = closes.loc["2000-03-25":]
    first = after[after > level].index[0]
    answer = await ask_offline(question, date(2008, 1, 5))
    assert answer.status == "ok", answer.message
    assert f"{level:,.2f}" in answer.summary, answer.summary
    assert f"{first:%Y-%m-%d}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes
