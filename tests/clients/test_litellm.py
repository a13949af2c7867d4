"""`litellm` calling Datapilot as an OpenAI-compatible provider (`openai/datapilot` with an
`api_base`), against a live server on loopback."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from support.live_server import LOOPBACK
from support.openai_face import live_offline
from support.platform_app import QUESTION, apple_2021_return_pct

# litellm fetches a price list from the internet at import unless told to use its own copy.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
pytestmark = LOOPBACK
ASK = [{"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory, data: object) -> Iterator[dict[str, Any]]:
    with live_offline(tmp_path_factory.mktemp("litellm")) as (url, key):
        yield {"model": "openai/datapilot", "api_base": f"{url}/v1", "api_key": key}


def test_completion_and_stream(provider: dict[str, Any]) -> None:
    import litellm

    reply = litellm.completion(messages=ASK, **provider)
    stream = litellm.completion(messages=ASK, stream=True, **provider)
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    for text in (reply.choices[0].message.content, streamed):
        assert f"{apple_2021_return_pct():.2f}%" in text and "No model" not in text


def test_parameters_are_honoured(provider: dict[str, Any]) -> None:
    import litellm

    short = litellm.completion(messages=ASK, max_tokens=4, **provider)
    assert short.choices[0].finish_reason == "length"
    stopped = litellm.completion(messages=ASK, stop=["%"], **provider)
    assert "%" not in stopped.choices[0].message.content
    answer = litellm.completion(messages=ASK, response_format={"type": "json_object"}, **provider)
    assert json.loads(answer.choices[0].message.content)["query"] == QUESTION


def test_a_refusal_reaches_the_caller_naming_the_parameter(provider: dict[str, Any]) -> None:
    import litellm

    with pytest.raises(litellm.BadRequestError, match="logprobs"):
        litellm.completion(messages=ASK, logprobs=True, **provider)
