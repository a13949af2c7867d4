"""A turn driven in-process by a `FunctionModel`: the typed messages it sees, the tool loop,
and a malformed tool call, without an endpoint (the wire is `ScriptedEndpoint`'s tests)."""

from __future__ import annotations

from typing import Any

from datapilot.assistants.normalise import HistoryMessage
from datapilot.assistants.runtime import Turn
from datapilot.assistants.service import request_for
from datapilot.assistants.turn_state import TurnSetup
from datapilot.core.events import Done
from datapilot.core.model_messages import (
    ModelMessage,
    ModelResponse,
    SystemPrompt,
    ToolCall,
    ToolReturn,
    UserPrompt,
    to_openai,
)
from datapilot.model_client.function import FunctionModel
from datapilot.settings import Settings
from datapilot.tools import ToolOutput


class AddTool:
    name = "add"
    description = "Adds two numbers."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    }
    source = "workflow"

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        return ToolOutput(text=f"{arguments['a'] + arguments['b']:g}")


def turn(model: FunctionModel, question: str = "What is 2 + 3?") -> Turn:
    return Turn(
        TurnSetup(
            request=request_for(Settings()),
            history=[HistoryMessage(role="human", content=question)],
            tools={"add": AddTool()},
            model=model,
        )
    )


async def run(done: Turn) -> list[Any]:
    return [event async for event in done.events()]


def returns(messages: list[ModelMessage]) -> list[ToolReturn]:
    return [m for m in messages if isinstance(m, ToolReturn)]


async def test_a_turn_calls_a_tool_and_then_answers() -> None:
    def adder(messages: list[ModelMessage], tools: list[dict[str, Any]]) -> ModelResponse:
        results = returns(messages)
        if not results:
            call = ToolCall(id="c1", name="add", arguments='{"a": 2, "b": 3}')
            return ModelResponse(tool_calls=(call,), prompt_tokens=10, completion_tokens=3)
        return ModelResponse(
            text=f"The sum is {results[-1].content}.", prompt_tokens=20, completion_tokens=5
        )

    model = FunctionModel(adder)
    done = turn(model)
    events = await run(done)

    assert done.result.text == "The sum is 5."
    assert [m.role for m in done.result.messages] == ["tool_call", "tool", "assistant"]
    assert done.result.messages[0].prompt_tokens == 10  # a round's tokens on its first call
    assert (done.result.calls, done.result.prompt_tokens, done.result.completion_tokens) == (
        2,
        30,
        8,
    )
    first, second = model.calls
    assert isinstance(first[0], SystemPrompt) and isinstance(first[-1], UserPrompt)
    assert second[-2] == ModelResponse(
        tool_calls=(ToolCall(id="c1", name="add", arguments='{"a": 2, "b": 3}'),)
    )
    assert second[-1] == ToolReturn(tool_call_id="c1", content="5")
    # What the model client would send for the second round: OpenAI's wire dicts.
    assert to_openai(second[-2:]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "5"},
    ]
    done_event = events[-1]
    assert isinstance(done_event, Done) and done_event.answer.summary == "The sum is 5."
    assert done_event.answer.usage.llm_calls == 2


async def test_a_malformed_tool_call_gets_a_result_the_model_can_use() -> None:
    def sloppy(messages: list[ModelMessage], tools: list[dict[str, Any]]) -> ModelResponse:
        results = returns(messages)
        if not results:
            bad = ToolCall(id="b1", name="add", arguments="{not json")
            unknown = ToolCall(id="b2", name="subtract", arguments="{}")
            return ModelResponse(tool_calls=(bad, unknown))
        return ModelResponse(text="recovered")

    model = FunctionModel(sloppy)
    done = turn(model)
    await run(done)

    heard = {result.tool_call_id: result.content for result in returns(model.calls[1])}
    assert "not valid JSON" in heard["b1"]
    assert "no tool named 'subtract'" in heard["b2"]
    assert done.result.text == "recovered"
    assert [m.role for m in done.result.messages] == [
        "tool_call",
        "tool_call",
        "tool",
        "tool",
        "assistant",
    ]
