"""Two figures of one measure, each over its own window, and the gap between them:
穆迪Baa和Aaa的利差2018年12月是多少？比2018年1月扩大了多少个百分点？ — each month's spread and how
far the first moved from the second (percentage points of a rate), never the two figures alone
with the gap declined.
Expected figures are computed here with pandas from the warehouse's Moody's yields."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput


def _spread(data: Any, month: str) -> float:
    bars = data.warehouse.series(["BAA", "AAA"], date(2017, 1, 1), date(2019, 1, 1))
    wide = bars.pivot(index="date", columns="id", values="value")
    wide.index = pd.to_datetime(wide.index)
    row = wide.loc[month].iloc[0]
    return float(row["BAA"] - row["AAA"])


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("穆迪Baa和Aaa的利差2018年12月是多少？比2018年1月扩大了多少个百分点？",
         "2018-12", "2018-01"),
        ("What was the Baa minus Aaa spread in December 2018, and by how many percentage points "
         "did it widen from January 2018?", "2018-12", "2018-01"),
    ],
)  # fmt: skip
async def test_each_figure_and_the_gap_between_them(
    data: Any, question: str, first: str, second: str
) -> None:
    a, b = _spread(data, first), _spread(data, second)
    answer = await ask(question, QuestionContext(today=date(2019, 1, 15), brain="offline"))
    assert answer.status == "ok", answer.message
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    shown = "\n".join([answer.summary, *(f"{t.rows}" for t in tables)])
    for value in (a, b, a - b):
        assert f"{value:.2f}" in shown, shown
