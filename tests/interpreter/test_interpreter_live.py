"""The interpreter against a running `datapilot serve` (uvicorn on a loopback port), spoken to
as outside clients speak to it: a WebSocket client library over a real socket, server-sent
events and NDJSON over HTTP, and a client that runs the code itself (Open Interpreter's
"computer" role on the client side)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.interpreter import console_text, process_chunks, report
from support.live_server import LOOPBACK
from support.platform_app import apple_2021_return_pct
from support.serve_process import ServeProcess, replica_dir
from websockets.sync.client import connect

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # real server processes and kernels

RUN = {"role": "user", "type": "command", "content": "run"}
COMPLETE = {"role": "server", "type": "status", "content": "complete"}


def code(language: str, text: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "type": "code", "format": language, "content": text}


@pytest.fixture(scope="module")
def server(data: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """An offline server (no model, no keys: a loopback caller needs none), kernels capped
    short so a runaway test cannot hang the suite."""
    folder = replica_dir(tmp_path_factory.mktemp("live"), Settings().warehouse_path)
    process = ServeProcess(folder, {"DATAPILOT_INTERPRETER_TIMEOUT_S": "30"}).start()
    try:
        yield process
    finally:
        process.stop()


def ndjson(server: ServeProcess, body: Any) -> list[dict[str, Any]]:
    reply = httpx.post(f"{server.url}/api/v1/interpreter", json=body, timeout=120)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in reply.text.splitlines() if line]


def sse(server: ServeProcess, body: Any) -> list[dict[str, Any]]:
    chunks = []
    headers = {"accept": "text/event-stream"}
    with httpx.stream(
        "POST", f"{server.url}/api/v1/interpreter", json=body, headers=headers, timeout=120
    ) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        for line in reply.iter_lines():
            if line.startswith("data:"):
                chunks.append(json.loads(line[len("data:") :]))
    return chunks


def exchange(socket: Any, body: Any) -> list[dict[str, Any]]:
    """One request over the WebSocket: its frames up to `server/status complete`."""
    socket.send(json.dumps(body))
    chunks: list[dict[str, Any]] = []
    while not chunks or chunks[-1] != COMPLETE:
        chunks.append(json.loads(socket.recv(timeout=120)))
    return chunks


def test_a_websocket_session_runs_python_then_shell_in_the_same_sandbox(
    server: ServeProcess,
) -> None:
    python = code("python", "open('from_python.txt', 'w').write('written by python')")
    # Each line says one thing the sandbox must keep out; the last lines print what it sees.
    shell = code(
        "shell",
        "cat from_python.txt; echo\n"
        "echo uid=$(id -u)\n"
        f"(exec 3<>/dev/tcp/127.0.0.1/{server.port}) 2>/dev/null && echo net=open"
        " || echo net=none\n"
        f"test -e {server.data_dir / 'warehouse.duckdb'} && echo data=seen || echo data=hidden\n"
        "echo env=$(env | grep -c '^DATAPILOT_')\n"
        "for i in 1 2 3; do echo tick $i; sleep 0.2; done\n",
    )
    url = server.url.replace("http://", "ws://") + "/api/v1/interpreter"
    with connect(url) as socket:
        ran = exchange(socket, {"messages": [python, RUN], "session": "ws"})
        assert report(ran)["status"] == "ok", ran

        waiting = exchange(socket, {"messages": [shell], "session": "ws"})
        assert waiting == [
            {
                "role": "computer",
                "type": "confirmation",
                "format": "execution",
                "content": {"type": "code", "format": "shell", "content": shell["content"]},
            },
            COMPLETE,
        ]
        chunks = exchange(
            socket, {"messages": [shell, *process_chunks(waiting), RUN], "session": "ws"}
        )

    # The server itself has the warehouse and the variables the sandbox must not see.
    assert (server.data_dir / "warehouse.duckdb").exists()
    text = console_text(chunks)
    assert text.startswith("written by python\n"), text
    seen = dict(re.findall(r"^(\w+)=(\S+)$", text, re.M))
    assert int(seen["uid"]) != 0 and seen["net"] == "none" and seen["data"] == "hidden", text
    assert seen["env"] == "0", text
    assert re.findall(r"tick (\d)", text) == ["1", "2", "3"]
    # Streamed as it ran: console deltas, and the running line of the script marked.
    deltas = [c for c in chunks if c["type"] == "console" and c.get("format") == "output"]
    assert len([c for c in deltas if c.get("content")]) >= 3, chunks
    lines = [c["content"] for c in chunks if c.get("format") == "active_line"]
    assert lines[:5] == [1, 2, 3, 4, 5] and 6 in lines, lines
    fence = report(chunks)
    assert fence["status"] == "ok" and fence["isolation"]["level"] == "namespace", fence


def test_a_shell_that_fails_says_so_in_its_report(server: ServeProcess) -> None:
    chunks = sse(server, [code("bash", "echo before\nls /no/such/dir\nexit 3"), RUN])
    assert "before" in console_text(chunks) and "No such file" in console_text(chunks)
    outcome = report(chunks)
    assert outcome["status"] == "error" and "status 3" in " ".join(outcome["notes"]), outcome
    assert chunks[-1] == COMPLETE


def test_python_streams_over_server_sent_events(server: ServeProcess) -> None:
    chunks = sse(server, [code("python", "print(sum(range(10)))"), RUN])
    assert console_text(chunks) == "45\n"
    assert chunks[-1] == COMPLETE


def test_javascript_runs_under_node_in_the_sandbox(server: ServeProcess) -> None:
    script = (
        "const n = [3, 4].map((x) => x * x).reduce((a, b) => a + b);\n"
        "console.log(n, typeof process.env.DATAPILOT_DATA_DIR);"
    )
    chunks = ndjson(server, [code("javascript", script), RUN])
    assert console_text(chunks) == "25 undefined\n", chunks
    assert report(chunks)["isolation"]["level"] == "namespace"


def test_html_comes_back_as_html_and_nothing_runs(server: ServeProcess) -> None:
    page = "<h1>Hi</h1><script>document.title = 'x'</script>"
    waiting = ndjson(server, [code("html", page)])
    assert waiting[0]["type"] == "confirmation" and waiting[0]["content"]["format"] == "html"
    chunks = ndjson(server, [code("html", page), RUN])
    messages = process_chunks(chunks)
    assert messages == [{"role": "computer", "type": "code", "format": "html", "content": page}]
    assert "isolation" not in report(chunks)  # no kernel was asked


def test_an_unknown_language_is_refused_naming_those_that_run(server: ServeProcess) -> None:
    for body in ([code("r", "print(1)")], [code("r", "print(1)"), RUN]):
        chunks = ndjson(server, body)
        assert chunks[0]["role"] == "server" and chunks[0]["type"] == "error", chunks
        assert "'r'" in chunks[0]["content"]
        for name in ("python", "shell", "javascript", "html"):
            assert name in chunks[0]["content"]
        assert chunks[1:] == [COMPLETE]


# -- the client as the computer, with a scripted model -----------------------------------------

CLIENT_OUTPUT = "client-side run: 7 files\n"


def analyst(request: ChatRequest) -> Reply:
    """Calls `shell` once, then answers from what the call returned."""
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if not tools:
        call = {"id": "s1", "name": "shell", "arguments": json.dumps({"code": "ls | wc -l"})}
        return Reply(content="Counting.", tool_calls=[call])
    return Reply(content=f"The run printed: {tools[-1]['content']}")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(analyst) as served:
        yield served


@pytest.fixture(scope="module")
def model_server(
    data: object, tmp_path_factory: pytest.TempPathFactory, endpoint: ScriptedEndpoint
) -> Iterator[ServeProcess]:
    folder = replica_dir(tmp_path_factory.mktemp("live-model"), Settings().warehouse_path)
    env = {
        "DATAPILOT_OFFLINE": "false",
        "DATAPILOT_LLM_BASE_URL": endpoint.base_url,
        "DATAPILOT_LLM_MODEL": "scripted",
        "DATAPILOT_LLM_MAX_RETRIES": "0",
    }
    process = ServeProcess(folder, env).start()
    try:
        yield process
    finally:
        process.stop()


def test_code_the_client_ran_is_not_rerun_and_the_model_reads_its_output(
    model_server: ServeProcess, endpoint: ScriptedEndpoint
) -> None:
    question = {"role": "user", "type": "message", "content": "How many files are there?"}
    first = sse(model_server, [question])
    history = [question, *process_chunks(first)]
    # The client breaks at the confirmation, runs the code itself and appends its output.
    assert history[-1]["type"] == "confirmation" and history[-2]["format"] == "shell"
    output = {"role": "computer", "type": "console", "format": "output", "content": CLIENT_OUTPUT}
    asked = len(endpoint.requests)
    chunks = sse(model_server, [*history, output])

    assert not [c for c in chunks if c["role"] == "computer"], "the server ran the code again"
    assert not [c for c in chunks if c.get("format") == "execution"]
    said = [m["content"] for m in process_chunks(chunks) if m["type"] == "message"]
    assert said == [f"The run printed: {CLIENT_OUTPUT.strip()}"], chunks
    sent = endpoint.requests[asked:]
    assert len(sent) == 1
    call, result = sent[0].messages[-2:]
    assert [c["function"]["name"] for c in call["tool_calls"]] == ["shell"]
    # The model reads the client's output as the result of its own call.
    assert result == {
        "role": "tool",
        "tool_call_id": call["tool_calls"][0]["id"],
        "content": CLIENT_OUTPUT.strip(),
    }
    # Approving it afterwards does not run it either.
    again = sse(model_server, [*history, output, RUN])
    assert again[0]["type"] == "error" and "has run already" in again[0]["content"]
    assert not [c for c in again if c["role"] == "computer"]


def test_the_clients_computer_output_is_capped_like_any_message(
    model_server: ServeProcess,
) -> None:
    limit = Settings().max_message_chars
    output = {
        "role": "computer",
        "type": "console",
        "format": "output",
        "content": "x" * (limit + 1),
    }
    body = [code("shell", "ls", role="assistant"), output]
    reply = httpx.post(f"{model_server.url}/api/v1/interpreter", json=body, timeout=60)
    assert reply.status_code == 422 and "DATAPILOT_MAX_MESSAGE_CHARS" in reply.text, reply.text


# -- the documented JavaScript client -----------------------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs" / "interpreter.md"


def documented_client() -> str:
    found = re.search(r"```js\n(.*?)```", DOCS.read_text(), re.S)
    assert found, "docs/interpreter.md has no ```js client"
    return found.group(1)


def test_the_documented_javascript_client_prints_the_streamed_answer(
    server: ServeProcess, tmp_path: Path
) -> None:
    client = tmp_path / "lmc-client.mjs"
    client.write_text(documented_client())
    question = "What was Apple's return in 2021?"
    done = subprocess.run(
        ["node", str(client), server.url, question],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"returned {apple_2021_return_pct():.2f}% in 2021" in done.stdout, done.stdout
