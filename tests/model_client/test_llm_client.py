"""The model client against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import socket

import pytest
from support.llm import LOOPBACK, client_for, time_limit

from datapilot.model_client import (
    LLMClient,
    LLMConfig,
    LLMRefused,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
    count_chat,
    count_tokens,
    extract_json_object,
)
from datapilot.model_client.scripted import Reply, ScriptedEndpoint

pytestmark = LOOPBACK

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}}
ASK = [{"role": "user", "content": "What is six times seven? Reply as JSON."}]


async def _ask(client: LLMClient) -> dict:
    reply = await client.complete_json(ASK, schema=SCHEMA, schema_name="answer")
    return extract_json_object(reply.text)


@time_limit(10)
async def test_json_reply_and_usage_as_the_endpoint_reported_it() -> None:
    with ScriptedEndpoint([Reply(content='{"answer": 42}')]) as endpoint:
        client = client_for(endpoint)
        assert await _ask(client) == {"answer": 42}
    assert endpoint.requests[0].response_format["type"] == "json_schema"
    usage = client.meter.total()
    assert usage.llm_calls == 1
    assert usage.prompt_tokens == count_chat(ASK)
    assert usage.completion_tokens == count_tokens('{"answer": 42}')


@time_limit(10)
async def test_usage_is_counted_locally_when_the_endpoint_omits_it() -> None:
    with ScriptedEndpoint([Reply(content='{"answer": 42}', omit_usage=True)]) as endpoint:
        client = client_for(endpoint)
        await _ask(client)
    assert client.meter.total().prompt_tokens == count_chat(ASK) > 10


@time_limit(10)
async def test_schema_rejection_falls_back_to_json_mode_then_text_and_is_remembered() -> None:
    old_server = Reply(content='Sure! {"answer": 42} Hope it helps.', reject_json_mode=True)
    with ScriptedEndpoint([old_server]) as endpoint:
        client = client_for(endpoint)
        assert await _ask(client) == {"answer": 42}
        kinds = [(r.response_format or {}).get("type") for r in endpoint.requests]
        assert kinds == ["json_schema", "json_object", None]
        assert await _ask(client) == {"answer": 42}  # the next call goes straight to text
        assert len(endpoint.requests) == 4
        assert endpoint.requests[-1].response_format is None


@time_limit(10)
async def test_429_is_retried_after_the_servers_delay() -> None:
    script = [
        Reply(status=429, error="slow down", retry_after_ms=20),
        Reply(content='{"answer": 1}'),
    ]
    with ScriptedEndpoint(script) as endpoint:
        assert await _ask(client_for(endpoint)) == {"answer": 1}
    assert len(endpoint.requests) == 2


@time_limit(10)
async def test_500_forever_ends_with_a_clear_error_after_the_retries() -> None:
    endpoint = ScriptedEndpoint([Reply(status=500, retry_after_ms=5)])
    with endpoint, pytest.raises(LLMUnavailable, match=r"HTTP 500 after 2 retries"):
        await _ask(client_for(endpoint, max_retries=2))
    assert len(endpoint.requests) == 3


@time_limit(10)
async def test_wrong_key_says_which_setting_to_fix() -> None:
    endpoint = ScriptedEndpoint([Reply(status=401, error="bad key")])
    with endpoint, pytest.raises(LLMUnavailable, match="DATAPILOT_LLM_API_KEY"):
        await _ask(client_for(endpoint))
    assert len(endpoint.requests) == 1  # a 401 is not retried


@time_limit(10)
async def test_connection_refused_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = LLMClient(
        LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout_s=1, max_retries=0)
    )
    with pytest.raises(LLMUnavailable, match="could not reach"):
        await _ask(client)
    assert not await client.ping(timeout_s=1)


@time_limit(10)
async def test_a_slow_endpoint_times_out() -> None:
    endpoint = ScriptedEndpoint([Reply(content="{}", delay_s=3)])
    with endpoint, pytest.raises(LLMTimeout, match=r"did not answer within 0\.3 s"):
        await _ask(client_for(endpoint, timeout_s=0.3, max_retries=0))


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(content=None, refusal="I can't help with that."), LLMRefused),
        (Reply(content="   "), LLMRefused),
        (Reply(content='{"answer": 4', finish_reason="length"), LLMTruncated),
        (Reply(content="{}", finish_reason="content_filter"), LLMRefused),
    ],
)
@time_limit(10)
async def test_refusals_empty_and_cut_replies_raise(reply: Reply, error: type) -> None:
    with ScriptedEndpoint([reply]) as endpoint, pytest.raises(error):
        await _ask(client_for(endpoint))


@time_limit(10)
async def test_stream_delivers_the_text_and_the_usage() -> None:
    text = "Apple closed at 157.74 USD on 2019-03-13, up 2.1% over the window."
    with ScriptedEndpoint([Reply(content=text)]) as endpoint:
        client = client_for(endpoint)
        pieces = [piece async for piece in client.stream_text(ASK)]
    assert len(pieces) > 3
    assert "".join(pieces) == text
    usage = client.meter.total()
    assert (usage.llm_calls, usage.completion_tokens) == (1, count_tokens(text))


@time_limit(10)
async def test_a_dropped_stream_raises_after_the_text_that_arrived() -> None:
    text = "one two three four five six seven eight"
    with ScriptedEndpoint([Reply(content=text, cut_after_chunks=3)]) as endpoint:
        client = client_for(endpoint, max_retries=0)
        pieces: list[str] = []
        with pytest.raises(LLMTruncated):
            async for piece in client.stream_text(ASK):
                pieces.append(piece)
    assert "".join(pieces) == "one two three "


@time_limit(10)
async def test_a_stalled_stream_times_out() -> None:
    with ScriptedEndpoint([Reply(content="one two three four", stall_after_chunks=1)]) as endpoint:
        client = client_for(endpoint, timeout_s=0.5, max_retries=0)
        with pytest.raises((LLMTimeout, LLMTruncated)):
            async for _ in client.stream_text(ASK):
                pass


@time_limit(10)
async def test_ping_reports_a_reachable_endpoint() -> None:
    with ScriptedEndpoint([Reply()]) as endpoint:
        assert await client_for(endpoint).ping()


@time_limit(10)
async def test_usage_records_the_time_spent_waiting() -> None:
    with ScriptedEndpoint([Reply(content='{"answer": 42}', delay_s=0.25)]) as endpoint:
        client = client_for(endpoint)
        await _ask(client)
    assert 250 <= client.meter.total().llm_latency_ms < 5000


@time_limit(10)
async def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature() -> None:
    fussy = Reply(content='{"answer": 42}', reject_params=["max_tokens", "temperature"])
    with ScriptedEndpoint([fussy]) as endpoint:
        client = client_for(endpoint)
        assert await _ask(client) == {"answer": 42}
        assert len(endpoint.requests) == 3  # learnt one parameter per rejection
        assert await _ask(client) == {"answer": 42}
        assert len(endpoint.requests) == 4  # and remembered both
        pieces = [piece async for piece in client.stream_text(ASK)]
        assert "".join(pieces) == '{"answer": 42}'
    assert client.mode == "json_schema"  # the output format was never the problem


@time_limit(10)
async def test_a_server_without_stream_usage_still_streams() -> None:
    old = Reply(content="Hello there.", reject_params=["stream_options"])
    with ScriptedEndpoint([old]) as endpoint:
        client = client_for(endpoint)
        assert "".join([piece async for piece in client.stream_text(ASK)]) == "Hello there."
    assert client.meter.total().completion_tokens == count_tokens("Hello there.")
