"""Classes fresh blind sets (blind73, blind74) found, each failing before its fix:

- two closes set against each other (2018年平安夜的收盘价，跟2019年平安夜的收盘价比), the move asked
  in Sichuan words (涨了好多喃): one move between them (was each day's own change);
- a day said by its date and described (2020年3月23号疫情跌到最低那天, "the day the sell-off
  bottomed"): the date decides (the words were read as a condition on falling days);
- a sum put in as Cantonese says it (擺咗8萬美金落…), 每年平均複合回報 and 年化係幾多: the holding
  and its CAGR;
- a spread at two months, its legs asked (給 both yields), 之差 as the spread's word: each level
  in basis points, both legs and the move;
- the N tightest (highest) months or quarters of a rate or a spread: ranked by level, in bp when
  asked (was the window's change, or one leg's months);
- a factor compounded over two stretches of years set against each other: each stretch's own
  compounded return (was each month's value);
- the name asked about without data, compared with another ("compare it with SMB"), and 谁涨得多
  with one name missing: declined (was the other name's figures alone);
- a recovery's trading days: the sessions from the peak to the first close back at it;
- halves of a decade ("first half of the 2010s", 九十年代后半段);
- 落后最好的那个多少个点: the ranking's gap;
- a day's close and the average of the year holding it: both (was the average alone);
- the end of last month (上个月底): its last day, not the month;
- "a good time to open a short position", 推薦三檔: advice.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask_offline, bokeh_series, series_values
from support.numeric_expect import source_frame


def _stock(ticker: str) -> pd.Series:
    return source_frame("skfolio_sp500")[ticker].dropna()


def _move(closes: pd.Series, first: str, last: str) -> float:
    return float((closes.loc[:last].iloc[-1] / closes.loc[:first].iloc[-1] - 1) * 100)


def _cagr(closes: pd.Series, first: str, last: str) -> float:
    base, end = closes.loc[:first].index[-1], closes.loc[:last].index[-1]
    growth = closes.loc[end] / closes.loc[base]
    return float((growth ** (365.25 / (end - base).days) - 1) * 100)


async def test_two_closes_set_against_each_other_bound_one_move(data: Any) -> None:
    moved = _move(_stock("MSFT"), "2018-12-24", "2019-12-24")
    answer = await ask_offline(
        "2018年平安夜那天微软的收盘价，跟2019年平安夜的收盘价比，涨了好多喃？", date(2020, 1, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"{moved:.2f}%" in answer.summary, answer.summary


async def test_a_day_said_by_its_date_and_described(data: Any) -> None:
    made = _move(_stock("JNJ"), "2020-03-23", "2020-12-31")
    for question in (
        "2020年3月23号疫情跌到最低那天，我要是收盘买了强生，拿到2020年年底，赚了百分之几嘛？",
        "Bought JNJ at the close on March 23, 2020, the day the pandemic sell-off bottomed, and "
        "held to the end of 2020: what % did I make?",
    ):
        answer = await ask_offline(question, date(2021, 3, 1))
        assert answer.status == "ok", answer.message
        assert f"{made:.2f}%" in answer.summary, answer.summary


async def test_a_sum_put_in_said_in_cantonese_with_its_yearly_rate(data: Any) -> None:
    closes = _stock("JNJ")
    worth = 80_000 * closes.loc["2018-09-14"] / closes.loc["2008-09-15"]
    answer = await ask_offline(
        "雷曼破產嗰日（2008年9月15號）收市我擺咗8萬美金落嬌生，到今日值幾多？每年平均複合回報有幾多？",
        date(2018, 9, 14),
    )
    assert answer.status == "ok", answer.message
    assert f"{worth:,.0f}美元" in answer.summary, answer.summary
    assert f"{_cagr(closes, '2008-09-15', '2018-09-14'):.2f}%" in answer.summary
    answer = await ask_offline(
        "2010年12月31號收市擺10萬美金落聯合健康（UNH），而家變成幾多？年化係幾多%？",
        date(2020, 12, 31),
    )
    assert answer.status == "ok", answer.message
    assert f"{_cagr(_stock('UNH'), '2010-12-31', '2020-12-31'):.2f}%" in answer.summary


async def test_a_spread_at_two_months_with_its_legs_and_its_move(data: Any) -> None:
    baa, aaa = series_values(data, "BAA"), series_values(data, "AAA")
    answer = await ask_offline(
        "Moody's Baa minus Aaa: what's the Dec 2018 print (give me both yields too), and how "
        "many bps wider is that than Dec 2017?",
        date(2019, 1, 20),
    )
    assert answer.status == "ok", answer.message
    day = "2018-12-01"
    for leg in (baa.loc[day], aaa.loc[day]):
        assert f"{leg:.2f}%" in answer.summary, answer.summary
    wider = round((baa - aaa).loc[day] * 100 - (baa - aaa).loc["2017-12-01"] * 100)
    assert f"a difference of {wider} basis points" in answer.summary, answer.summary
    spread = baa - aaa
    answer = await ask_offline(
        "穆迪Baa和Aaa公司债收益率之差，2015年12月是多少个基点？比2014年12月扩大了多少个基点？",
        date(2016, 1, 20),
    )
    assert answer.status == "ok", answer.message
    now, then = (round(spread.loc[d] * 100) for d in ("2015-12-01", "2014-12-01"))
    assert f"即{now}个基点" in answer.summary and f"为{then}个基点" in answer.summary
    assert f"相差{now - then}个基点" in answer.summary, answer.summary


async def test_the_tightest_months_of_a_spread_ranked_by_level(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2010":"2018"]
    tightest = spread.sort_values(kind="stable").head(3)
    answer = await ask_offline(
        "Baa-Aaa credit spread, 2010 through 2018: which three months printed the tightest, and "
        "at how many bp?",
        date(2019, 1, 20),
    )
    assert answer.status == "ok", answer.message
    for day, level in tightest.items():
        assert f"{level:.2f}% on {day:%Y-%m-%d}" in answer.summary, answer.summary
    in_bp = ", ".join(str(round(v * 100)) for v in tightest.iloc[:-1])
    assert f"That is {in_bp} and {round(tightest.iloc[-1] * 100)} basis points" in answer.summary
    # In Chinese, the spread's own months: never one leg's
    answer = await ask_offline("2010到2018年Baa和Aaa利差最低的三个月？", date(2019, 1, 20))
    assert answer.status == "ok", answer.message
    for day, level in tightest.items():
        assert f"{level:.2f}%，在{day:%Y-%m-%d}" in answer.summary, answer.summary


async def test_the_highest_quarters_of_a_rate(data: Any) -> None:
    rate = series_values(data, "UNRATE").loc["1980":"1989"]
    quarters = rate.groupby(rate.index.to_period("Q")).mean().sort_values(ascending=False)
    answer = await ask_offline(
        "the 3 quarters with the highest unemployment rate in the 1980s", date(1995, 1, 1)
    )
    assert answer.status == "ok", answer.message
    for quarter, level in quarters.head(3).items():
        assert f"{level:.2f}%" in answer.summary and f"({quarter})" in answer.summary


async def test_a_factor_compounded_over_two_stretches(data: Any) -> None:
    hml = series_values(data, "FF_HML")
    first = ((1 + hml.loc["2007-01":"2011-12"] / 100).prod() - 1) * 100
    second = ((1 + hml.loc["2012-01":"2017-12"] / 100).prod() - 1) * 100
    answer = await ask_offline(
        "HML compounded: Jan 2007-Dec 2011 vs Jan 2012-Dec 2017. In which stretch did value get "
        "crushed, and what was each cumulative figure?",
        date(2018, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{first:.2f}%" in answer.summary and f"{second:.2f}%" in answer.summary


async def test_the_name_asked_about_without_data_is_not_answered_by_the_other(data: Any) -> None:
    answer = await ask_offline(
        "What did the Fama-French momentum factor (UMD / Mom) return in 2009, compounded? Want "
        "to compare it with SMB.",
        date(2010, 3, 1),
    )
    assert answer.status == "no_data", answer.summary
    answer = await ask_offline("去年英伟达和苹果比，谁涨得多？差多少？", date(2022, 3, 1))
    assert answer.status == "no_data", answer.summary
    assert "NVDA" in answer.message


async def test_a_recovery_in_trading_days(data: Any) -> None:
    closes = source_frame("skfolio_index")["^GSPC"].dropna()
    peak_day = closes.loc["2007-10"].idxmax()
    after = closes.loc[peak_day:].iloc[1:]
    back = after[after >= closes.loc[peak_day]].index[0]
    sessions = len(closes.loc[peak_day:back]) - 1
    answer = await ask_offline(
        "S&P 500 from its October 2007 closing high: how deep did the fall go (peak to trough, "
        "with the dates), and how many trading days after the peak did it first close back at "
        "or above that high?",
        date(2014, 6, 30),
    )
    assert answer.status == "ok", answer.message
    assert f"({sessions} trading days)" in answer.summary, answer.summary
    assert f"closing at {closes.loc[back]:,.2f}" in answer.summary, answer.summary
    answer = await ask_offline(
        "标普500 2007年10月高点之后最大回撤多少？过了多少个交易日才收复？", date(2014, 6, 30)
    )
    assert answer.status == "ok", answer.message
    assert f"{sessions}个交易日" in answer.summary, answer.summary


async def test_halves_of_a_decade(data: Any) -> None:
    nasdaq = source_frame("arch_nasdaq")["^IXIC"].dropna()
    returns = nasdaq.loc["2009-12-31":"2014-12-31"].pct_change().dropna()
    volatility = returns.std() * 252**0.5 * 100
    answer = await ask_offline(
        "Nasdaq Composite, first half of the 2010s: compound annual return and annualized "
        "volatility of daily returns please.",
        date(2016, 5, 2),
    )
    assert answer.status == "ok", answer.message
    assert f"{_cagr(nasdaq, '2009-12-31', '2014-12-31'):.2f}%" in answer.summary
    assert f"{volatility:.2f}%" in answer.summary, answer.summary
    sp500 = source_frame("skfolio_index")["^GSPC"].dropna()
    answer = await ask_offline("标普500九十年代后半段的年化收益率是多少？", date(2005, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"{_cagr(sp500, '1994-12-31', '1999-12-31'):.2f}%" in answer.summary


async def test_how_far_the_worst_trailed_the_best(data: Any) -> None:
    moves = {t: _move(_stock(t), "2019-06-30", "2022-06-30") for t in ("AAPL", "MSFT", "AMD")}
    gap = max(moves.values()) - min(moves.values())
    answer = await ask_offline(
        "近三年苹果、微软和AMD哪个表现最差？落后最好的那个多少个点？", date(2022, 6, 30)
    )
    assert answer.status == "ok", answer.message
    assert f"{gap:.2f}个百分点" in answer.summary, answer.summary


async def test_a_days_close_and_the_average_of_its_year(data: Any) -> None:
    closes = bokeh_series("IBM", "close")
    average = closes.loc["2011"].mean()
    for question in (
        "IBM's close on Dec 30 2011, and its average close for 2011?",
        "IBM 2011年12月30日的收盤價（未還原的實際成交價）是多少？"
        "2011年全年的平均收盤價（同樣不還原）又是多少？",
    ):
        answer = await ask_offline(question, date(2012, 3, 1))
        assert answer.status == "ok", answer.message
        assert f"{closes.loc['2011-12-30']:.2f}" in answer.summary, answer.summary
        assert f"{average:.2f}" in answer.summary, answer.summary


async def test_the_end_of_last_month_is_its_last_day(data: Any) -> None:
    moved = _move(_stock("PEP"), "2022-06-30", "2022-07-20")
    for question in (
        "How much has PEP moved since the end of last month?",
        "百事从上个月底到现在涨了多少？",
    ):
        answer = await ask_offline(question, date(2022, 7, 20))
        assert answer.status == "ok", answer.message
        assert f"{moved:.2f}%" in answer.summary, answer.summary


async def test_a_short_position_or_picks_asked_for_are_advice(data: Any) -> None:
    for question in (
        "Is now a good time to open a short position on AMD? Just tell me yes or no.",
        "想存股領息，可以推薦三檔適合長抱的美股高股息標的嗎？",
    ):
        answer = await ask_offline(question, date(2022, 12, 28))
        assert answer.status == "out_of_scope", answer.summary
        assert not re.search(r"Devices's", answer.message or "")


async def test_the_biggest_one_day_percentage_drop(data: Any) -> None:
    moves = source_frame("skfolio_index")["^GSPC"].dropna().pct_change().loc["2020"] * 100
    worst = moves.idxmin()
    for question in (
        "What was the S&P 500's biggest one-day percentage drop in 2020, and on what date?",
        "S&P 500 largest single-day percentage decline in 2020",
    ):
        answer = await ask_offline(question, date(2021, 1, 10))
        assert answer.status == "ok", answer.message
        assert f"worst day in 2020 was {worst:%Y-%m-%d} ({moves.min():.2f}%" in answer.summary


async def test_a_months_end_said_after_the_month(data: Any) -> None:
    closes = _stock("PEP")
    june = closes.loc["2022-06"]
    answer = await ask_offline(
        "百事可樂上個月的平均收盤價（還原）是多少？月底那天收在多少？", date(2022, 7, 10)
    )
    assert answer.status == "ok", answer.message
    assert f"{june.mean():.2f}美元" in answer.summary, answer.summary
    assert f"在{june.index[-1]:%Y-%m-%d}为{june.iloc[-1]:.2f}美元" in answer.summary


async def test_a_gap_claimed_between_two_names_is_checked(data: Any) -> None:
    xom, cvx = (_move(_stock(t), "2020-12-31", "2021-12-31") for t in ("XOM", "CVX"))
    answer = await ask_offline(
        "fact check: 'Exxon outgained Chevron by over 10 points in 2021.' right or wrong? "
        "numbers pls",
        date(2022, 1, 10),
    )
    assert answer.status == "ok", answer.message
    verdict = "holds" if xom - cvx > 10 else "does not hold"
    assert f"The claim (over 10 points) {verdict}: XOM was {xom - cvx:.2f}" in answer.summary
    index = source_frame("skfolio_index")["^GSPC"].dropna()
    wmt, sp = (
        _move(_stock("WMT"), "2020-06-30", "2021-06-30"),
        _move(index, "2020-06-30", "2021-06-30"),
    )
    answer = await ask_offline(
        "Is it true Walmart trailed the S&P 500 by about 19 points over the past year?",
        date(2021, 6, 30),
    )
    assert answer.status == "ok", answer.message
    verdict = "holds" if abs(sp - wmt - 19) <= 1 else "does not hold"
    assert f"The claim (about 19 points) {verdict}" in answer.summary, answer.summary
    assert f"{sp - wmt:.2f} percentage points ahead" in answer.summary
    msft, sp = (
        _move(_stock("MSFT"), "2021-12-31", "2022-12-28"),
        _move(index, "2021-12-31", "2022-12-28"),
    )
    answer = await ask_offline(
        "有人说微软今年以来跑输大盘（标普500）将近10个百分点，这个说法对吗？", date(2022, 12, 28)
    )
    assert answer.status == "ok", answer.message
    assert f"{msft:.2f}%" in answer.summary and f"{sp:.2f}%" in answer.summary
    verdict = "成立" if abs(sp - msft - 10) <= 1 else "不成立"
    assert f"说法（将近10个百分点）{verdict}" in answer.summary, answer.summary


async def test_a_count_of_big_moves_beside_the_best_and_worst_days(data: Any) -> None:
    moves = _stock("BAC").pct_change().loc["2009"] * 100
    answer = await ask_offline(
        "BAC in 2009: how many sessions closed up or down more than 10%? and what were its "
        "single best and worst days?",
        date(2010, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"on {int((moves.abs() > 10).sum())} of {len(moves)}" in answer.summary
    assert f"best day in 2009 was {moves.idxmax():%Y-%m-%d} ({moves.max():.2f}%)" in answer.summary
    assert f"worst day in 2009 was {moves.idxmin():%Y-%m-%d} ({moves.min():.2f}%)" in answer.summary


async def test_a_count_of_big_moves_beside_the_best_and_worst_weeks(data: Any) -> None:
    closes = _stock("XOM").loc["2019-12-31":"2020-12-31"]
    weekly = closes.resample("W-SUN").last().pct_change().dropna() * 100
    daily = closes.pct_change().dropna() * 100
    answer = await ask_offline(
        "Exxon 2020: best week, worst week, and how many sessions moved more than 7% either way?",
        date(2021, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"on {int((daily.abs() > 7).sum())} of {len(daily)}" in answer.summary
    assert f"{weekly.max():.2f}%" in answer.summary and f"{weekly.min():.2f}%" in answer.summary
    closes = _stock("RRC").loc["2015-12-31":"2016-12-31"]
    weekly = closes.resample("W-SUN").last().pct_change().dropna() * 100
    daily = closes.pct_change().dropna() * 100
    answer = await ask_offline(
        "RRC（Range Resources）2016年单日跌幅超过7%的有几天？全年跌得最惨的是哪一周，跌了多少？",
        date(2017, 1, 10),
    )
    assert answer.status == "ok", answer.message
    assert f"有{int((daily < -7).sum())}个交易日" in answer.summary, answer.summary
    assert f"{weekly.min():.2f}%" in answer.summary and "收益率为" not in answer.summary
