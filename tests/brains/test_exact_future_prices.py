"""An exact price asked for a day after the data is declined (`no_data`), never answered `ok`
with a modelled number standing in for it: the message says why and offers the forecast, which is
still answered as a forecast when asked as one."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("What exact price will Apple close at on March 31, 2023?", "Forecast"),
        ("Tell me precisely where the S&P 500 will be in 6 months", "Forecast"),
        ("苹果2023年3月31日的收盘价确切是多少", "预测"),
        ("标普500未来三个月后准确是多少点", "预测"),
    ],
)
async def test_an_exact_future_price_is_declined_with_the_forecast_offered(
    data: Any, question: str, says: str
) -> None:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "no_data", answer.summary
    assert says in (answer.message or ""), answer.message
    assert not answer.outputs


@pytest.mark.parametrize(
    "question", ["Forecast Apple's price to March 31, 2023", "预测苹果未来三个月的股价"]
)
async def test_a_forecast_asked_as_one_is_still_answered_as_a_forecast(
    data: Any, question: str
) -> None:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert "forecast" in answer.intent.metrics
    assert "forecast" in answer.summary.lower() or "预测" in answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "What will the S&P 500 be in 6 months?",
        "Where will Apple trade in 3 months?",
        "标普500半年后会是多少点",
        "苹果三个月后的股价会是多少",
    ],
)
async def test_in_a_length_with_will_is_ahead_not_the_past(data: Any, question: str) -> None:
    """ "In 6 months" after "will" is that far ahead: a forecast said to be one, never the past
    six months' closes."""
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert "forecast" in answer.intent.metrics
    assert answer.summary.startswith(("The forecast", "预测")), answer.summary
