"""啥时候 / 啥时 / 几时 beside a rate's peak or trough ask its date, as 什么时候 and "when" do:
2000年代美国失业率最高是多少，啥时候 answers 9.60% with the quarter it was reached. Expected figures
are computed here with pandas from statsmodels' shipped macro data."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from statsmodels.datasets import macrodata
from support.asking import ask

from datapilot.core.context import QuestionContext


def _macro(column: str) -> pd.Series:
    frame = macrodata.load_pandas().data
    index = pd.PeriodIndex.from_fields(
        year=frame["year"].astype(int), quarter=frame["quarter"].astype(int), freq="Q"
    )
    return pd.Series(frame[column].to_numpy(), index=index)


@pytest.mark.parametrize(
    ("question", "column", "first", "last", "low"),
    [
        ("2000年代美国失业率最高是多少，啥时候", "unemp", "2000Q1", "2009Q4", False),
        ("美国失业率在1990年代啥时候最高", "unemp", "1990Q1", "1999Q4", False),
        ("三个月国库券利率在1980年代啥时最低", "tbilrate", "1980Q1", "1989Q4", True),
        ("What was the highest US unemployment rate in the 2000s, and when?", "unemp", "2000Q1",
         "2009Q4", False),
    ],
)  # fmt: skip
async def test_the_date_of_a_rates_extreme(
    data: Any, question: str, column: str, first: str, last: str, low: bool
) -> None:
    rates = _macro(column)[first:last]
    day = (rates.idxmin() if low else rates.idxmax()).start_time.date().isoformat()
    value = rates.min() if low else rates.max()
    answer = await ask(question, QuestionContext(today=date(2009, 12, 31), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{value:.2f}%" in answer.summary, answer.summary
    assert day in answer.summary, answer.summary


@pytest.mark.parametrize(
    "question", ["When was US inflation highest in the 1990s?", "美国通胀率1990年代啥时候最高"]
)
async def test_the_date_of_inflations_peak_is_of_its_yearly_change(
    data: Any, question: str
) -> None:
    """Inflation is the CPI's year-over-year change: its peak, never the index level's."""
    changes = (_macro("cpi").pct_change(4) * 100)["1990Q1":"1999Q4"]
    day = changes.idxmax().start_time.date().isoformat()
    answer = await ask(question, QuestionContext(today=date(2009, 12, 31), brain="offline"))
    assert answer.status == "ok", answer.message
    headline = answer.summary.split("。")[0].split(". ")[0]
    assert f"{changes.max():.2f}%" in headline and day in headline, answer.summary
