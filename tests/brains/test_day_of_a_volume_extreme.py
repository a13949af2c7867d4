"""The day of the highest or lowest trading volume in a window, and the volume on it in shares:
"IBM 2008年成交量最大的是哪一天？成交了多少股", "which day in 2011 had Apple's heaviest volume". The
volume comes from the source that has it (bokeh's OHLCV). Expected figures are computed here with
pandas from bokeh's shipped stocks."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext


def _volume(ticker: str) -> pd.Series:
    from bokeh_sampledata import stocks

    raw = getattr(stocks, ticker)
    return pd.Series(raw["volume"], index=pd.to_datetime(raw["date"]))


@pytest.mark.parametrize(
    ("question", "ticker", "year", "low"),
    [
        ("IBM 2008年成交量最大的是哪一天？成交了多少股", "IBM", "2008", False),
        ("苹果2011年哪天成交量最大？", "AAPL", "2011", False),
        ("微软2010年成交量最小的是哪一天", "MSFT", "2010", True),
        ("Which day in 2008 had IBM's highest trading volume, and how many shares traded?",
         "IBM", "2008", False),
        ("On which day in 2011 did Apple trade the most shares?", "AAPL", "2011", False),
        ("When was Microsoft's lowest volume day in 2010?", "MSFT", "2010", True),
        ("What was Apple's busiest trading day in 2011?", "AAPL", "2011", False),
        ("苹果2011年交易最活跃的是哪一天", "AAPL", "2011", False),
    ],
)  # fmt: skip
async def test_the_day_of_a_volume_extreme_with_its_shares(
    data: Any, question: str, ticker: str, year: str, low: bool
) -> None:
    volume = _volume(ticker)[year]
    day = volume.idxmin() if low else volume.idxmax()
    answer = await ask(question, QuestionContext(today=date(int(year) + 1, 1, 20), brain="offline"))
    assert answer.status == "ok", answer.message
    # The answer leads with the volume's day, never with another series' extreme (the close's).
    first = re.split(r"(?<=。)|(?<=\.)\s+", answer.summary)[0]
    assert day.date().isoformat() in first, answer.summary
    assert f"{int(volume[day]):,}" in first, answer.summary
