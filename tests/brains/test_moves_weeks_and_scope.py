"""Reading classes a blind set found answered `ok` while wrong, or refused while answerable:

- the largest change over one session or N sessions ("biggest 1 day jump", "worst 5-day drop",
  单日最大涨幅, 一天, 五日) is that change with its dates, a level's points beside its %;
- measures no data here holds (implied volatility, option chains, intraday ticks, P/E, short
  interest) are `no_data`, never a neighbouring measure such as historical volatility;
- advice ("is it smart to put my 401k into GE") is `out_of_scope`; a what-if amount is not;
- week windows ("52w high", 近52周) go back 52 × 7 days, to the same weekday;
- a week is named by its Monday and its last session; "跌得最狠的一周" ranks weeks;
- counts of days ("# of days … under $40") work on a daily FRED series, and refuse a monthly one.

Expected figures are computed here with pandas from the packages' own data.
"""

from __future__ import annotations

from datetime import date

import arch.data.vix
import arch.data.wti
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


async def _ask(question: str, today: str) -> Answer:
    context = QuestionContext(today=date.fromisoformat(today), brain="offline")
    return await ask(question, context)


def _shown(answer: Answer) -> str:
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    return "\n".join([answer.summary or "", *(f"{t.title} {t.rows}" for t in tables)])


def _vix() -> pd.Series:
    return arch.data.vix.load()["vix"].dropna()


# --- the largest change over one or several sessions ------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "largest 1-day spike in the VIX during 2018",
        "VIX: biggest one day surge of 2018?",
        "what was the biggest jump in a single day for the VIX in 2018",
        "2018年VIX一天最大涨幅是多少",
        "恐慌指数2018年单日涨得最猛的是哪天",
    ],
)
async def test_the_largest_one_day_rise_of_a_level_is_its_daily_change_in_pct_and_points(
    data, question: str
) -> None:  # type: ignore[no-untyped-def]
    vix = _vix().loc[:"2018-12-31"]
    pct = vix.pct_change() * 100
    points = vix.diff()
    in_year = pct.loc["2018-01-01":]
    day = in_year.idxmax()
    answer = await _ask(question, "2019-01-03")
    shown = _shown(answer)
    assert answer.status == "ok", answer.message
    assert f"{in_year.max():.2f}%" in shown, shown
    assert f"{points.loc[day]:.2f}" in shown, shown  # the points beside the %
    assert day.strftime("%Y-%m-%d") in shown
    # Never the year's return in place of the day's change.
    year = (vix.loc["2018-12-31"] / vix.loc[:"2017-12-31"].iloc[-1] - 1) * 100
    assert f"{year:.2f}%" not in (answer.summary or "")


@pytest.mark.parametrize(
    "question",
    [
        "worst 5-day drop of the S&P 500 in 2018",
        "标普500 2018年五日最大跌幅",
        "标普500 2018年5个交易日最大跌幅",
    ],
)
async def test_the_largest_change_over_n_sessions_spans_n_sessions(data, question: str) -> None:  # type: ignore[no-untyped-def]
    closes = load_sp500_index()["SP500"].loc[:"2018-12-31"]
    changes = (closes / closes.shift(5) - 1) * 100
    in_year = changes.loc["2018-01-01":]
    end = in_year.idxmin()
    start = closes.index[closes.index.get_loc(end) - 5]
    answer = await _ask(question, "2019-01-03")
    shown = _shown(answer)
    assert answer.status == "ok", answer.message
    assert f"{in_year.min():.2f}%" in shown, shown
    assert start.strftime("%Y-%m-%d") in shown and end.strftime("%Y-%m-%d") in shown, shown


async def test_a_stock_s_largest_daily_moves_are_both_sides(data) -> None:  # type: ignore[no-untyped-def]
    closes = load_sp500_dataset()["JPM"].loc[:"2020-12-31"]
    pct = (closes.pct_change() * 100).loc["2020-01-01":]
    answer = await _ask("JPM's biggest daily swings in 2020", "2021-01-05")
    shown = _shown(answer)
    assert answer.status == "ok", answer.message
    assert f"{pct.max():.2f}%" in shown and f"{pct.min():.2f}%" in shown, shown


