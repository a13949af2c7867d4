"""Two figures of one series in one question: a count of sessions and the window's extreme close,
"How many days did the VIX close above 30 in 2018, and what was its highest close that year?",
VIX 2018年收盘高于30的有几天？最高收盘是多少？ — both are answered (the extreme with its day), never
the count alone with the extreme declined. Expected figures are computed here with pandas from
the warehouse's VIX closes."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


def _vix(data: Any) -> pd.Series:
    bars = data.warehouse.prices(["^VIX"], date(2018, 1, 1), date(2018, 12, 31))
    return bars.set_index("date")["close"].dropna()


@pytest.mark.parametrize(
    ("question", "highest"),
    [
        ("How many days did the VIX close above 30 in 2018, and what was its highest close that "
         "year?", True),
        ("VIX 2018年收盘高于30的有几天？最高收盘是多少？", True),
        ("How many days did the VIX close above 30 in 2018, and what was its lowest close?", False),
    ],
)  # fmt: skip
async def test_a_count_and_the_windows_extreme_close(
    data: Any, question: str, highest: bool
) -> None:
    closes = _vix(data)
    day = closes.idxmax() if highest else closes.idxmin()
    answer = await ask(question, QuestionContext(today=date(2019, 1, 3), brain="offline"))
    assert answer.status == "ok", answer.message
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    shown = "\n".join([answer.summary, *(f"{t.rows}" for t in tables)])
    assert f"{int((closes > 30).sum())}" in answer.summary, answer.summary
    assert f"{closes[day]:.2f}" in shown, shown
    assert pd.Timestamp(day).date().isoformat() in shown, shown
