"""A weak model in a chat with tools never costs the answer: a reply that cannot be used (a tool
call written as text that cannot be read, nothing at all) is replaced by the data's answer."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.platform_app import apple_2021_return_pct

from datapilot.assistants.normalise import HistoryMessage
from datapilot.assistants.runtime import Turn
from datapilot.assistants.service import request_for
from datapilot.assistants.turn_state import TurnSetup
from datapilot.core.events import Done, Failed, TextDelta
from datapilot.core.model_messages import ModelMessage, ModelResponse
from datapilot.model_client import LLMRefused, UnreadableToolCalls
from datapilot.model_client.function import FunctionModel
from datapilot.settings import Settings
from datapilot.tools import ToolOutput

# The data brain answers each turn (a cold reader takes seconds on a busy machine).
pytestmark = pytest.mark.slow


class NeverCalled:
    name = "get_weather"
    description = "The weather in a city."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012
    source = "openapi"

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        raise AssertionError("no tool runs when the model's call cannot be read")


def _turn(model: FunctionModel, question: str) -> Turn:
    settings = Settings(brain="offline", offline=True)
    return Turn(
        TurnSetup(
            request=request_for(settings, today=date(2022, 6, 30)),
            history=[HistoryMessage(role="human", content=question)],
            tools={"get_weather": NeverCalled()},
            model=model,
        )
    )


def _failing(error: Exception) -> FunctionModel:
    def model(messages: list[ModelMessage], tools: list[dict[str, Any]]) -> ModelResponse:
        raise error

    return FunctionModel(model)


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("What was Apple's return in 2021?", "comes from the data, without tools"),
        ("苹果2021年的收益率是多少？", "答案直接来自数据"),
    ],
)
async def test_an_unreadable_tool_call_gives_the_data_answer_in_the_users_language(
    question: str, note: str, data: object
) -> None:
    error = UnreadableToolCalls("the model wrote a call of 'rm', which is not one of the tools")
    turn = _turn(_failing(error), question)
    events = [event async for event in turn.events()]

    assert not any(isinstance(event, Failed) for event in events)
    answer = events[-1].answer
    assert isinstance(events[-1], Done)
    assert answer.status == "ok", answer.message
    assert f"{apple_2021_return_pct():.2f}%" in answer.summary
    assert note in answer.notes[0]
    assert "rm" not in answer.notes[0]  # the model's error is in the trace, not the note
    assert any("'rm'" in line for line in answer.intent.trace)
    assert answer.notice is None  # a model is configured: no "no model" notice
    assert (answer.usage.llm_calls, answer.usage.llm_calls_used) == (1, 0)
    streamed = "".join(event.text for event in events if isinstance(event, TextDelta))
    assert f"{apple_2021_return_pct():.2f}%" in streamed


async def test_an_empty_reply_with_tools_bound_also_answers_from_the_data(data: object) -> None:
    turn = _turn(_failing(LLMRefused("the model answered with nothing")), "AAPL return in 2021")
    events = [event async for event in turn.events()]
    assert events[-1].answer.status == "ok"
    assert f"{apple_2021_return_pct():.2f}%" in events[-1].answer.summary
