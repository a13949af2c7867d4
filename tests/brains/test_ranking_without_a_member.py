"""A ranking with a member left out ("the factor ETFs except SIZE", 除了SIZE): the member is absent
and every other one is still ranked — "the worst one" is a pronoun, never a count that cuts the
ranking to one — with the gap between the best and the worst when asked, listed from the side said
first. Expected returns are computed here with pandas from skfolio's shipped factor ETF prices."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_factors_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


def _returns_2021(left_out: str) -> dict[str, float]:
    prices = load_factors_dataset()
    changes = (prices[:"2021-12-31"].iloc[-1] / prices[:"2020-12-31"].iloc[-1] - 1) * 100
    return {k: float(v) for k, v in changes.drop(left_out).items()}


@pytest.mark.parametrize(
    ("question", "left_out"),
    [
        ("Of the factor ETFs except SIZE, which had the best 2021 and by how many points did it "
         "beat the worst one?", "SIZE"),
        ("除了SIZE，因子ETF里2021年谁表现最好？比最差的高几个百分点？", "SIZE"),
        ("Leaving out QUAL, which factor ETF was best in 2021, and by how many percentage points "
         "did it beat the worst one?", "QUAL"),
    ],
)  # fmt: skip
async def test_the_ranking_without_the_member_is_whole_with_its_gap(
    data: Any, question: str, left_out: str
) -> None:
    returns = _returns_2021(left_out)
    answer = await ask(question, QuestionContext(today=date(2022, 3, 31), brain="offline"))
    assert answer.status == "ok", answer.message
    assert sorted(e.id for e in answer.intent.entities) == sorted(returns)
    for value in returns.values():
        assert f"{value:.2f}%" in answer.summary, answer.summary
    gap = max(returns.values()) - min(returns.values())
    assert f"{gap:.2f}" in answer.summary, answer.summary
    # listed from the best, the side asked first
    listed = [float(x) for x in re.findall(r"(?:^|[;；:：]\s*)1\.\s*\S+\s*(?:ETF\s*)?(-?\d+\.\d+)%",
                                             answer.summary)]  # fmt: skip
    assert listed == [round(max(returns.values()), 2)], answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "MTUM vs USMV vs VLUE in 2022 - rank them and tell me the gap between the best and the "
        "worst.",
        "MTUM、USMV和VLUE 2022年收益率排名，最好和最差的差距是多少",
    ],
)
async def test_a_gap_asked_is_given_or_the_answer_is_not_ok(data: Any, question: str) -> None:
    prices = load_factors_dataset()[["MTUM", "USMV", "VLUE"]]
    changes = (prices[:"2022-12-31"].iloc[-1] / prices[:"2021-12-31"].iloc[-1] - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2023, 6, 30), brain="offline"))
    if answer.status == "ok":
        assert f"{changes.max() - changes.min():.2f}" in answer.summary, answer.summary


@pytest.mark.parametrize(
    ("question", "ids", "year"),
    [
        ("MTUM vs USMV vs VLUE in 2022 - rank them and tell me the gap between the best and the "
         "worst.", ["MTUM", "USMV", "VLUE"], 2022),
        ("MTUM、USMV和VLUE 2022年收益率排名，最好和最差的差距是多少",
         ["MTUM", "USMV", "VLUE"], 2022),
        ("Rank the factor ETFs by 2021 return: how far ahead was the best over the worst?",
         ["MTUM", "QUAL", "SIZE", "USMV", "VLUE"], 2021),
    ],
)  # fmt: skip
async def test_the_gap_between_a_rankings_ends_is_given(
    data: Any, question: str, ids: list[str], year: int
) -> None:
    """Every member ranked, and the best's lead over the worst in percentage points."""
    prices = load_factors_dataset()[ids]
    last, base = prices[: f"{year}-12-31"].iloc[-1], prices[: f"{year - 1}-12-31"].iloc[-1]
    changes = (last / base - 1) * 100
    answer = await ask(question, QuestionContext(today=date(2023, 6, 30), brain="offline"))
    assert answer.status == "ok", answer.message
    for value in changes:
        assert f"{value:.2f}%" in answer.summary, answer.summary
    assert f"{changes.max() - changes.min():.2f} percentage points" in answer.summary.replace(
        "个百分点", " percentage points"
    ), answer.summary
