"""The first day within a period that a level was passed: "first day in 2021 the S&P 500 closed
above 4,000? what was the close", 2021年标普500第一个收盘高于4000点的交易日 — the first session of
the period past the level, with its close; "first day in 2021" is the period searched, never the
day 2021-01-01 with the level left unread.
Expected figures are computed here with pandas from the warehouse's closes."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


def _first_past(data: Any, start: date, end: date, level: float, above: bool) -> tuple[str, float]:
    bars = data.warehouse.prices(["^GSPC"], start, end)
    closes = bars.set_index(bars["date"].astype(str))["close"].dropna()
    past = closes[closes > level] if above else closes[closes < level]
    return str(past.index[0])[:10], float(past.iloc[0])


@pytest.mark.parametrize(
    ("question", "today", "start", "end", "level", "above"),
    [
        ("first day in 2021 the S&P 500 closed above 4,000? what was the close",
         date(2022, 1, 5), date(2021, 1, 1), date(2021, 12, 31), 4000.0, True),
        ("What was the first trading day of March 2020 that the S&P 500 closed below 2,500?",
         date(2020, 6, 1), date(2020, 3, 1), date(2020, 3, 31), 2500.0, False),
        ("2021年标普500第一个收盘高于4000点的交易日是哪天？收盘多少？",
         date(2022, 1, 5), date(2021, 1, 1), date(2021, 12, 31), 4000.0, True),
    ],
)  # fmt: skip
async def test_the_first_session_of_the_period_past_the_level(
    data: Any, question: str, today: date, start: date, end: date, level: float, above: bool
) -> None:
    day, close = _first_past(data, start, end, level, above)
    answer = await ask(question, QuestionContext(today=today, brain="offline"))
    assert answer.status == "ok", answer.message
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    shown = "\n".join([answer.summary, *(f"{t.rows}" for t in tables)])
    assert day in shown, shown
    assert f"{close:,.2f}" in answer.summary or f"{close:.2f}" in answer.summary, answer.summary
