"""Nothing a run starts outlives it, even a process that left the run's process group and
session (`setsid`): after the run ends, ok or stopped by the wall clock, the file such a loop
writes every 0.2 s stops changing, and the next run of the session works. And the sandbox
cannot make user namespaces of its own (the way to capabilities inside one)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.interpreter import console_text, report, wire

from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.languages import program_cell
from datapilot.settings import Settings

# Writes the time to `alive` every 0.2 s, in its own session and process group.
LOOP = "while true; do date +%s%N > alive; sleep 0.2; done"
# Python run after the run that started the loop: did `alive` change over 1 s?
CHANGING = (
    "import pathlib, time\n"
    "seen = pathlib.Path('alive').read_text()\n"
    "time.sleep(1)\n"
    "print('changing' if pathlib.Path('alive').read_text() != seen else 'still')"
)


@pytest.fixture(scope="module")
def kernel() -> Iterator[SandboxKernel]:
    started = SandboxKernel(Settings(interpreter_timeout_s=3)).start()
    yield started
    started.close()


def run(kernel: SandboxKernel, code: str, language: str = "python") -> list[dict]:
    cell = code if language == "python" else program_cell(language, code, kernel)
    return wire(list(kernel.run(cell)))


def test_the_kernel_is_in_namespaces() -> None:
    # The cases below start programs: they mean something only inside the sandbox.
    assert SandboxKernel(Settings()).level == "namespace"


@pytest.mark.parametrize(
    ("language", "code", "status"),
    [
        ("shell", f"nohup setsid sh -c '{LOOP}' >/dev/null 2>&1 &\nsleep 0.5", "ok"),
        ("shell", f"nohup setsid sh -c '{LOOP}' >/dev/null 2>&1 &\nsleep 100", "timeout"),
        (
            "python",
            f"import subprocess, time\nsubprocess.Popen(['sh', '-c', 'setsid sh -c \"{LOOP}\" &'], "
            "start_new_session=True)\ntime.sleep(0.5)",
            "ok",
        ),
    ],
    ids=["shell ends", "shell timeout", "python ends"],
)
def test_a_setsid_background_loop_stops_with_its_run(
    kernel: SandboxKernel, language: str, code: str, status: str
) -> None:
    started = run(kernel, code, language)
    assert report(started)["status"] == status
    checked = run(kernel, CHANGING)
    assert report(checked)["status"] == "ok", console_text(checked)
    assert console_text(checked) == "still\n"
    again = run(kernel, "echo next run $((6 * 7))", "shell")
    assert console_text(again) == "next run 42\n"


@pytest.mark.parametrize("command", ["unshare -r true", "unshare -rm true", "unshare -rn true"])
def test_no_user_namespace_inside_the_sandbox(kernel: SandboxKernel, command: str) -> None:
    chunks = run(kernel, f"if {command}; then echo MADE; else echo REFUSED; fi", "shell")
    assert "REFUSED" in console_text(chunks) and "MADE" not in console_text(chunks)
