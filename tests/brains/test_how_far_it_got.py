"""How far a series got, and when: "how wide did the Baa-Aaa corporate spread get in 08-09 and
which month?", "how narrow did it get in 2004-2005, and which month?" — the window's extreme and
its period, as "the widest … and which month" is. Expected figures are computed here with pandas
from the warehouse's Moody's yields."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from support.asking import ask

from datapilot.core.context import QuestionContext


def _wide(data: Any, ids: list[str]) -> pd.DataFrame:
    bars = data.warehouse.series(ids, date(1999, 1, 1), date(2010, 12, 31))
    wide = bars.pivot(index="date", columns="id", values="value")
    wide.index = pd.to_datetime(wide.index)
    return wide


async def test_how_wide_a_spread_got_and_which_month(data: Any) -> None:
    wide = _wide(data, ["BAA", "AAA"]).loc["2008":"2009"]
    spread = wide["BAA"] - wide["AAA"]
    answer = await ask(
        "how wide did the Baa-Aaa corporate spread get in 08-09 and which month?",
        QuestionContext(today=date(2015, 6, 1), brain="offline"),
    )
    assert answer.status == "ok", answer.message
    assert f"{spread.max():.2f}" in answer.summary, answer.summary
    assert spread.idxmax().strftime("%Y-%m") in answer.summary, answer.summary


async def test_how_narrow_a_spread_got_and_which_month(data: Any) -> None:
    wide = _wide(data, ["BAA", "AAA"]).loc["2004":"2005"]
    spread = wide["BAA"] - wide["AAA"]
    answer = await ask(
        "how narrow did the Baa-Aaa spread get in 2004-2005, and which month?",
        QuestionContext(today=date(2015, 6, 1), brain="offline"),
    )
    assert answer.status == "ok", answer.message
    assert f"{spread.min():.2f}" in answer.summary, answer.summary
    assert spread.idxmin().strftime("%Y-%m") in answer.summary, answer.summary
