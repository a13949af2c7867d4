"""Kernels belong to one tenant and one process: a kernel's `dp` reads only the data and
interfaces of the request that made it, the kernel cap holds however many requests bring their
own model, no kernel runs as root, and kernels die with their server."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import pandas as pd
import pytest
from support.serve_process import ServeProcess, replica_dir

from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext, with_request_model
from datapilot.engine.executor import default_registry
from datapilot.interfaces.registry import Registry, build_spec
from datapilot.interpreter import isolation
from datapilot.interpreter.isolation import IsolationError
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.sessions import pool_for
from datapilot.settings import Settings
from datapilot.tools.base import run_tool
from datapilot.tools.python import PythonTool

QUESTION = QuestionContext(today=date(2022, 12, 28), offline=True)
ALICE_MARK = 7_345_129


def alice_quotes(ctx: object) -> pd.DataFrame:
    """Alice's private quotes (stands for a tool she imported with her own secret)."""
    return pd.DataFrame({"mark": [ALICE_MARK]})


def registry_with_alices_tool() -> Registry:
    registry = Registry()
    for spec in default_registry():
        registry.register(spec)
    registry.register(build_spec(alice_quotes, "acquisition", "frame"))
    return registry


def kernel_processes() -> list[int]:
    """This process's kernels (each a direct child: bubblewrap, or the Python kernel)."""
    return [pid for pid in descendants(os.getpid(), depth=1) if is_kernel(pid)]


def descendants(root: int, depth: int = 99) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, level = [], [root]
    for _ in range(depth):
        level = [child for pid in level for child in children.get(pid, [])]
        found += level
    return found


def is_kernel(pid: int) -> bool:
    try:
        return b"launch_new_instance" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


async def test_a_kernel_reads_only_its_own_requests_interfaces(data) -> None:  # type: ignore[no-untyped-def]
    # One settings object for both, as the server shares it among assistants without a model
    # of their own: a kernel must still belong to its request, not to the settings.
    settings = Settings(offline=True, interpreter_timeout_s=60)
    alice = RequestContext.for_request(QUESTION, settings, registry=registry_with_alices_tool())
    bob = RequestContext.for_request(QUESTION, settings)
    code = (
        "print('names', 'alice_quotes' in dp.names())\n"
        "try:\n"
        "    print('value', int(dp.call('alice_quotes')['mark'].iloc[0]))\n"
        "except Exception as error:\n"
        "    print('refused', type(error).__name__)\n"
    )
    mine = await run_tool(PythonTool(alice), {"code": code})
    assert mine.ok, mine.text
    assert "names True" in mine.text and f"value {ALICE_MARK}" in mine.text

    theirs = await run_tool(PythonTool(bob), {"code": code})
    assert theirs.ok, theirs.text
    assert "names False" in theirs.text, theirs.text
    assert str(ALICE_MARK) not in theirs.text and "refused" in theirs.text


@pytest.mark.slow
async def test_the_kernel_cap_holds_for_requests_with_their_own_model(data) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(offline=True, interpreter_max_sessions=2, interpreter_timeout_s=60)
    before = set(kernel_processes())
    tools = []
    try:
        for n in range(4):  # each request brings a model: its settings are a copy
            question = QuestionContext(today=QUESTION.today, offline=True, llm_model=f"m{n}")
            request = RequestContext.for_request(question, settings)
            assert request.settings is not settings
            tool = PythonTool(request)
            tools.append(tool)
            result = await run_tool(tool, {"code": f"print({n} * 2)"})
            assert result.ok and str(n * 2) in result.text, result.text
        alive = set(kernel_processes()) - before
        assert len(alive) <= 2, f"{len(alive)} kernels alive past a cap of 2"
        assert len(pool_for(with_request_model(settings, QUESTION))) <= 2
    finally:
        pool_for(settings).close()


def test_no_kernel_runs_as_root_without_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Root, no bubblewrap, a Python other users cannot run: the kernel could only stay root,
    so it does not start, and the refusal says what to do."""
    monkeypatch.setattr(isolation, "available_level", lambda: "audit")
    monkeypatch.setattr(isolation, "others_can_run_python", lambda: False)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    with pytest.raises(IsolationError) as refused:
        SandboxKernel(Settings(interpreter_min_isolation="audit"))
    text = str(refused.value)
    assert "root" in text and "bubblewrap" in text and "ordinary user" in text


@pytest.fixture()
def server(tmp_path: Path, data) -> Iterator[ServeProcess]:  # type: ignore[no-untyped-def]
    process = ServeProcess(replica_dir(tmp_path / "serve", Settings().warehouse_path)).start()
    try:
        yield process
    finally:
        process.stop()


def start_a_kernel(server: ServeProcess) -> list[int]:
    body = [
        {"role": "user", "type": "code", "format": "python", "content": "print(6 * 7)"},
        {"role": "user", "type": "command", "content": "run"},
    ]
    reply = httpx.post(f"{server.url}/api/v1/interpreter", json=body, timeout=120)
    assert reply.status_code == 200 and "42" in reply.text, reply.text[-2000:]
    assert server.process is not None
    kernels = [pid for pid in descendants(server.process.pid) if is_kernel(pid)]
    assert kernels, "the run left no kernel to check"
    return kernels


def gone(pids: list[int], within_s: float = 30.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while True:
        left = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not zombie(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_kernels_die_with_their_server(server: ServeProcess, how: signal.Signals) -> None:
    kernels = start_a_kernel(server)
    assert server.process is not None
    os.kill(server.process.pid, how)
    server.process.wait(timeout=60)
    assert gone(kernels) == [], "kernels outlived their server"
