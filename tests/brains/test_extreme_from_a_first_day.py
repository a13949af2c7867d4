"""How far a window's extreme is from the close of the first day (the IPO day, the listing day —
the first day of the data, as "since its IPO" reads) or of a named day ("how far below its
2019-12-31 close", 比2019年12月31日的收盘价低多少): "Facebook: lowest close in 2012 after the
IPO, what date, and how far below its IPO-day close was that?" is 2012's lowest close with its
date and its distance in % from the 2012-05-18 close. Expected figures are computed here with
pandas from bokeh's shipped stocks."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext


def _closes(ticker: str) -> pd.Series:
    from bokeh_sampledata import stocks

    raw = getattr(stocks, ticker)
    return pd.Series(raw["close"], index=pd.to_datetime(raw["date"]))


@pytest.mark.parametrize(
    ("question", "ticker", "year", "low"),
    [
        ("Facebook: lowest close in 2012 after the IPO, what date, and how far below its IPO-day "
         "close was that?", "FB", "2012", True),
        ("When did Facebook hit its lowest close of 2012, and how far was that below its IPO "
         "price?", "FB", "2012", True),
        ("Google's highest close in 2004 - which day, and how far above its first-day close was "
         "it?", "GOOG", "2004", False),
        ("脸书2012年的最低收盘价是哪天？比上市首日收盘价低了多少？", "FB", "2012", True),
        ("谷歌2004年最高收盘价在哪一天？比上市当天的收盘价高多少", "GOOG", "2004", False),
    ],
)  # fmt: skip
async def test_an_extreme_from_the_first_days_close(
    data: Any, question: str, ticker: str, year: str, low: bool
) -> None:
    closes = _closes(ticker)
    window = closes[year]
    day = window.idxmin() if low else window.idxmax()
    distance = (window[day] / closes.iloc[0] - 1) * 100
    today = date(int(year) + 1, 2, 1)
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    assert day.date().isoformat() in answer.summary, answer.summary
    assert f"{window[day]:.2f}" in answer.summary, answer.summary
    assert f"{abs(distance):.2f}%" in answer.summary, answer.summary
    assert closes.index[0].date().isoformat() in answer.summary, answer.summary


def _index() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset, load_sp500_index

    return pd.concat([load_sp500_index()["SP500"].rename("^GSPC"), load_sp500_dataset()], axis=1)


@pytest.mark.parametrize(
    ("question", "ticker", "day", "year"),
    [
        ("Apple's lowest close in 2020: what day, and how far below its 2019-12-31 close was it?",
         "AAPL", "2019-12-31", "2020"),
        ("苹果2020年最低收盘价是哪天？比2019年12月31日的收盘价低多少？", "AAPL", "2019-12-31",
         "2020"),
        ("When did the S&P 500 hit its 2020 low, and how far was it below its Feb 19 2020 close?",
         "^GSPC", "2020-02-19", "2020"),
    ],
)  # fmt: skip
async def test_an_extreme_from_a_named_days_close(
    data: Any, question: str, ticker: str, day: str, year: str
) -> None:
    closes = _index()[ticker].dropna()
    after = closes[(closes.index >= day) & (closes.index <= f"{year}-12-31")]
    low = after.idxmin()
    distance = (after[low] / closes[day] - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2022, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    first = answer.summary.split("。")[0].split(". ")[0]
    assert low.date().isoformat() in first, answer.summary
    assert f"{abs(distance):.2f}%" in first, answer.summary
    assert day in first and "first day of the data" not in first, answer.summary