# --- measures no bundled data holds -----------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("what is the implied volatility of MSFT options for the June expiry", "implied"),
        ("show me the vol smile on apple", "smile"),
        ("JPM put/call ratio and open interest this year", "open interest"),
        ("AAPL intraday tick data for today", "intraday"),
        ("微软期权的隐含波动率", "隐含波动率"),
        ("苹果今天的分时图", "分时"),
        ("苹果的市盈率是多少", "市盈率"),
        ("特斯拉的做空比例", "做空比例"),
        ("what's the P/E of Coca-Cola", "P/E"),
    ],
)
async def test_a_measure_no_data_holds_is_no_data_never_a_neighbour(
    data, question: str, said: str
) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask(question, "2022-06-30")
    assert answer.status == "no_data", (answer.status, answer.summary)
    assert said.casefold() in (answer.message or "").casefold(), answer.message
    assert not answer.outputs


# --- advice and what-ifs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "would it be wise to move my IRA into JPM now?",
        "is it a good idea to sell all my Walmart shares",
        "do you recommend Exxon at these levels",
        "is Microsoft a buy here?",
        "我该不该把养老金都买成微软",
        "现在是买入苹果的好时机吗",
        "你推荐买可口可乐吗",
        "建议我加仓英伟达吗",
    ],
)
async def test_advice_is_out_of_scope_in_both_languages(data, question: str) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask(question, "2022-06-30")
    assert answer.status == "out_of_scope", (answer.status, answer.summary)
    assert not answer.outputs


async def test_a_what_if_amount_is_answered(data) -> None:  # type: ignore[no-untyped-def]
    closes = load_sp500_dataset()["GE"].loc[:"2020-12-31"]
    base = closes.loc[:"2019-12-31"].iloc[-1]
    worth = 10_000 * closes.iloc[-1] / base
    answer = await _ask("if I had put $10k into GE in 2020, what would it be worth", "2021-01-05")
    assert answer.status == "ok", answer.message
    assert f"{worth:,.2f}" in (answer.summary or "")


# --- week windows and weeks -------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "how far is JPM below its 52w high",
        "how far below its 52-wk high is JPM",
        "摩根大通离52周高点还差多少",
    ],
)
async def test_a_52_week_window_goes_back_364_days(data, question: str) -> None:  # type: ignore[no-untyped-def]
    today = pd.Timestamp("2022-10-14")
    closes = load_sp500_dataset()["JPM"].loc[:today]
    start = today - pd.Timedelta(weeks=52)  # the same weekday, 52 weeks back
    window = closes.loc[start:]
    distance = (window.iloc[-1] / window.max() - 1) * 100
    answer = await _ask(question, "2022-10-14")
    assert answer.status == "ok", answer.message
    assert answer.intent is not None and answer.intent.start == start.date()
    assert f"{distance:.2f}" in _shown(answer).replace("−", "-")


@pytest.mark.parametrize(
    ("question", "zh"),
    [
        ("标普500 2022年涨得最猛的一周是哪周", True),
        ("which week of 2022 did the S&P 500 rally the most", False),
    ],
)
async def test_a_week_is_named_by_its_monday_and_its_last_session(
    data, question: str, zh: bool
) -> None:  # type: ignore[no-untyped-def]
    closes = load_sp500_index()["SP500"].loc[:"2022-12-31"]
    last = closes.groupby(closes.index.to_period("W-FRI")).tail(1)
    weekly = (last.pct_change() * 100).loc["2022-01-01":]
    end = weekly.idxmax()
    monday = end - pd.Timedelta(days=end.weekday())
    answer = await _ask(question, "2023-01-05")
    summary = answer.summary or ""
    assert answer.status == "ok", answer.message
    assert f"{weekly.max():.2f}%" in summary, summary
    joint = "至" if zh else " to "
    assert f"{monday:%Y-%m-%d}{joint}{end:%Y-%m-%d}" in summary, summary


# --- counts of days on a series that is not a price -------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "# of days in 2016 WTI crude closed under $35",
        "no. of sessions WTI oil ended below 35 dollars in 2016",
        "2016年WTI原油收盘低于35美元的天数",
    ],
)
async def test_a_count_of_days_works_on_a_daily_fred_series(data, question: str) -> None:  # type: ignore[no-untyped-def]
    wti = arch.data.wti.load()["DCOILWTICO"].dropna().loc["2016-01-01":"2016-12-31"]
    expected = int((wti < 35).sum())
    answer = await _ask(question, "2017-01-05")
    assert answer.status == "ok", answer.message
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    assert any(expected in row for t in tables for row in t.rows), [t.rows for t in tables]


async def test_a_count_of_days_on_a_monthly_series_is_refused(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("how many days did Brent close above $60 in 2014", "2015-01-05")
    assert answer.status == "no_data", answer.summary
    assert "daily" in (answer.message or "")
