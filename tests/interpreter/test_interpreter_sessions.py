"""Kernels by session: idle ones stop, the longest idle one makes room, a kernel below the
configured isolation never starts."""

from __future__ import annotations

import os
import time

import pytest

from datapilot.interpreter import isolation
from datapilot.interpreter.isolation import IsolationError
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.sessions import Sessions
from datapilot.settings import Settings


@pytest.mark.slow
def test_idle_kernels_stop_and_the_oldest_makes_room() -> None:
    sessions = Sessions(Settings(interpreter_idle_s=1.0, interpreter_max_sessions=1))
    try:
        first = sessions.kernel("alice", "a")
        assert sessions.kernel("alice", "a") is first  # the same session keeps its kernel
        second = sessions.kernel("alice", "b")  # only one may live: the idle one is stopped
        assert not first.alive and second.alive and len(sessions) == 1
        # Nobody asks for another kernel: the idle one is stopped all the same.
        deadline = time.monotonic() + 10
        while second.alive and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not second.alive and len(sessions) == 0
    finally:
        sessions.close()


def test_below_the_minimum_isolation_nothing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "available_level", lambda: "audit")
    with pytest.raises(IsolationError) as refused:
        SandboxKernel(Settings(interpreter_min_isolation="namespace"))
    assert "bubblewrap" in str(refused.value)
    assert "DATAPILOT_INTERPRETER_MIN_ISOLATION" in str(refused.value)


def test_the_audit_level_refuses_sockets_processes_and_the_data_dir(
    monkeypatch: pytest.MonkeyPatch,
    data,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setattr(isolation, "available_level", lambda: "audit")
    settings = Settings(interpreter_min_isolation="audit", interpreter_timeout_s=10)
    if os.geteuid() == 0 and not isolation.others_can_run_python():
        # Root whose Python other users cannot run: the kernel could not drop root, so it is
        # refused (tests/interpreter/test_interpreter_nonroot.py runs this level as an ordinary
        # user).
        with pytest.raises(IsolationError) as refused:
            SandboxKernel(settings)
        assert "root" in str(refused.value) and "bubblewrap" in str(refused.value)
        return
    kernel = SandboxKernel(settings).start()
    try:
        code = (
            "import os, socket, subprocess\n"
            "for name, attempt in [\n"
            "    ('socket', lambda: socket.create_connection(('1.1.1.1', 80), timeout=2)),\n"
            "    ('process', lambda: subprocess.run(['id'])),\n"
            f"    ('data dir', lambda: os.listdir({str(settings.data_dir)!r})),\n"
            f"    ('warehouse', lambda: open({str(settings.warehouse_path)!r}, 'rb')),\n"
            "    ('write', lambda: open('/usr/escaped', 'w')),\n"
            "]:\n"
            "    try:\n        attempt()\n        print(name, 'ESCAPED')\n"
            "    except Exception as e:\n        print(name, 'CONTAINED', type(e).__name__)\n"
            "open('scratch.txt', 'w').write('ok'); print(open('scratch.txt').read())\n"
            "print(sorted(k for k in os.environ if 'KEY' in k or k.startswith('DATAPILOT')))"
        )
        chunks = list(kernel.run(code))
        text = "".join(str(c.content) for c in chunks if c.format == "output" and c.content)
        assert "ESCAPED" not in text, text
        assert text.count("CONTAINED") == 5, text
        assert "ok\n[]" in text
        assert chunks[-1].content["isolation"]["level"] == "audit"
    finally:
        kernel.close()
