"""Classes a fresh blind set found answered `ok` about something else, each now read:

- a yearly (compounded) return is said with the whole window's return beside it;
- 现在比那时高了多少 after 最低收盘价是哪天: the rise from that low to the window's end;
- "Average Brent minus WTI spread": the spread's statistic, never each leg's;
- a clause after advice that asks nothing (推荐三只2023年能涨的股票，最好像礼来今年这样) is the
  advice's context;
- "how many trading days were there in March 2020?": the US market's sessions, said so.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values


async def test_a_yearly_return_comes_with_the_whole_windows(data: Any) -> None:
    closes = load_sp500_dataset()["RRC"]
    start, end = closes.loc[:"2020-12-31"].iloc[-1], closes.loc[:"2022-12-28"].iloc[-1]
    answer = await ask_offline(
        "Range Resources从2021年初到现在的年化报酬率是多少？", date(2022, 12, 28)
    )
    assert answer.status == "ok", answer.message
    assert f"{(end / start - 1) * 100:,.2f}%" in answer.summary, answer.summary


async def test_the_rise_since_that_low(data: Any) -> None:
    closes = load_sp500_dataset()["KO"].loc["2022"]
    closes = closes[closes.index <= "2022-12-28"]
    question = "可口可乐今年的最低收盘价是哪天？现在比那时高了多少？"
    answer = await ask_offline(question, date(2022, 12, 28))
    assert answer.status == "ok", answer.message
    assert f"{(closes.iloc[-1] / closes.min() - 1) * 100:.2f}%" in answer.summary, answer.summary
    assert closes.idxmin().date().isoformat() in answer.summary, answer.summary


async def test_the_average_of_a_spread(data: Any) -> None:
    spread = (series_values(data, "MCOILBRENTEU") - series_values(data, "MCOILWTICO")).loc["2011"]
    answer = await ask_offline(
        "Average Brent minus WTI spread (monthly) in 2011?", date(2012, 1, 20)
    )
    assert answer.status == "ok", answer.message
    assert f"{spread.mean():.2f}" in answer.summary, answer.summary


async def test_advice_with_a_clause_that_asks_nothing_after_it() -> None:
    answer = await ask_offline("推荐三只2023年能涨的股票，最好像礼来今年这样", date(2022, 12, 28))
    assert answer.status == "out_of_scope", answer.summary


async def test_trading_days_with_no_market_named(data: Any) -> None:
    sessions = load_sp500_index()["SP500"].loc["2020-03"]
    answer = await ask_offline("how many trading days were there in March 2020?", date(2020, 6, 1))
    assert answer.status == "ok", answer.message
    assert f" {len(sessions)} " in answer.summary, answer.summary
    assert any("No market was named" in note for note in answer.notes), answer.notes
