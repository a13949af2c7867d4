"""Tool calls a model writes as text: read where the form is unambiguous, never shown as text."""

from __future__ import annotations

import json

import pytest
from support.llm import LOOPBACK, client_for, time_limit

from datapilot.core.model_messages import ModelResponse
from datapilot.model_client import UnreadableToolCalls
from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.model_client.tokens import count_tokens
from datapilot.model_client.toolcalls import read_calls

pytestmark = LOOPBACK
# The scripted endpoint counts tokens: its first count loads the encoding, seconds on a busy
# machine, which would count against the first test's timeouts.
count_tokens("warm up")

NAMES = {"get_weather", "ask_data"}
PARIS = ("get_weather", {"city": "Paris"})
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>',
        'Let me look. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n',
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        '```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```',
        '[{"type": "function", "function": {"name": "get_weather", '
        '"arguments": "{\\"city\\": \\"Paris\\"}"}}]',
    ],
    ids=["tags", "tags-list", "prose-then-unclosed-tag", "bare-json", "fence", "openai-shape"],
)
def test_calls_written_as_text_are_read(text: str) -> None:
    read = read_calls(text, NAMES)
    assert [(c.name, json.loads(c.arguments)) for c in read.calls] == [PARIS]


@pytest.mark.parametrize(
    "text",
    [
        "Apple returned 34.65% in 2021.",
        '{"answer": 42}',  # an answer given as JSON, not a call
        "```python\nprint(1)\n```",
        "[1] Apple is a company.",
    ],
)
def test_plain_answers_are_not_calls(text: str) -> None:
    assert read_calls(text, NAMES) == read_calls("", NAMES)
    assert not read_calls(text, NAMES).attempted


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>', "not valid"),
        ('{"name": "delete_everything", "arguments": {}}', "not one of the tools"),
        ('<tool_call>{"name": "get_weather", "arguments": [1]}</tool_call>', "not a JSON object"),
        ('<tool_call>{"arguments": {"city": "Paris"}}</tool_call>', "without a tool name"),
    ],
)
def test_call_like_text_that_cannot_be_read_says_why(text: str, problem: str) -> None:
    read = read_calls(text, NAMES)
    assert read.attempted and not read.calls
    assert problem in read.problem


@time_limit(20)
async def test_a_streamed_call_written_as_text_is_a_call_and_never_text() -> None:
    written = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    with ScriptedEndpoint([Reply(content=written)]) as endpoint:
        client = client_for(endpoint)
        pieces = [p async for p in client.stream_tools([], tools=[WEATHER], options={})]
    assert len(pieces) == 1  # no text piece went out
    reply = pieces[0]
    assert isinstance(reply, ModelResponse)
    assert reply.finish_reason == "tool_calls"
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [PARIS]


@time_limit(20)
async def test_prose_still_streams_and_an_unreadable_call_is_an_error_not_text() -> None:
    with ScriptedEndpoint([Reply(content="It is sunny in Paris today.")]) as endpoint:
        client = client_for(endpoint)
        pieces = [p async for p in client.stream_tools([], tools=[WEATHER], options={})]
        assert "".join(p for p in pieces if isinstance(p, str)) == "It is sunny in Paris today."
        assert len(pieces) > 2  # streamed piece by piece, not held back
        endpoint.load([Reply(content='{"name": "rm_rf", "arguments": {}}')])
        shown: list[str] = []
        with pytest.raises(UnreadableToolCalls, match="not one of the tools"):
            async for piece in client.stream_tools([], tools=[WEATHER], options={}):
                shown.append(piece)  # type: ignore[arg-type]
    assert shown == []
