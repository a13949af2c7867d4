"""Classes a fresh blind set (blind64) found, each failing before its fix:

- a comparison of two names, one without data ("Tesla vs Apple … the gap"), is declined: one
  name's figures alone are no comparison;
- "the difference between the two CAGRs in points" is the gap of the yearly rates, not a
  spread of prices;
- 一半買寶僑、一半買嬌生 ("half in PG and the other half in JNJ") is one equal-weight holding;
- two months set against each other with "the move in bps" state the move between them;
- a "from the Dec 2018 close" before a calendar year is its base, "stats hw" names a course;
- "the year-over-year % change versus June 2007" beside June 2008 is the change between them;
  月均价 is a monthly series' value; 同比跌了多少 sizes the year-over-year change, no other return;
- "the average price (of the 12 monthly averages), and which month was highest" keeps the average;
- a fall from a peak named by its month "before it bottomed" is the drawdown from that peak;
- a rate against the same month a year before, in basis points, is the difference of the two
  values (was its % change said in basis points).

And classes it declined: "how far did it drop from that December 1999 peak close" and 最多跌了
幾% / 花了多少天 beside a named peak; "first close back at or above my purchase price … how
many calendar days"; "times sqrt(252)"; "its 12 monthly values in 2013"; "a business paper ran
a headline that …", whose claim the answer now says holds or not.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, series_values
from support.numeric_expect import cagr_pct, source_frame


def _closes(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _growth(closes: pd.Series, start: str, end: str) -> float:
    return float(closes.loc[:end].iloc[-1] / closes.loc[:start].iloc[-1])


def _fall_from_peak(closes: pd.Series, month: str) -> tuple[float, pd.Timestamp, pd.Timestamp]:
    """The fall from the highest close of `month` to the lowest close before it was regained."""
    peak_day = closes.loc[month].idxmax()
    peak = closes.loc[peak_day]
    after = closes.loc[peak_day:]
    back = after[after >= peak].index
    regained = back[1] if len(back) > 1 else after.index[-1]
    trough_day = after.loc[:regained].idxmin()
    return (closes.loc[trough_day] / peak - 1) * 100, peak_day, trough_day


async def test_a_comparison_with_one_side_missing_is_declined(data: Any) -> None:
    answer = await ask_offline(
        "Client wants Tesla vs Apple for calendar 2021 - total return for each and the gap, "
        "please.",
        date(2022, 1, 15),
    )
    assert answer.status == "no_data", answer.summary
    assert "Tesla" in (answer.message or ""), answer.message


async def test_the_gap_between_two_cagrs(data: Any) -> None:
    unh = cagr_pct("UNH", "2011-12-31", "2016-12-31")
    lly = cagr_pct("LLY", "2011-12-31", "2016-12-31")
    answer = await ask_offline(
        "Need annualized numbers for the committee: compound annual growth rate of UnitedHealth "
        "and of Eli Lilly from the start of 2012 through the end of 2016, and the difference "
        "between the two CAGRs in points.",
        date(2017, 2, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{unh:.2f}%" in answer.summary and f"{lly:.2f}%" in answer.summary, answer.summary
    assert f"{unh - lly:.2f} percentage points" in answer.summary, answer.summary


async def test_half_in_each_is_one_holding(data: Any) -> None:
    value = 50_000 * _growth(_closes("PG"), "2019-12-31", "2021-12-31")
    value += 50_000 * _growth(_closes("JNJ"), "2019-12-31", "2021-12-31")
    answer = await ask_offline(
        "2019年底收盤我拿10萬美金，一半買寶僑、一半買嬌生，之後都沒動，到2021年底收盤總共值多少？",
        date(2022, 1, 20),
    )
    assert answer.status == "ok", answer.message
    assert f"{value:,.0f}" in answer.summary, answer.summary
    assert f"{value - 100_000:,.2f}" in answer.summary, answer.summary


async def test_two_months_and_the_move_between_them_in_bps(data: Any) -> None:
    baa = series_values(data, "BAA")
    september, november = baa.loc["2008-09-01"], baa.loc["2008-11-01"]
    answer = await ask_offline(
        "Moody's Baa corporate yield, Sep 2008 vs Nov 2008 - give me both monthly levels and the "
        "move in bps.",
        date(2009, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{september:.2f}%" in answer.summary and f"{november:.2f}%" in answer.summary
    assert f"{round((november - september) * 100)} basis points" in answer.summary, answer.summary


async def test_a_month_before_a_year_is_its_base_and_stats_hw_a_course(data: Any) -> None:
    month_ends = _closes("MSFT").loc["2018-12":"2019-12"].resample("ME").last()
    returns = month_ends.pct_change().dropna() * 100
    answer = await ask_offline(
        "stats hw: mean and median of Microsoft's monthly returns in 2019 (month-end adjusted "
        "closes, Jan return measured from Dec 2018 close)?",
        date(2020, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"mean {returns.mean():.2f}%" in answer.summary, answer.summary
    assert f"median {returns.median():.2f}%" in answer.summary, answer.summary
    assert "Jan" not in answer.summary and "standard deviation" not in answer.summary


async def test_a_year_over_year_change_versus_the_month_a_year_before(data: Any) -> None:
    wti = series_values(data, "MCOILWTICO")
    june, before = wti.loc["2008-06-01"], wti.loc["2007-06-01"]
    answer = await ask_offline(
        "WTI monthly average for June 2008, and the year-over-year % change versus June 2007?",
        date(2008, 8, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{june:.2f}" in answer.summary, answer.summary
    assert f"{(june / before - 1) * 100:.2f}%" in answer.summary, answer.summary


async def test_a_monthly_average_and_its_year_over_year_fall(data: Any) -> None:
    wti = series_values(data, "MCOILWTICO")
    november, before = wti.loc["2015-11-01"], wti.loc["2014-11-01"]
    answer = await ask_offline("上个月WTI原油的月均价是多少？同比跌了多少？", date(2015, 12, 10))
    assert answer.status == "ok", answer.message
    assert f"{november:.2f}" in answer.summary, answer.summary
    assert f"{(november / before - 1) * 100:.2f}%" in answer.summary, answer.summary
    assert "收益率" not in answer.summary, answer.summary  # no mean of returns beside it


async def test_the_average_kept_beside_the_highest_month(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2018"]
    answer = await ask_offline(
        "2018年布伦特原油的平均价格是多少？（按12个月的月均价平均）哪个月最高？", date(2019, 3, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{brent.mean():.2f}" in answer.summary, answer.summary
    assert f"{brent.max():.2f}" in answer.summary, answer.summary
    assert brent.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_a_fall_from_a_named_peak_to_the_bottom_is_the_drawdown(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    fall, peak_day, trough_day = _fall_from_peak(nasdaq, "2000-03")
    answer = await ask_offline(
        "A columnist wrote that the Nasdaq Composite lost about 78% after its March 2000 peak "
        "before it finally bottomed. Was it really that bad? Give the peak and bottom closes "
        "with dates.",
        date(2018, 12, 31),
    )
    assert answer.status == "ok", answer.message
    assert f"{fall:.2f}%" in answer.summary, answer.summary
    assert f"{nasdaq.loc[trough_day]:,.2f}" in answer.summary, answer.summary
    assert peak_day.strftime("%Y-%m-%d") in answer.summary, answer.summary
    assert trough_day.strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_a_rate_against_the_same_month_a_year_before_in_bps(data: Any) -> None:
    aaa = series_values(data, "AAA")
    moved = round((aaa.loc["2018-12-01"] - aaa.loc["2017-12-01"]) * 100)
    for question in (
        "Moody's Aaa yield last month, and how many bps higher was it than a year earlier?",
        "上个月穆迪Aaa级公司债收益率是多少？跟一年前同一个月比，高了多少个基点？",
    ):
        answer = await ask_offline(question, date(2019, 1, 15))
        assert answer.status == "ok", answer.message
        assert f"{aaa.loc['2018-12-01']:.2f}%" in answer.summary, answer.summary
        points = f"{moved} basis points" if question.isascii() else f"{moved}个基点"
        assert points in answer.summary, answer.summary


async def test_how_far_from_a_named_peak_and_the_days_to_regain_it(data: Any) -> None:
    msft = _closes("MSFT")
    fall, peak_day, _ = _fall_from_peak(msft, "1999-12")
    after = msft.loc[peak_day:]
    regained = after[after >= msft.loc[peak_day]].index[1]
    answer = await ask_offline(
        "I bought Microsoft near its December 1999 high and it felt like forever. How far did "
        "it drop from that December 1999 peak close, and how many calendar days until it closed "
        "back above it?",
        date(2015, 1, 5),
    )
    assert answer.status == "ok", answer.message
    assert f"{fall:.2f}%" in answer.summary, answer.summary
    assert f"{(regained - peak_day).days} calendar days" in answer.summary, answer.summary
    aapl = _closes("AAPL")
    fall, peak_day, trough_day = _fall_from_peak(aapl, "2018-10")
    chinese = await ask_offline(
        "蘋果從2018年10月的高點跌下來，最多跌了幾%？最低是哪一天？後來花了多少天才回到那個高點？",
        date(2020, 1, 10),
    )
    assert chinese.status == "ok", chinese.message
    assert f"{fall:.2f}%" in chinese.summary, chinese.summary
    assert trough_day.strftime("%Y-%m-%d") in chinese.summary, chinese.summary


async def test_the_first_close_back_at_the_purchase_price_and_its_days(data: Any) -> None:
    jnj = _closes("JNJ")
    bought = jnj.loc["2008-09-19"]
    after = jnj.loc["2008-09-20":]
    back = after[after >= bought].index[0]
    answer = await ask_offline(
        "I put money into Johnson & Johnson at the close on September 19, 2008. On what day did "
        "it first close back at or above my purchase price, and how many calendar days did that "
        "take?",
        date(2012, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert back.strftime("%Y-%m-%d") in answer.summary, answer.summary
    assert f"{(back - pd.Timestamp('2008-09-19')).days} calendar days" in answer.summary


async def test_the_volatilitys_own_annualisation_said(data: Any) -> None:
    closes = _closes("AAPL").loc["2018-06-28":"2019-06-28"]
    volatility = closes.pct_change().dropna().std() * 252**0.5 * 100
    answer = await ask_offline(
        "What's Apple's annualized volatility over the past year? Daily simple returns, sample "
        "std dev, times sqrt(252).",
        date(2019, 6, 28),
    )
    assert answer.status == "ok", answer.message
    assert f"{volatility:.2f}%" in answer.summary, answer.summary


async def test_the_count_of_a_windows_values_and_its_statistics(data: Any) -> None:
    factor = series_values(data, "FF_MKT_RF").loc["2013"]
    answer = await ask_offline(
        "For the Fama-French market factor (Mkt-RF), what were the average and the sample "
        "standard deviation of its 12 monthly values in 2013?",
        date(2014, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"mean {factor.mean():.2f}%" in answer.summary, answer.summary
    assert f"standard deviation {factor.std():.2f}%" in answer.summary, answer.summary


async def test_a_business_paper_is_no_company_profile(data: Any) -> None:
    gained = (_growth(_closes("XOM"), "2020-12-31", "2021-12-31") - 1) * 100
    answer = await ask_offline(
        "A business paper ran a headline that Exxon gained more than 60% in 2021. Was it really "
        "that much?",
        date(2022, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{gained:.2f}%" in answer.summary, answer.summary
    verdict = "holds" if gained > 60 else "does not hold"
    assert f"The claim (more than 60%) {verdict}" in answer.summary, answer.summary


async def test_a_claimed_fall_is_checked_by_its_size_in_chinese_too(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    fall, _, _ = _fall_from_peak(nasdaq, "2000-03")
    answer = await ask_offline(
        "A columnist wrote that the Nasdaq Composite lost about 78% after its March 2000 peak "
        "before it finally bottomed. Was it really that bad?",
        date(2018, 12, 31),
    )
    verdict = "holds" if abs(abs(fall) - 78) <= 1.56 else "does not hold"
    assert f"The claim (about 78%) {verdict}: the figure is {fall:.2f}%." in answer.summary
    gained = (_growth(_closes("XOM"), "2020-12-31", "2021-12-31") - 1) * 100
    chinese = await ask_offline("新闻说埃克森美孚2021年涨了80%以上，是真的吗？", date(2022, 2, 1))
    verdict = "成立" if gained > 80 else "不成立"
    assert f"说法（80%以上）{verdict}：实际为{gained:.2f}%。" in chinese.summary, chinese.summary
