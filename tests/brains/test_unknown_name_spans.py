"""A name the catalog does not know is quoted whole, as the user wrote it.

A Chinese fund name holds everyday characters and words (中 of 中欧, 行业, 健康) and an English one
holds "Fund" or a place ("E Fund", "China Europe"); the answer that says it does not know the
name quotes all of it, never a fragment ("欧医疗", "易方达旗"), and grammar around a name (旗下,
名叫) is not part of it. The part of the question that can be answered still is, with the
figure computed here with pandas from skfolio's shipped prices.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.brains.offline import OfflineBrain
from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


async def _ask(question: str) -> Answer:
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


def _apple_2021_return() -> float:
    prices = load_sp500_dataset()["AAPL"]
    base = prices[prices.index < "2021-01-01"].iloc[-1]
    return (prices["2021"].iloc[-1] / base - 1) * 100


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("中欧医疗健康混合今年的收益率", "中欧医疗健康混合"),
        ("易方达消费行业近三年的波动率是多少", "易方达消费行业"),
        ("易方达旗舰成长的走势如何", "易方达旗舰成长"),  # a trend asked: not out of scope
        ("E Fund Consumer Industry volatility, past three years", "E Fund Consumer Industry"),
    ],
)
async def test_an_unknown_fund_alone_is_quoted_whole(data: Any, question: str, name: str) -> None:
    answer = await _ask(question)
    assert answer.status == "no_data"
    quoted = f"“{name}”" if "“" in (answer.message or "") else f'"{name}"'
    assert quoted in (answer.message or ""), answer.message


@pytest.mark.parametrize(
    ("question", "name", "fragment"),
    [
        ("苹果和中欧医疗健康混合2021年的收益率", "“中欧医疗健康混合”", "“欧医疗"),
        ("Apple and E Fund Blue Chip Select returns in 2021", '"E Fund Blue Chip Select"', '"Blue'),
    ],
)
async def test_beside_a_known_name_the_unknown_one_is_quoted_whole_and_the_rest_answered(
    data: Any, question: str, name: str, fragment: str
) -> None:
    answer = await _ask(question)
    assert answer.status == "ok" and [e.id for e in answer.intent.entities] == ["AAPL"]
    assert f"{_apple_2021_return():.2f}%" in answer.summary
    notes = " ".join(answer.notes)
    assert name in notes and fragment not in notes, notes


def test_grammar_around_a_name_is_not_part_of_it(data: Any) -> None:
    """旗下 (under) and 名叫 (named) are words of the sentence: the names left are 易方达, 张坤."""
    brain = OfflineBrain(catalog=data.catalog)
    question = "易方达旗下的那个名叫张坤的基金经理他管理的基金有几只"
    reading = brain.read(question, QuestionContext(today=TODAY))
    assert reading.ledger is not None
    assert reading.ledger.left_over == ["易方达", "张坤"]
