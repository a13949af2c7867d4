""" "Compounded" / 按复利 asks for the compounded (cumulative) return: "Compounded, what was the
Fama-French market excess return (Mkt-RF) over 2008?" compounds the monthly returns to -37.78%,
instead of saying how the monthly figure moved from January to December. Expected figures are
computed here with pandas from arch's shipped Fama-French file."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from arch.data import frenchdata
from support.asking import ask

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    "question",
    [
        "Compounded, what was the Fama-French market excess return (Mkt-RF) over 2008?",
        "按复利计算，2008年的市场超额收益（Mkt-RF）是多少",
    ],
)
async def test_compounded_is_the_cumulative_return(data: Any, question: str) -> None:
    raw = frenchdata.load()["Mkt-RF"]
    # The file labels each row YYYYMM: the row is that month's return.
    labels = pd.to_datetime(raw.index.astype("int64").astype(str), format="%Y%m")
    months = pd.Series(raw.to_numpy(), index=labels).loc["2008-01-01":"2008-12-31"]
    compounded = ((1 + months / 100).prod() - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2009, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{compounded:.2f}%" in answer.summary, answer.summary
    assert not any("Fama" in note for note in answer.notes), answer.notes  # the factor's name
