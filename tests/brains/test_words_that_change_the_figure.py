"""Words that change which figure answers, each read or the answer declines.

A bare "change" between the two ends of a range is the change from one end to the other; a
quarterly series' "from Q4 2007" starts at that quarter's own value; "average daily volume" is the
volume's mean, not the close's; "closed at $150 or more" counts closes of at least 150; a time of
day asks for intraday data nobody bundles; "去年…？今年以来呢？" is two questions; 当月 after a
dated month is that month; qtr/yr shorthand, "08-09" and 历史上 are windows; 累计 on a factor
compounds it. Expected figures are computed here with pandas from the packages' own data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
import statsmodels.api as sm
from skfolio.datasets import load_factors_dataset, load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext


async def _ask(question: str, today: date) -> Answer:
    return await ask(question, QuestionContext(today=today, brain="offline"))


def _quarterly(column: str) -> pd.Series:
    frame = sm.datasets.macrodata.load_pandas().data
    index = pd.PeriodIndex(
        [f"{int(y)}Q{int(q)}" for y, q in zip(frame.year, frame.quarter, strict=True)], freq="Q"
    )
    return pd.Series(frame[column].to_numpy(), index=index)


def _shown(answer: Answer, value: float, places: int = 2) -> bool:
    return f"{abs(value):,.{places}f}" in answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "How much did US real GDP change from Q4 2007 to Q2 2009?",
        "By how much did US real GDP change from Q4 2007 to Q2 2009, in percent?",
        "美国实际GDP从2007年四季度到2009年二季度变化了多少",
    ],
)
async def test_a_change_from_one_quarter_to_another_starts_at_that_quarters_value(
    data: Any, question: str
) -> None:
    gdp = _quarterly("realgdp")
    change = (gdp[pd.Period("2009Q2")] / gdp[pd.Period("2007Q4")] - 1) * 100
    answer = await _ask(question, date(2010, 6, 30))
    assert answer.status == "ok", answer.notes
    assert _shown(answer, change), answer.summary
    assert "2007-10-01" in answer.summary  # the base is Q4 2007's own value, not Q3's


async def test_a_calendar_year_of_a_quarterly_series_still_starts_from_the_quarter_before(
    data: Any,
) -> None:
    """ "Growth in 2008" is Q4 2008 on Q4 2007: only a range's named first period is its own."""
    gdp = _quarterly("realgdp")
    change = (gdp[pd.Period("2008Q4")] / gdp[pd.Period("2007Q4")] - 1) * 100
    answer = await _ask("US real GDP percent change in 2008", date(2010, 6, 30))
    assert answer.status == "ok" and _shown(answer, change), answer.summary


async def test_how_many_points_an_index_lost_is_not_answered_with_a_percent(data: Any) -> None:
    answer = await _ask(
        "How many points did the S&P 500 lose from 2020-02-19 to 2020-03-23?", date(2022, 6, 30)
    )
    assert answer.status != "ok" or "point" in answer.summary.lower()


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("Pfizer's performance in November 2020 - percent change for the month?", "2021-01-15"),
        ("辉瑞2020年11月当月涨了多少", "2021-01-15"),
    ],
)
async def test_the_month_of_a_one_month_window_is_that_window(
    data: Any, question: str, today: str
) -> None:
    prices = load_sp500_dataset()["PFE"]
    base = prices[prices.index < "2020-11-01"].iloc[-1]
    last = prices[prices.index <= "2020-11-30"].iloc[-1]
    answer = await _ask(question, date.fromisoformat(today))
    assert answer.status == "ok", answer.notes
    assert _shown(answer, (last / base - 1) * 100), answer.summary
    assert str(answer.intent.start) == "2020-11-01" and str(answer.intent.end) == "2020-11-30"


@pytest.mark.parametrize(
    ("question", "mean_of"),
    [("IBM avg daily volume in 2011?", 2011), ("IBM 2012年日均成交量", 2012)],
)
async def test_an_average_volume_is_the_volumes_mean(
    data: Any, question: str, mean_of: int
) -> None:
    from bokeh_sampledata import stocks

    volume = pd.Series(stocks.IBM["volume"], index=pd.to_datetime(stocks.IBM["date"]))
    mean = volume[str(mean_of)].mean()
    answer = await _ask(question, date(mean_of + 1, 6, 30))
    assert answer.status == "ok"
    assert f"{mean:,.0f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "at_least"),
    [
        ("how many days did P&G close at $150 or more in 2022", True),
        ("宝洁2022年收盘价在150美元及以上的有几天", True),
        ("how many days did Coca-Cola close at 60 or lower in 2022", False),
    ],
)
async def test_a_level_with_or_more_or_less_after_it_is_counted_inclusively(
    data: Any, question: str, at_least: bool
) -> None:
    prices = load_sp500_dataset()
    closes = prices["PG"]["2022"] if at_least else prices["KO"]["2022"]
    days = int((closes >= 150).sum()) if at_least else int((closes <= 60).sum())
    answer = await _ask(question, date(2022, 12, 30))
    assert answer.status == "ok", answer.notes
    assert f" {days} " in answer.summary or f"有{days}个" in answer.summary, answer.summary


