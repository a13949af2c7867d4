"""Classes fresh blind sets (blind43 to blind46) found, now read:

- a year followed by a counter-like word (2019年只看周一): the year, never 2019 years;
- "growth at an annualized rate": the period's growth compounded to a year, not year-over-year;
- "widest month in 2008-09", "best month in 2008-09": two years (one month has no month to pick),
  and "widest month" asks the month of the extreme;
- 第四季 (without 度) is the fourth quarter, not the past four quarters;
- "a positive return", 正收益: the sign counted, not a return beside the count;
- "how many months was Brent above $100": a monthly series' values counted by the level (a
  daily price's months are declined, never counted as sessions);
- blind42's declined: "leave out JPMorgan's 2 best days" (whose days, by name), 涨幅前三的月份
  (the first three months by gain), the month Brent was dearest over WTI (贵得最多的是哪个月);
- a Fed cycle in other words ("the 2004–2006 Fed hiking cycle", 2001年那轮美联储降息周期) is its
  episode, and one no episode dates is declined; the average of a rolling measure asked with
  its peak is the measure's; a rolling measure at two dates says both; 那天是几号 after a
  comma asks the day of the extreme, not returns on the days it fell.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import source_frame


async def test_a_year_before_only_is_still_the_year(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["MRK"].loc[:"2019-12-31"]
    returns = closes.pct_change().loc["2019"] * 100
    mondays = returns[returns.index.day_of_week == 0]
    # today is a Monday, so 周一 could not be read as today either
    answer = await ask_offline("默沙东2019年只看周一的话，平均日收益率是多少？", date(2020, 1, 20))
    assert answer.status == "ok", answer.message
    assert f"{mondays.mean():.2f}%" in answer.summary, answer.summary
    assert f"{returns.mean():.2f}%" not in answer.summary, answer.summary


async def test_growth_at_an_annualized_rate_compounds_the_quarter(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    quarter = gdp.loc["2008-10-01"] / gdp.loc["2008-07-01"]
    annualized = (quarter**4 - 1) * 100
    answer = await ask_offline(
        "What was US real GDP growth in Q4 2008 at an annualized rate?", date(2009, 6, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{annualized:.2f}%" in answer.summary, answer.summary


async def test_the_widest_month_in_a_year_pair(data: Any) -> None:
    gap = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    answer = await ask_offline("Baa minus Aaa spread — widest month in 2008-09?", date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{gap.max():.2f}" in answer.summary, answer.summary
    assert f"{gap.idxmax():%Y-%m}" in answer.summary, answer.summary
    assert not answer.notes, answer.notes  # "widest" is read


async def test_the_best_month_in_a_year_pair_ranks_its_months(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"]
    ends = closes.loc[:"2009-12-31"].resample("ME").last()
    monthly = (ends / ends.shift(1) - 1).loc["2008":"2009"] * 100
    answer = await ask_offline("S&P 500 best month in 2008-09", date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{monthly.idxmax():%Y-%m}" in answer.summary, answer.summary
    assert f"{monthly.max():.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize("question", ["蘋果2018年第四季跌了多少", "苹果2018年第四季跌了多少"])
async def test_a_quarter_written_without_du(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    base = closes.loc[:"2018-09-30"].iloc[-1]
    end = closes.loc[:"2018-12-31"].iloc[-1]
    answer = await ask_offline(question, date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{(end / base - 1) * 100:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "上世纪90年代（1990-1999），Fama-French价值因子HML有几个月是正收益？",
        "In how many months of the 1990s did HML have a positive return?",
    ],
)
async def test_months_with_a_positive_return_are_counted(data: Any, question: str) -> None:
    hml = series_values(data, "FF_HML").loc["1990-01-01":"1999-12-31"]
    up = int((hml > 0).sum())
    answer = await ask_offline(question, date(2000, 3, 1))
    assert answer.status == "ok", answer.message
    assert str(up) in answer.summary and f"{up / len(hml) * 100:.2f}%" in answer.summary, (
        answer.summary
    )


@pytest.mark.parametrize(
    "question",
    [
        "2011到2014年布伦特有几个月在100美元以上",
        "How many months was Brent above 100 dollars from 2011 to 2014?",
        "How many months was Brent higher than 100 dollars from 2011 to 2014?",
    ],
)
async def test_a_monthly_series_months_are_counted_by_a_level(data: Any, question: str) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011-01-01":"2014-12-31"]
    above = int((brent > 100).sum())
    assert above == int((brent >= 100).sum())  # no month at exactly 100: 以上 reads either way
    answer = await ask_offline(question, date(2023, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{above}" in answer.summary and f"{len(brent)}" in answer.summary, answer.summary
    assert f"{above / len(brent) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_rates_quarters_are_counted_by_a_percent_level(data: Any) -> None:
    rate = series_values(data, "UNRATE").loc["1980-01-01":"1989-12-31"]
    above = int((rate > 8).sum())
    answer = await ask_offline(
        "How many quarters was US unemployment above 8% from 1980 to 1989?", date(2023, 1, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"{above} of {len(rate)} quarters" in answer.summary, answer.summary


async def test_a_daily_prices_months_are_not_counted_as_sessions(data: Any) -> None:
    """Months of a daily price above a level (by month-end closes? every close?): declined,
    never a count of sessions."""
    answer = await ask_offline("How many months was Apple above 50 in 2019?", date(2023, 1, 10))
    assert answer.status == "no_data", answer.summary


# --- blind42's declined, now read ------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Leave out JPMorgan's 2 best days — what was its mean daily return in 2021?",
        "去掉摩根大通涨得最多的两天，2021年日均收益率是多少？",
    ],
)
async def test_whose_best_days_are_left_out_by_name(data: Any, question: str) -> None:
    closes = source_frame("skfolio_sp500")["JPM"].loc[:"2021-12-31"]
    returns = (closes.pct_change() * 100).loc["2021"]
    kept = returns.drop(returns.nlargest(2).index)
    answer = await ask_offline(question, date(2023, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{kept.mean():.2f}%" in answer.summary, answer.summary
    for day in returns.nlargest(2).index:
        assert f"{day:%Y-%m-%d}" in answer.summary, answer.summary


async def test_the_first_n_months_by_gain(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"].loc[:"2020-12-31"]
    ends = closes.resample("ME").last()
    monthly = (ends / ends.shift(1) - 1).loc["2020"] * 100
    top = monthly.nlargest(4)
    answer = await ask_offline("苹果2020年涨幅前三的月份是哪几个月？", date(2023, 1, 15))
    assert answer.status == "ok", answer.message
    for month, value in top.iloc[:3].items():
        assert f"{month:%Y-%m}" in answer.summary and f"{value:.2f}%" in answer.summary
    assert f"{top.iloc[3]:.2f}%" not in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "2011年布伦特比WTI贵得最多的是哪个月？贵了多少？",
        "When was Brent dearest over WTI in 2011, and by how much?",
    ],
)
async def test_the_month_a_premium_was_widest(data: Any, question: str) -> None:
    # Brent is monthly: the monthly WTI is set against it (one frequency)
    premium = (series_values(data, "MCOILBRENTEU") - series_values(data, "MCOILWTICO")).loc["2011"]
    answer = await ask_offline(question, date(2023, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{premium.max():.2f}" in answer.summary, answer.summary
    assert f"{premium.idxmax():%Y-%m}" in answer.summary, answer.summary


async def test_a_number_inside_a_name_is_no_count(data: Any) -> None:
    """ "S&P 500 best month": the 500 is the index's name, not "the 500 best"."""
    closes = source_frame("skfolio_index")["^GSPC"].loc[:"2009-12-31"]
    ends = closes.resample("ME").last()
    monthly = (ends / ends.shift(1) - 1).loc["2009"] * 100
    answer = await ask_offline("S&P 500 best month in 2009", date(2023, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{monthly.idxmax():%Y-%m}" in answer.summary, answer.summary
    assert f"{monthly.min():.2f}%" not in answer.summary, answer.summary  # not every month


# --- blind45 and blind46 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "ticker", "first", "last"),
    [
        ("What did the S&P 500 return over the 2004–2006 Fed hiking cycle?", "^GSPC",
         "2004-06-30", "2006-06-29"),
        ("How did Apple do during the hiking cycle that began in 2015?", "AAPL",
         "2015-12-16", "2018-12-19"),
        ("2001年那轮美联储降息周期里，摩根大通涨跌了多少？", "JPM", "2001-01-03", "2003-06-25"),
    ],
)  # fmt: skip
async def test_a_fed_cycle_said_in_other_words_is_its_episode(
    data: Any, question: str, ticker: str, first: str, last: str
) -> None:
    """The FOMC's first and last moves (the episodes' days), never the calendar years."""
    source = "skfolio_index" if ticker.startswith("^") else "skfolio_sp500"
    closes = source_frame(source)[ticker]
    moved = (closes.loc[last] / closes.loc[first] - 1) * 100  # from the first move's close
    answer = await ask_offline(question, date(2019, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{moved:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    ["S&P 500 return over the 1994 Fed hiking cycle", "标普500在1994年美联储加息周期里涨了多少"],
)
async def test_a_fed_cycle_no_episode_dates_is_declined(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2019, 1, 15))
    assert answer.status == "no_data", answer.summary
    assert "1994" in (answer.message or "") and "2004" in (answer.message or "")


async def test_the_average_and_the_peak_of_a_rolling_measure(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].loc[:"2022-12-31"]
    rolling = closes.pct_change().rolling(30).std() * (252**0.5) * 100
    year = rolling.loc["2022"]
    answer = await ask_offline(
        "What was the S&P 500's average 30-day rolling volatility over 2022, and its highest "
        "reading (which day)?",
        date(2022, 12, 30),
    )
    assert answer.status == "ok", answer.message
    assert f"{year.mean():.2f}%" in answer.summary, answer.summary
    assert f"{year.max():.2f}%" in answer.summary, answer.summary
    assert f"{year.idxmax():%Y-%m-%d}" in answer.summary, answer.summary


async def test_a_rolling_measure_at_two_dates_says_both(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"].loc[:"2020-04-30"]
    rolling = closes.pct_change().rolling(30).std() * (252**0.5) * 100
    answer = await ask_offline(
        "What was Apple's 30-day rolling volatility at the end of March 2020, and what had it "
        "come down to by the end of April 2020?",
        date(2020, 5, 15),
    )
    assert answer.status == "ok", answer.message
    for day in ("2020-03-31", "2020-04-30"):
        assert f"{rolling.loc[day]:.2f}%" in answer.summary, answer.summary


async def test_that_day_after_a_comma_asks_the_date(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["PG"].loc[:"2022-12-30"]
    returns = (closes.pct_change() * 100).loc["2022"]
    answer = await ask_offline("宝洁今年单日最大跌幅是多少，那天是几号", date(2022, 12, 30))
    assert answer.status == "ok", answer.message
    assert f"{returns.min():.2f}%" in answer.summary, answer.summary
    assert f"{returns.idxmin():%Y-%m-%d}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "sid", "level", "below"),
    [
        ("When did WTI spot first settle above $100 a barrel, and at what price?", "DCOILWTICO",
         100.0, False),
        ("Since 2010, when did the Baa yield first fall below 5%?", "BAA", 5.0, True),
        ("2010年以來，穆迪Baa公司債收益率第一次跌破5%是在哪個月？當月是多少？", "BAA", 5.0, True),
    ],
)  # fmt: skip
async def test_the_first_value_past_a_level_in_other_verbs_and_wordings(
    data: Any, question: str, sid: str, level: float, below: bool
) -> None:
    """ "settle above", "fall below"; 穆迪Baa公司债收益率 is the series named BAA级公司债收益率."""
    values = series_values(data, sid)
    if sid == "BAA":
        values = values.loc["2010-01-01":]
    past = values[values < level] if below else values[values > level]
    answer = await ask_offline(question, date(2019, 1, 15))
    assert answer.status == "ok", answer.message
    assert f"{past.index[0]:%Y-%m-%d}" in answer.summary, answer.summary
    assert f"{past.iloc[0]:.2f}" in answer.summary, answer.summary
