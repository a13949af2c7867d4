"""Classes a fresh blind set (blind55) found, each failing before its fix:

- a fall from a peak named by its period ("the record close of March 2000", "its October 2007
  peak", 从2007年10月的高点) and when it was regained: the fall from that period's highest
  close to the lowest close before the first close back at it, each dated;
- "how deep was the COVID crash from its pre-pandemic closing high": the crash's maximum
  drawdown, the high its peak (no statistics of closes), "closed back above it" its recovery;
- weights said after the names (联合健康七成、礼来三成), as a pair of tenths (五五配置, 六四开),
  and 等权重 (whose 权重 asks for no index weights); P&G and J&J by their Taiwan names (寶僑,
  嬌生); 2015年到2019年这五年 is those five years;
- "write me a short, funny poem about inflation", 帮我写首七言诗: not a data question.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline
from support.numeric_expect import buy_and_hold, fall_from_peak, source_frame


@pytest.mark.parametrize(
    ("question", "source", "entity", "period", "today"),
    [
        (
            "Taking the Nasdaq Composite's record close of March 2000 as the starting point, how "
            "far did it fall to its bear-market low, on what day was that low, and on what day "
            "did it first close back at or above the March 2000 record?",
            "arch_nasdaq",
            "^IXIC",
            ("2000-03-01", "2000-03-31"),
            date(2016, 6, 30),
        ),
        (
            "How long did it take the S&P 500 to get back to its October 2007 peak?",
            "skfolio_index",
            "^GSPC",
            ("2007-10-01", "2007-10-31"),
            date(2016, 6, 30),
        ),
        (
            "标普500从2007年10月的高点跌了多少，什么时候收复的？",
            "skfolio_index",
            "^GSPC",
            ("2007-10-01", "2007-10-31"),
            date(2016, 6, 30),
        ),
    ],
)
async def test_a_fall_from_a_peak_named_by_its_period_and_its_recovery(
    data: Any, question: str, source: str, entity: str, period: tuple[str, str], today: date
) -> None:
    closes = source_frame(source)[entity].dropna().loc[: today.isoformat()]
    depth, peak, trough, recovery = fall_from_peak(closes, *period)
    assert recovery is not None
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", peak, trough, recovery):
        assert shown in answer.summary, (shown, answer.summary)


async def test_how_deep_a_named_crash_was_and_how_long_it_took_to_close_back_above_its_high(
    data: Any,
) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna().loc[:"2021-01-15"]
    depth, peak, trough, recovery = fall_from_peak(closes, "2020-02-19", "2020-02-19")
    assert recovery is not None
    days = (date.fromisoformat(recovery) - date.fromisoformat(peak)).days
    answer = await ask_offline(
        "How deep was the S&P 500's COVID crash from its pre-pandemic closing high, and how "
        "many calendar days did it take from that high until the index first closed back "
        "above it?",
        date(2021, 1, 15),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", trough, recovery, f"{days} calendar days"):
        assert shown in answer.summary, (shown, answer.summary)
    assert "mean" not in answer.summary  # the high is the drawdown's peak, not a statistic


@pytest.mark.parametrize(
    ("question", "weights", "start", "end", "today"),
    [
        (
            "聯合健康七成、禮來三成，買進持有不再平衡，2020年報酬率是多少？",
            {"UNH": 0.7, "LLY": 0.3},
            "2019-12-31",
            "2020-12-31",
            date(2021, 3, 1),
        ),
        (
            "摩根大通和美國銀行五五配置、買進後不再平衡，2008年的報酬率是多少？",
            {"JPM": 0.5, "BAC": 0.5},
            "2007-12-31",
            "2008-12-31",
            date(2009, 1, 15),
        ),
        (
            "苹果和微软六四开，买入后不再平衡，2020年收益率多少？",
            {"AAPL": 0.6, "MSFT": 0.4},
            "2019-12-31",
            "2020-12-31",
            date(2021, 3, 1),
        ),
        (
            "三成買寶僑、三成買嬌生、四成買可口可樂，買進後不再平衡，2017年到2019年這三年的總報酬率是多少？",
            {"PG": 0.3, "JNJ": 0.3, "KO": 0.4},
            "2016-12-31",
            "2019-12-31",
            date(2020, 1, 20),
        ),
        (
            "2020年初嬌生、寶僑、可口可樂三檔等權重買進，之後不再平衡，到2020年底報酬率多少？",
            {"JNJ": 1 / 3, "PG": 1 / 3, "KO": 1 / 3},
            "2019-12-31",
            "2020-12-31",
            date(2021, 1, 8),
        ),
    ],
)
async def test_weights_after_names_in_tenths_and_taiwan_names(
    data: Any, question: str, weights: dict[str, float], start: str, end: str, today: date
) -> None:
    value = buy_and_hold(source_frame("skfolio_sp500"), weights, start, end)
    made = float(value.iloc[-1] / 100 - 1) * 100
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    assert f"{made:.2f}%" in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "Could you write me a short, funny poem about inflation that I can read aloud to open "
        "my class on Monday?",
        "幫我寫首七言詩，講恒指同AAPL今年嘅走勢，要押韻",
        "帮我写一首关于通胀的打油诗",
    ],
)
async def test_a_poem_is_not_a_data_question(data: Any, question: str) -> None:
    answer = await ask_offline(question, date(2021, 6, 30))
    assert answer.status == "out_of_scope", answer.summary


async def test_the_largest_drop_of_a_quarter_is_the_worst_with_its_annualised_rate(
    data: Any,
) -> None:
    gdp = source_frame("statsmodels_macro")["GDPC1"].dropna()
    change = gdp.pct_change().loc["2008-01-01":"2008-12-31"] * 100
    worst = change.idxmin()
    annualised = ((1 + change.loc[worst] / 100) ** 4 - 1) * 100
    answer = await ask_offline(
        "Which quarter of 2008 saw the largest quarter-on-quarter drop in US real GDP, how big "
        "was that drop, and what is it at an annualized rate?",
        date(2009, 5, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{worst.year}Q{worst.quarter}" in answer.summary, answer.summary
    assert f"{change.min():.2f}%" in answer.summary, answer.summary
    assert f"{annualised:.2f}%" in answer.summary, answer.summary
    assert "best quarter" not in answer.summary


async def test_a_spreads_widest_month_shows_both_yields(data: Any) -> None:
    yields = source_frame("arch_default").loc["1980-01-01":"2018-12-31"]
    gap = yields["BAA"] - yields["AAA"]
    widest = gap.idxmax()
    answer = await ask_offline(
        "Between 1980 and 2018, in which month was the gap between Moody's Baa and Aaa corporate "
        "bond yields at its widest, and how wide was it in percentage points? Please show both "
        "yields that month too.",
        date(2019, 2, 1),
    )
    assert answer.status == "ok", answer.message
    for shown in (
        f"{gap.max():.2f}%",
        f"{yields.loc[widest, 'BAA']:.2f}%",
        f"{yields.loc[widest, 'AAA']:.2f}%",
        f"{widest:%Y-%m}",
    ):
        assert shown in answer.summary, (shown, answer.summary)


async def test_a_when_that_tells_what_was_happening_asks_no_date(data: Any) -> None:
    bill = source_frame("statsmodels_macro")["TB3MS"].dropna()
    moved = (bill.loc["2001-10-01"] - bill.loc["2000-10-01"]) * 100
    answer = await ask_offline(
        "How many basis points did the 3-month T-bill rate move over the course of 2001, when "
        "the Fed was cutting?",
        date(2002, 3, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.0f} basis points" in answer.summary, answer.summary


async def test_a_basket_more_than_a_benchmark_said_with_bi(data: Any) -> None:
    basket = buy_and_hold(
        source_frame("skfolio_sp500"), {"HD": 0.5, "WMT": 0.5}, "2020-12-31", "2021-12-31"
    )
    made = float(basket.iloc[-1] / 100 - 1) * 100
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    market = float(index.loc[:"2021-12-31"].iloc[-1] / index.loc[:"2020-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "家得寶和沃爾瑪各半的組合，買進後不再平衡，2021年的報酬比標普500多（或少）幾個百分點？",
        date(2022, 2, 14),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{made:.2f}%", f"{market:.2f}%", f"{made - market:.2f}个百分点"):
        assert shown in answer.summary, (shown, answer.summary)


async def test_the_average_of_the_periods_beside_the_worst_of_them(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna().loc[:"2021-12-31"]
    yearly = closes.resample("YE").last().pct_change().loc["1991":"2021"] * 100
    answer = await ask_offline(
        "For a reserving memo I need the long-run picture of the S&P 500 price index: taking "
        "each calendar year from 1991 through 2021, what is the simple arithmetic average of "
        "the annual returns, and which single year was the worst and by how much did it fall?",
        date(2022, 6, 30),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{yearly.mean():.2f}%", f"{yearly.min():.2f}%", str(yearly.idxmin().year)):
        assert shown in answer.summary, (shown, answer.summary)


async def test_two_windows_means_and_the_gap_between_them(data: Any) -> None:
    bill = source_frame("statsmodels_macro")["TB3MS"]
    sixties = bill.loc["1960-01-01":"1969-12-31"].mean()
    seventies = bill.loc["1970-01-01":"1979-12-31"].mean()
    answer = await ask_offline(
        "What was the average 3-month Treasury bill rate during the 1960s, what was it during "
        "the 1970s, and by how many percentage points did the 1970s average exceed the 1960s "
        "one?",
        date(2010, 3, 1),
    )
    assert answer.status == "ok", answer.message
    for shown in (
        f"{sixties:.2f}%",
        f"{seventies:.2f}%",
        f"{abs(seventies - sixties):.2f} percentage points",
    ):
        assert shown in answer.summary, (shown, answer.summary)


async def test_which_quarters_were_the_peak_and_the_trough_of_a_drawdown(data: Any) -> None:
    gdp = source_frame("statsmodels_macro")["GDPC1"].loc["2006-10-01":"2009-12-31"]
    peak = gdp.loc["2007-01-01":].idxmax()
    trough = gdp.loc[peak:].idxmin()
    depth = (gdp.loc[trough] / gdp.loc[peak] - 1) * 100
    answer = await ask_offline(
        "How much did US real GDP fall from peak to trough between 2007 and 2009, and which "
        "quarters were the peak and the trough?",
        date(2010, 6, 30),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", f"{peak:%Y-%m-%d}", f"{trough:%Y-%m-%d}"):
        assert shown in answer.summary, (shown, answer.summary)


async def test_a_quoted_eras_name_names_no_measure(data: Any) -> None:
    cpi = source_frame("statsmodels_macro")["CPIAUCSL"]
    rise = (cpi.loc["1979-10-01"] / cpi.loc["1969-10-01"] - 1) * 100
    answer = await ask_offline(
        "To show the 'Great Inflation', by how much in total did the consumer price index rise "
        "over the 1970s?",
        date(2010, 4, 12),
    )
    assert answer.status == "ok", answer.message
    assert f"{rise:.2f}%" in answer.summary, answer.summary
    assert "year-over-year" not in answer.summary