async def test_a_sum_of_money_nothing_invests_is_not_honoured(data: Any) -> None:
    """ "$150" read as an amount, with no step investing it, cannot stand behind an `ok`."""
    answer = await _ask("Did P&G ever trade around $150 dollars or so in 2022", date(2022, 12, 30))
    assert answer.status != "ok" or "150" in answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "微软2022年12月28日下午两点的价格",
        "What was Apple trading at 2pm on 2021-03-05?",
        "Apple price at 10:30 am on March 5 2021",
        "标普500在2021年3月5日14:30的点位",
        "苹果上午10点半的股价",
    ],
)
async def test_a_time_of_day_asks_for_intraday_data_which_is_not_bundled(
    data: Any, question: str
) -> None:
    answer = await _ask(question, date(2022, 12, 29))
    assert answer.status == "no_data"
    assert not answer.outputs


async def test_index_points_are_not_a_time_of_day(data: Any) -> None:
    answer = await _ask("标普500 2021年涨了多少", date(2022, 4, 1))
    assert answer.status == "ok"


@pytest.mark.parametrize(
    "question", ["辉瑞去年涨了多少？今年以来呢？", "Pfizer return last year? And YTD?"]
)
async def test_a_follow_up_window_in_its_own_sentence_is_its_own_part(
    data: Any, question: str
) -> None:
    prices = load_sp500_dataset()["PFE"]
    last_year = (prices["2021"].iloc[-1] / prices["2020"].iloc[-1] - 1) * 100
    this_year = (prices[:"2022-08-15"].iloc[-1] / prices["2021"].iloc[-1] - 1) * 100
    answer = await _ask(question, date(2022, 8, 15))
    assert answer.status == "ok"
    assert len(answer.intent.parts) == 2
    assert _shown(answer, last_year) and _shown(answer, this_year), answer.summary


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("how'd UNH do last qtr", "2022-07-01", "2022-09-30"),
        ("AAPL return last yr", "2021-01-01", "2021-12-31"),
        ("best qtr for AAPL in 2021", "2021-01-01", "2021-12-31"),
    ],
)
async def test_period_shorthand_is_read(data: Any, question: str, start: str, end: str) -> None:
    answer = await _ask(question, date(2022, 11, 15))
    assert answer.status == "ok", answer.notes
    assert (str(answer.intent.start), str(answer.intent.end)) == (start, end)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("Baa minus Aaa spread - widest in 08-09 and which month", "2008-01-01", "2009-12-31"),
        ("08-09年美国失业率最高多少", "2008-01-01", "2009-12-31"),
    ],
)
async def test_two_short_years_with_a_dash_are_a_span_of_years(
    data: Any, question: str, start: str, end: str
) -> None:
    answer = await _ask(question, date(2010, 6, 1))
    assert answer.status == "ok", answer.notes
    assert (str(answer.intent.start), str(answer.intent.end)) == (start, end)


async def test_a_day_and_month_with_a_dash_are_not_years(data: Any) -> None:
    answer = await _ask("Apple's return from 3-5 to 3-20", date(2021, 6, 1))
    assert answer.intent.start is None or answer.intent.start.year != 2003


async def test_in_history_is_the_whole_series(data: Any) -> None:
    rates = _quarterly("tbilrate")
    answer = await _ask("三个月国债利率历史上最高的是哪个季度", date(2010, 1, 1))
    assert answer.status == "ok"
    assert f"{rates.max():.2f}%" in answer.summary
    assert str(rates.idxmax()) in answer.summary  # the quarter, e.g. 1981Q2


async def test_cumulative_of_a_factor_compounds_its_returns(data: Any) -> None:
    import arch.data.frenchdata

    loaded = arch.data.frenchdata.load()
    # The loader parses the YYYYMM stamps as nanoseconds; read them back as months.
    months = pd.to_datetime(loaded.index.asi8.astype(str), format="%Y%m")
    ff = pd.Series(loaded["Mkt-RF"].to_numpy(), index=months)
    year = ff["2008"]
    assert len(year) == 12
    compounded = ((1 + year / 100).prod() - 1) * 100
    answer = await _ask("法玛弗伦奇市场超额收益因子2008年累计多少", date(2009, 2, 1))
    assert answer.status == "ok"
    assert _shown(answer, compounded), answer.summary


