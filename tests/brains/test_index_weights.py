"""A member's share of an index ("how much of the S&P 500 is Apple", 苹果在标普500里的权重) is a
measure no bundled source holds: the answer says so, naming it, and never shows the two price
series instead."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("how much of the S&P 500 is Apple", "index weights"),
        ("What is Apple's weight in the S&P 500?", "index weights"),
        ("苹果在标普500里的权重是多少", "指数权重"),
    ],
)
async def test_an_index_weight_is_declined_by_name(data: Any, question: str, said: str) -> None:
    answer = await ask(question, QuestionContext(today=date(2022, 12, 28), brain="offline"))
    assert answer.status == "no_data", answer.summary
    assert said in answer.message, answer.message
    assert not answer.outputs
