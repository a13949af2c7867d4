"""Classes a fresh blind set (blind65) found, each failing before its fix:

- 派咗幾多次息 / 每股派 asks dividends, which the data lack (was a count of trading days);
- a spread in basis points on one month and its widening against another month states both
  the level and the move in basis points; 殖利率 is Taiwan's word for a bond's yield;
- A比B高了百分之几 sets one quarter over the other (was each quarter's own change);
- a generic name (油价) beside its named sibling ("用WTI月度數據計") is that series, which then
  starts on its own month; a claim of a halving (腰斩) or a doubling is said to hold or not.

And classes it declined: the distance below a year's high said in Chinese (比它…全年最高收盘价
低了多少); a rebound from the year's low (由最低位反彈咗幾多); 有紀錄以嚟 as all the data; "this 20
calendar years" counting the window's years, and "which single calendar year was the worst";
"Brent (monthly avg)" naming a monthly series' own values; a doubling checked between two
closes said apart; a doggerel poem (打油诗) about an index as out of scope.

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


async def test_dividends_asked_in_cantonese_are_declined(data: Any) -> None:
    answer = await ask_offline("嬌生今年派咗幾多次息？每股派幾多錢？", date(2019, 6, 28))
    assert answer.status == "no_data", answer.summary


async def test_a_spread_level_and_its_widening_in_basis_points(data: Any) -> None:
    baa, aaa = series_values(data, "BAA"), series_values(data, "AAA")
    now = round((baa.loc["2018-12-01"] - aaa.loc["2018-12-01"]) * 100)
    before = round((baa.loc["2017-12-01"] - aaa.loc["2017-12-01"]) * 100)
    answer = await ask_offline(
        "Baa與Aaa公司債殖利率的利差，2018年12月是多少個基點？跟2017年12月相比擴大了多少個基點？",
        date(2019, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"即{now}个基点" in answer.summary, answer.summary
    assert f"相差{now - before}个基点" in answer.summary, answer.summary
    assert "殖利率" not in " ".join(answer.intent.trace if answer.intent else [])


async def test_one_quarter_higher_than_another_in_percent(data: Any) -> None:
    gdp = series_values(data, "GDPC1")
    change = (gdp.loc["2001-10-01"] / gdp.loc["2000-10-01"] - 1) * 100
    answer = await ask_offline(
        "2001年四季度美国实际GDP比2000年四季度高了百分之几？", date(2002, 3, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in answer.summary, answer.summary


async def test_a_generic_name_beside_its_named_sibling_and_a_halving_claim(data: Any) -> None:
    wti = series_values(data, "MCOILWTICO")
    fall = (wti.loc["2015-01-01"] / wti.loc["2014-06-01"] - 1) * 100
    answer = await ask_offline(
        "有人話油價由2014年6月到2015年1月腰斬咗，用WTI月度數據計，真係跌咗一半咁多？",
        date(2015, 2, 15),
    )
    assert answer.status == "ok", answer.message
    assert answer.intent is not None and [e.id for e in answer.intent.entities] == ["MCOILWTICO"]
    assert f"{fall:.2f}%" in answer.summary, answer.summary
    verdict = "成立" if fall <= -50 else "不成立"
    assert f"说法（腰斩）{verdict}" in answer.summary, answer.summary


async def test_the_distance_below_a_years_high_said_in_chinese(data: Any) -> None:
    year = _closes("AAPL").loc["2018"]
    below = (year.iloc[-1] / year.max() - 1) * 100
    answer = await ask_offline(
        "蘋果2018年最後一個交易日收市，比佢2018年全年最高收市價低咗幾多%？最高嗰日係邊日？",
        date(2019, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{abs(below):.2f}%" in answer.summary, answer.summary
    assert year.idxmax().strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_a_rebound_from_the_years_low(data: Any) -> None:
    year = _closes("PFE").loc["2020-01-01":"2020-11-30"]
    above = (year.iloc[-1] / year.min() - 1) * 100
    answer = await ask_offline(
        "輝瑞今年由最低位反彈咗幾多%呀？最低嗰日係幾號？", date(2020, 11, 30)
    )
    assert answer.status == "ok", answer.message
    assert f"{above:.2f}%" in answer.summary, answer.summary
    assert year.idxmin().strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_since_records_began_is_all_the_data(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").loc[:"2018-06-30"].dropna()
    answer = await ask_offline(
        "WTI 原油日線有紀錄以嚟最低收市價係幾多？係邊日？", date(2018, 6, 30)
    )
    assert answer.status == "ok", answer.message
    assert f"{wti.min():.2f}" in answer.summary, answer.summary
    assert wti.idxmin().strftime("%Y-%m-%d") in answer.summary, answer.summary


async def test_the_windows_years_counted_and_the_worst_single_year(data: Any) -> None:
    year_ends = _closes("KO").loc["1999":"2019"].resample("YE").last()
    returns = year_ends.pct_change().dropna()
    answer = await ask_offline(
        "可口可乐2000年到2019年这20个自然年里，有几年是上涨的？几年下跌？", date(2020, 2, 1)
    )
    assert answer.status == "ok", answer.message
    assert f"有{(returns > 0).sum()}年上涨、{(returns < 0).sum()}年下跌" in answer.summary
    index = source_frame("skfolio_index")["^GSPC"].dropna().loc["1999":"2019"]
    yearly = index.resample("YE").last().pct_change().dropna() * 100
    english = await ask_offline(
        "S&P 500 over the 20 calendar years 2000 through 2019: what was the annualized return, "
        "and which single calendar year was the worst and how much did it lose?",
        date(2020, 1, 15),
    )
    assert english.status == "ok", english.message
    assert f"was {yearly.idxmin().year} ({yearly.min():.2f}%)" in english.summary, english.summary


async def test_a_monthly_average_of_a_monthly_series_is_its_value(data: Any) -> None:
    brent = series_values(data, "MCOILBRENTEU").loc["2011":"2014"]
    answer = await ask_offline(
        "How many months from 2011 through 2014 did Brent (monthly avg) sit above $100 a barrel?",
        date(2015, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"in {(brent > 100).sum()} of {len(brent)} months" in answer.summary, answer.summary


async def test_a_doubling_checked_between_two_closes_said_apart(data: Any) -> None:
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    gained = (index.loc["2012-12-31"] / index.loc["2009-03-09"] - 1) * 100
    answer = await ask_offline(
        "is it true the S&P 500 had doubled from its March 9 2009 close by the last close of 2012?",
        date(2013, 2, 1),
    )
    assert answer.status == "ok", answer.message
    verdict = "holds" if gained >= 100 else "does not hold"
    assert f"The claim (doubled) {verdict}: the figure is {gained:.2f}%." in answer.summary


async def test_a_doggerel_poem_is_out_of_scope(data: Any) -> None:
    answer = await ask_offline("帮我写一首关于定投标普500的打油诗，四句就行", date(2020, 2, 1))
    assert answer.status == "out_of_scope", answer.message


async def test_a_claimed_fall_is_not_borne_out_by_a_rise(data: Any) -> None:
    closes = _closes("AAPL")
    rose = (closes.loc["2019-12-31"] / closes.loc["2018-12-31"] - 1) * 100
    answer = await ask_offline(
        "A columnist wrote that Apple lost about 30% in 2019. Was it really that bad?",
        date(2020, 2, 1),
    )
    assert answer.status == "ok", answer.message
    assert rose > 0 and f"The claim (about 30%) does not hold: the figure is {rose:.2f}%." in (
        answer.summary
    ), answer.summary