@pytest.mark.parametrize(
    "question",
    ["Coca-Cola close and 20-day moving average in 2021", "可口可乐2021年收盘价和20日均线"],
)
async def test_a_close_beside_its_moving_average_is_said_as_two_things(
    data: Any, question: str
) -> None:
    """Each column of a merged result says what it is: not "ma20's close (adjusted) & MA(20)"."""
    close = load_sp500_dataset()["KO"]
    answer = await _ask(question, date(2022, 6, 30))
    assert answer.status == "ok"
    said = answer.summary
    assert "ma20" not in said.lower().replace("ma(20)", "") and "&" not in said, said
    assert f"{close['2021'].iloc[-1]:,.2f}" in said and "MA(20)" in said


@pytest.mark.parametrize(
    "question",
    [
        "S&P 500 in the week after the Lehman bankruptcy (Sept 15 2008), what was the return",
        "雷曼9月15号破产，之后一周标普500涨了多少",
    ],
)
async def test_a_length_after_an_event_dated_beside_it_is_anchored_on_that_day(
    data: Any, question: str
) -> None:
    """The day written beside the event (in brackets, or in the clause before "之后") anchors
    the length, measured from that day's close."""
    sp = load_sp500_index()["SP500"]
    change = (sp[:"2008-09-22"].iloc[-1] / sp[:"2008-09-15"].iloc[-1] - 1) * 100
    answer = await _ask(question, date(2009, 6, 1))
    assert answer.status == "ok"
    assert (str(answer.intent.start), str(answer.intent.end)) == ("2008-09-15", "2008-09-22")
    assert _shown(answer, change), answer.summary


async def test_ex_leaves_a_member_out_of_a_ranking(data: Any) -> None:
    factors = load_factors_dataset()
    year = factors[(factors.index > "2019-12-31") & (factors.index <= "2020-12-31")]
    base = factors[factors.index <= "2019-12-31"].iloc[-1]
    returns = (year.iloc[-1] / base - 1) * 100
    kept = returns.drop("SIZE")
    answer = await _ask("factor ETFs ex SIZE ranked by 2020 return, best + worst", date(2021, 6, 1))
    assert answer.status == "ok"
    assert "SIZE" not in [e.id for e in answer.intent.entities]
    assert _shown(answer, kept.max()) and _shown(answer, kept.min()), answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "3-month T-bill rate: highest and lowest quarter between 2000 and 2007?",
        "三个月国债利率2000到2007年最高和最低的季度",
    ],
)
async def test_highest_and_lowest_period_gives_both(data: Any, question: str) -> None:
    rates = _quarterly("tbilrate")
    window = rates[pd.Period("2000Q1") : pd.Period("2007Q4")]
    answer = await _ask(question, date(2009, 12, 1))
    assert answer.status == "ok"
    for value, quarter in ((window.max(), window.idxmax()), (window.min(), window.idxmin())):
        assert f"{value:.2f}%" in answer.summary and str(quarter) in answer.summary
    assert "rate's highest us" not in answer.summary  # the series is not its own measure


async def test_a_short_lower_case_ticker_in_a_list_of_names_is_a_name(data: Any) -> None:
    """ "hd" alone may be a word; after "aapl, msft, amd, bby and" it is Home Depot."""
    prices = load_sp500_dataset()
    year = prices[(prices.index > "2020-12-31") & (prices.index <= "2021-12-31")]
    base = prices[prices.index <= "2020-12-31"].iloc[-1]
    hd = (year["HD"].iloc[-1] / base["HD"] - 1) * 100
    answer = await _ask(
        "rank aapl, msft, amd, bby and hd by 2021 return - who was best and who was worst?",
        date(2022, 2, 1),
    )
    assert answer.status == "ok"
    assert "HD" in [e.id for e in answer.intent.entities]
    assert _shown(answer, hd), answer.summary


@pytest.mark.parametrize(("question", "rate"), [("sharpe ratio of JNJ in 2019 (rf 0)", 0.0)])
async def test_rf_is_the_risk_free_rate(data: Any, question: str, rate: float) -> None:
    prices = load_sp500_dataset()["JNJ"]
    daily = prices[(prices.index >= "2018-12-31") & (prices.index <= "2019-12-31")].pct_change()
    excess = daily.dropna() - rate / 100 / 252
    sharpe = excess.mean() / excess.std() * 252**0.5
    answer = await _ask(question, date(2020, 1, 10))
    assert answer.status == "ok"
    assert f"{sharpe:.2f}" in answer.summary, answer.summary
