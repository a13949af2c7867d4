"""Every real server's way of saying no: a field the error names is learnt once and adapted to.

The bodies of llama-cpp-python's server are the real ones, captured from it
(`support/llm_cases/llama_cpp_server.json`); a scripted endpoint answers with them.
"""

from __future__ import annotations

import json

import pytest
from support import paths
from support.llm import LOOPBACK, client_for, time_limit

from datapilot.core.model_messages import ModelResponse
from datapilot.model_client import (
    LLMClient,
    LLMPromptTooLong,
    LLMUnavailable,
    extract_json_object,
)
from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.model_client.tokens import count_tokens

pytestmark = LOOPBACK
# The scripted endpoint counts tokens: its first count loads the encoding, seconds on a busy
# machine, which would count against the first test's timeouts.
count_tokens("warm up")

LLAMA = json.loads((paths.LLM_CASES / "llama_cpp_server.json").read_text(encoding="utf-8"))
SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}}
ASK = [{"role": "user", "content": "What is six times seven? Reply as JSON."}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


async def _ask(client: LLMClient) -> dict:
    reply = await client.complete_json(ASK, schema=SCHEMA, schema_name="answer")
    return extract_json_object(reply.text)


async def _stream(client: LLMClient, **options: object) -> ModelResponse:
    pieces = [
        piece async for piece in client.stream_tools(ASK, tools=[WEATHER], options=dict(options))
    ]
    reply = pieces[-1]
    assert isinstance(reply, ModelResponse)
    return reply


@time_limit(20)
async def test_llama_cpp_s_500_for_a_json_schema_is_a_downgrade_not_three_retries() -> None:
    llama = Reply(
        content='{"answer": 42}',
        reject_schema=True,
        rejection_status=500,
        rejection_body=LLAMA["response_format_json_schema"]["body"],
    )
    with ScriptedEndpoint([llama]) as endpoint:
        client = client_for(endpoint, max_retries=3)
        assert await _ask(client) == {"answer": 42}
        kinds = [(r.response_format or {}).get("type") for r in endpoint.requests]
        assert kinds == ["json_schema", "json_object"]  # not retried as it was
        assert await _ask(client) == {"answer": 42}  # learnt: straight to JSON mode
        assert len(endpoint.requests) == 3


@pytest.mark.parametrize(
    ("field", "status", "options", "body"),
    [
        ("tool_choice", 500, {"tool_choice": "auto"}, None),
        ("tool_choice", 422, {"tool_choice": "auto"}, None),
        ("temperature", 500, {}, LLAMA["temperature_string"]["body"]),
        ("stream_options", 422, {}, None),
        ("max_tokens", 422, {}, None),
    ],
)
@time_limit(20)
async def test_a_refused_field_is_learnt_once_per_endpoint(
    field: str, status: int, options: dict[str, object], body: dict | None
) -> None:
    fussy = Reply(
        content="It is sunny.",
        reject_params=[field],
        rejection_status=status,
        rejection_body=body,
    )
    with ScriptedEndpoint([fussy]) as endpoint:
        client = client_for(endpoint, max_retries=3)
        assert (await _stream(client, **options)).text == "It is sunny."
        assert len(endpoint.requests) == 2  # refused once, then asked without it
        assert field not in endpoint.requests[1].body
        assert (await _stream(client, **options)).text == "It is sunny."
        assert len(endpoint.requests) == 3  # and remembered
    if field == "max_tokens":  # the limit moved to the field reasoning models take
        assert endpoint.requests[-1].body["max_completion_tokens"] == 1500


@time_limit(20)
async def test_a_server_without_tools_gets_them_in_the_prompt_and_its_text_calls_are_read() -> None:
    written = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    no_tools = Reply(content=written, reject_params=["tools"], rejection_status=422)
    with ScriptedEndpoint([no_tools]) as endpoint:
        client = client_for(endpoint)
        pieces = [piece async for piece in client.stream_tools(ASK, tools=[WEATHER], options={})]
    assert pieces == [pieces[-1]]  # the call's text never reached the user
    reply = pieces[-1]
    assert isinstance(reply, ModelResponse)
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    second = endpoint.requests[1]
    assert second.tools is None
    assert "get_weather" in second.messages[0]["content"]  # described in the system prompt


@time_limit(20)
async def test_a_500_naming_a_field_that_was_not_sent_keeps_the_retries() -> None:
    broken = Reply(status=500, error="tools crashed the template", retry_after_ms=5)
    endpoint = ScriptedEndpoint([broken])
    with endpoint, pytest.raises(LLMUnavailable, match="HTTP 500 after 2 retries"):
        await _ask(client_for(endpoint, max_retries=2))
    assert len(endpoint.requests) == 3


@time_limit(20)
async def test_a_prompt_too_long_for_the_context_window_is_its_own_error() -> None:
    # llama-cpp-python's words for it (its context_length_exceeded formatter), as a 400.
    said = (
        "This model's maximum context length is 2048 tokens. However, you requested 2600 tokens "
        "(2100 in the messages, 500 in the completion). Please reduce the length of the "
        "messages or completion."
    )
    endpoint = ScriptedEndpoint([Reply(status=400, error=said)])
    with endpoint, pytest.raises(LLMPromptTooLong, match="smaller context window"):
        await _ask(client_for(endpoint, max_retries=2))
    assert len(endpoint.requests) == 1
