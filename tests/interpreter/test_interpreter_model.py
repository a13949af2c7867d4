"""`POST /api/v1/interpreter` with a model: the model writes code (a `python` function call or a
fenced block), the stream stops at the confirmation, and after `run` the model reads the output
and answers. Every stream rebuilds into its messages as Open Interpreter's example client does.
Expected figures come from the source dataset, read with pandas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from support.interpreter import process_chunks, scripted_interpreter_app
from support.live_server import LOOPBACK
from support.platform_app import client_of, key_for

from datapilot.core.messages import LmcChunk
from datapilot.interpreter.protocol import rebuild
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK

QUESTION = {"role": "user", "type": "message", "content": "What was MSFT's highest close in 2021?"}
RUN = {"role": "user", "type": "command", "content": "run"}
CODE = (
    "m = dp.prices('MSFT', '2021-01-01', '2021-12-31', field='adj_close')['MSFT']\n"
    "print('max', round(float(m.max()), 2))"
)


def expected_max() -> float:
    from skfolio.datasets import load_sp500_dataset

    return round(float(load_sp500_dataset()["MSFT"].loc["2021"].max()), 2)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint([Reply(content="hello")]) as served:
        yield served


@pytest.fixture(scope="module")
def app(  # type: ignore[no-untyped-def]
    tmp_path_factory: pytest.TempPathFactory, endpoint: ScriptedEndpoint, data
) -> Iterator[FastAPI]:
    yield from scripted_interpreter_app(tmp_path_factory, endpoint, "interp-model")


@pytest.fixture(scope="module")
def keys(app: FastAPI) -> dict[str, str]:
    store = app.state.store
    return {"chat": key_for(store, "carol", "chat"), "run": key_for(store, "carol", "chat,run")}


async def post(app: FastAPI, key: str, body: Any) -> list[dict[str, Any]]:
    async with client_of(app, key) as client:
        response = await client.post("/api/v1/interpreter", json=body)
    assert response.status_code == 200, response.text
    chunks = [json.loads(line) for line in response.text.splitlines() if line]
    # The project's own rebuilding (the terminal keeps its history with it) agrees with the
    # example client's, tables aside (not an LMC message type).
    ours = [m.model_dump(exclude_none=True) for m in rebuild([LmcChunk(**c) for c in chunks])]
    theirs = [{k: v for k, v in m.items() if v is not None} for m in process_chunks(chunks)]
    assert ours == [m for m in theirs if m["type"] != "table"]
    return chunks


def analyst(request: ChatRequest) -> Reply:
    """Calls `python` once, then answers with what the sandbox printed."""
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if not tools:
        call = {"id": "c1", "name": "python", "arguments": json.dumps({"code": CODE})}
        return Reply(content="Let me look.", tool_calls=[call])
    return Reply(content=f"The sandbox printed: {tools[-1]['content']}")


async def test_the_model_writes_code_that_waits_then_reads_its_output(  # type: ignore[no-untyped-def]
    app, keys, endpoint
) -> None:
    endpoint.load(analyst)
    chunks = await post(app, keys["chat"], [QUESTION])
    messages = process_chunks(chunks)
    assert messages == [
        {"role": "assistant", "type": "message", "format": None, "content": "Let me look."},
        {"role": "assistant", "type": "code", "format": "python", "content": CODE},
        {
            "role": "computer",
            "type": "confirmation",
            "format": "execution",
            "content": {"type": "code", "format": "python", "content": CODE},
        },
    ]
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}
    assert "max" not in json.dumps([m for m in messages if m["role"] == "computer"][1:])

    # The client sends the rebuilt list back with `run`: the code runs, then the model answers.
    history = [QUESTION, *[{k: v for k, v in m.items() if v is not None} for m in messages], RUN]
    chunks = await post(app, keys["chat"], history)
    rebuilt = process_chunks(chunks)
    expected = f"max {expected_max()}"
    assert rebuilt[0] == {
        "role": "computer",
        "type": "console",
        "format": "output",
        "content": expected + "\n",
    }
    assert rebuilt[-1]["role"] == "assistant" and rebuilt[-1]["type"] == "message"
    assert expected in rebuilt[-1]["content"]
    # The model saw its call and the output as the call's result.
    last = endpoint.requests[-1]
    calls = [m for m in last.messages if m.get("tool_calls")]
    assert json.loads(calls[0]["tool_calls"][0]["function"]["arguments"]) == {"code": CODE}
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}


async def test_fenced_code_in_the_reply_is_a_code_message(app, keys, endpoint) -> None:  # type: ignore[no-untyped-def]
    prose = "Here is a sketch:\n```text\nnot code\n```\nand the code:\n"
    reply = prose + "```python\nprint(6 * 7)\n```\n"
    endpoint.load([Reply(content=reply)])
    chunks = await post(app, keys["chat"], [QUESTION])
    messages = process_chunks(chunks)
    assert [(m["role"], m["type"]) for m in messages] == [
        ("assistant", "message"),
        ("assistant", "code"),
        ("assistant", "message"),
        ("computer", "confirmation"),
    ]
    assert messages[0]["content"] == prose
    assert messages[1]["content"] == "print(6 * 7)\n"
    assert messages[3]["content"]["content"] == "print(6 * 7)\n"
    assert not any(m["type"] == "console" for m in messages)


async def test_the_models_shell_call_waits_runs_in_the_sandbox_and_is_read(  # type: ignore[no-untyped-def]
    app, keys, endpoint
) -> None:
    script = "echo uid=$(id -u)\necho $(( $(seq 3 | paste -sd+) ))"

    def shell_analyst(request: ChatRequest) -> Reply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            call = {"id": "s1", "name": "shell", "arguments": json.dumps({"code": script})}
            return Reply(content="", tool_calls=[call])
        return Reply(content=f"The shell said: {tools[-1]['content']}")

    endpoint.load(shell_analyst)
    messages = process_chunks(await post(app, keys["chat"], [QUESTION]))
    assert messages[-2:] == [
        {"role": "assistant", "type": "code", "format": "shell", "content": script},
        {
            "role": "computer",
            "type": "confirmation",
            "format": "execution",
            "content": {"type": "code", "format": "shell", "content": script},
        },
    ]
    history = [QUESTION, *[{k: v for k, v in m.items() if v is not None} for m in messages], RUN]
    rebuilt = process_chunks(await post(app, keys["chat"], history))
    console = rebuilt[0]["content"]
    uid = int(console.split("uid=")[1].split()[0])
    assert uid != 0 and console.rstrip().endswith("6"), console
    assert rebuilt[-1] == {
        "role": "assistant",
        "type": "message",
        "format": None,
        "content": f"The shell said: {console.strip()}",
    }
    # The model saw its own `shell` call, offered beside `python`.
    last = endpoint.requests[-1]
    assert {t["function"]["name"] for t in last.tools or []} == {"python", "shell"}
    calls = [m for m in last.messages if m.get("tool_calls")]
    assert calls[-1]["tool_calls"][0]["function"]["name"] == "shell"


@pytest.mark.parametrize(
    ("tag", "language", "body"),
    [
        ("javascript", "javascript", "console.log([1, 2, 3].length * 14)"),
        ("bash", "shell", "echo $((6 * 7))"),
        ("html", "html", "<p>42</p>"),
    ],
)
async def test_fenced_code_in_any_language_that_runs_is_a_code_message(  # type: ignore[no-untyped-def]
    app, keys, endpoint, tag, language, body
) -> None:
    endpoint.load([Reply(content=f"Computing:\n```{tag}\n{body}\n```\n"), Reply(content="42.")])
    messages = process_chunks(await post(app, keys["run"], [QUESTION]))
    code = [m for m in messages if m["type"] == "code" and m["role"] == "assistant"]
    assert code == [
        {"role": "assistant", "type": "code", "format": language, "content": body + "\n"}
    ]
    shown = [m for m in messages if m["role"] == "computer" and m["type"] != "confirmation"]
    if language == "html":
        assert shown == [
            {"role": "computer", "type": "code", "format": "html", "content": body + "\n"}
        ]
    else:
        assert shown[0]["type"] == "console" and shown[0]["content"] == "42\n", messages
    # The model read the output of its fenced code as text, and answered.
    assert messages[-1]["content"] == "42."
    told = endpoint.requests[-1].messages[-1]
    assert told["role"] == "user" and told["content"].startswith("Output of the code:")


async def test_auto_run_lets_the_model_go_on_in_one_stream(app, keys, endpoint) -> None:  # type: ignore[no-untyped-def]
    endpoint.load(analyst)
    chunks = await post(app, keys["run"], [QUESTION])
    kinds = [(m["role"], m["type"]) for m in process_chunks(chunks)]
    assert kinds == [
        ("assistant", "message"),
        ("assistant", "code"),
        ("computer", "confirmation"),
        ("computer", "console"),
        ("assistant", "message"),
    ]
    assert f"max {expected_max()}" in process_chunks(chunks)[-1]["content"]


async def test_rounds_are_bounded(app, keys, endpoint) -> None:  # type: ignore[no-untyped-def]
    call = {"id": "loop", "name": "python", "arguments": json.dumps({"code": "print(1)"})}
    endpoint.load([Reply(content="", tool_calls=[call])])
    before = len(endpoint.requests)
    chunks = await post(app, keys["run"], [QUESTION])
    assert len(endpoint.requests) - before == 5
    assert chunks[-2]["type"] == "error" and "every round" in chunks[-2]["content"]
    assert chunks[-1]["content"] == "complete"


@pytest.mark.parametrize(
    "first",
    [
        {"id": "b1", "name": "python", "arguments": "{not json"},
        {"id": "b2", "name": "python", "arguments": json.dumps({"source": "print(1)"})},
        {"id": "b3", "name": "ruby", "arguments": json.dumps({"code": "puts 1"})},
    ],
    ids=["bad-json", "no-code", "unknown-function"],
)
async def test_a_malformed_call_is_told_to_the_model_and_nothing_runs(  # type: ignore[no-untyped-def]
    app, keys, endpoint, first
) -> None:
    def script(request: ChatRequest) -> Reply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            return Reply(content="", tool_calls=[first])
        return Reply(content=f"noted: {tools[-1]['content']}")

    endpoint.load(script)
    chunks = await post(app, keys["run"], [QUESTION])
    messages = process_chunks(chunks)
    assert not any(m["type"] in ("console", "confirmation", "code") for m in messages)
    said = messages[-1]["content"]
    assert messages[-1]["type"] == "message"
    assert "nothing ran" in said or "no function 'ruby'" in said, said


@pytest.mark.parametrize(
    "reply",
    [Reply(status=500), Reply(content="", finish_reason="stop"), Reply(cut_after_chunks=1)],
    ids=["http-500", "empty", "dropped"],
)
async def test_a_failing_model_ends_the_stream_with_an_error(app, keys, endpoint, reply) -> None:  # type: ignore[no-untyped-def]
    if reply.cut_after_chunks:
        reply = Reply(content="```python\nprint('half", cut_after_chunks=2)
    endpoint.load([reply])
    chunks = await post(app, keys["run"], [QUESTION])
    process_chunks(chunks)  # every opened block is closed
    errors = [c for c in chunks if c["type"] == "error"]
    assert len(errors) == 1 and "model could not answer" in errors[0]["content"]
    assert not any(c["type"] in ("console", "confirmation") for c in chunks)
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}
