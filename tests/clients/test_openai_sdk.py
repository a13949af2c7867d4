"""The official `openai` SDK against a live server on loopback, without a model: every
parameter honoured or refused naming it, `parse()` with a pydantic model, charts as PNG links
fetchable with the same key, and errors in OpenAI's shape."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from pydantic import BaseModel
from support.live_server import LOOPBACK
from support.openai_face import live_offline
from support.platform_app import QUESTION, apple_2021_return_pct

pytestmark = LOOPBACK
ASK = [{"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, data: object) -> Iterator[tuple[str, str]]:
    with live_offline(tmp_path_factory.mktemp("sdk")) as served:
        yield served


@pytest.fixture(scope="module")
def client(live: tuple[str, str]) -> Iterator[openai.OpenAI]:
    url, key = live
    with openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=120) as sdk:
        yield sdk


def figure() -> str:
    return f"{apple_2021_return_pct():.2f}%"


def test_create_and_stream_carry_the_answer_only(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="datapilot", messages=ASK)  # type: ignore[arg-type]
    content = reply.choices[0].message.content or ""
    stream = client.chat.completions.create(model="datapilot", messages=ASK, stream=True)  # type: ignore[arg-type]
    streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    for text in (content, streamed):
        assert figure() in text and "No model" not in text
        assert "/charts/" in text and "| AAPL |" in text  # the chart's link, the table's row
    assert reply.model_extra and "DATAPILOT_LLM_MODEL" in reply.model_extra["datapilot"]["notice"]


class Summary(BaseModel):
    query: str
    summary: str


def test_parse_and_json_object(client: openai.OpenAI) -> None:
    parsed = client.chat.completions.parse(
        model="datapilot",
        messages=ASK,  # type: ignore[arg-type]
        response_format=Summary,
    )
    summary = parsed.choices[0].message.parsed
    assert summary is not None and summary.query == QUESTION and figure() in summary.summary
    reply = client.chat.completions.create(
        model="datapilot",
        messages=ASK,  # type: ignore[arg-type]
        response_format={"type": "json_object"},
    )
    assert figure() in json.loads(reply.choices[0].message.content or "")["summary"]


def test_stop_and_max_tokens_cut_the_text(client: openai.OpenAI) -> None:
    stopped = client.chat.completions.create(model="datapilot", messages=ASK, stop="%")  # type: ignore[arg-type]
    assert "%" not in (stopped.choices[0].message.content or "x%")
    short = client.chat.completions.create(model="datapilot", messages=ASK, max_tokens=4)  # type: ignore[arg-type]
    assert short.choices[0].finish_reason == "length"
    assert short.usage is not None and 0 < short.usage.completion_tokens <= 4


@pytest.mark.parametrize(
    ("param", "value"),
    [("n", 2), ("logprobs", True), ("temperature", 5), ("top_p", 2), ("seed", "x"), ("zz", 1)],
)
def test_refusals_name_the_parameter(client: openai.OpenAI, param: str, value: Any) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="datapilot",
            messages=ASK,  # type: ignore[arg-type]
            extra_body={param: value},
        )
    assert isinstance(caught.value.body, dict) and caught.value.body["param"] == param


def test_models_embeddings_and_keys(client: openai.OpenAI, live: tuple[str, str]) -> None:
    assert client.models.retrieve("datapilot").id == "datapilot"
    with pytest.raises(openai.NotFoundError, match="DATAPILOT_EMBEDDINGS_BASE_URL"):
        client.embeddings.create(model="any", input="apple")
    url, _ = live
    stranger = openai.OpenAI(base_url=f"{url}/v1", api_key="dp-nobody", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        stranger.models.list()
    assert isinstance(caught.value.body, dict) and caught.value.body["code"] == "invalid_key"


def test_a_chart_is_a_png_link_fetchable_with_the_same_key(
    client: openai.OpenAI, live: tuple[str, str]
) -> None:
    url, key = live
    reply = client.chat.completions.create(model="datapilot", messages=ASK)  # type: ignore[arg-type]
    links = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", reply.choices[0].message.content or "")
    assert links and all(link.startswith(f"{url}/charts/") for link in links)
    png = httpx.get(links[0], headers={"Authorization": f"Bearer {key}"})
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
