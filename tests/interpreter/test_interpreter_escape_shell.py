# ruff: noqa: E501 - each case is one line of shell, kept whole
"""The escape suite for shell code: bash started in the session's sandbox tries to reach the
network, the host's files, the server's environment and processes, and to lift its limits.
Each case is a command that succeeds only if the sandbox leaks: the run prints ESCAPED when it
succeeds, CONTAINED (with what stopped it) when it fails. Every one must be contained, and the
session and the server go on normally afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from support import paths
from support.interpreter import process_chunks, report
from support.live_server import LOOPBACK
from support.platform_app import app_for, client_of, key_for

from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]

SECRET = "sk-test-shell-secret-0123456789"
PROCESSES = 32


@pytest.fixture(scope="module")
def listeners() -> Iterator[dict[str, Any]]:
    """A TCP port on 127.0.0.1 (and ::1) and a unix socket, listening in the server's namespace."""
    opened: list[socket.socket] = []

    def listen(family: int, address: Any) -> socket.socket:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen()
        opened.append(sock)
        return sock

    port = listen(socket.AF_INET, ("127.0.0.1", 0)).getsockname()[1]
    with contextlib.suppress(OSError):  # a host without IPv6 loopback
        listen(socket.AF_INET6, ("::1", port))
    path = Path(tempfile.mkdtemp()) / "server.sock"
    listen(socket.AF_UNIX, str(path))
    os.chmod(path, 0o777)
    note = path.with_name("host-note.txt")  # a file anyone on the host may read
    note.write_text(SECRET)
    note.chmod(0o644)
    yield {"port": port, "unix": str(path), "pid": os.getpid(), "note": str(note)}
    for sock in opened:
        sock.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, data) -> Iterator[FastAPI]:  # type: ignore[no-untyped-def]
    os.environ["DATAPILOT_LLM_API_KEY"] = SECRET
    os.environ["AWS_SECRET_ACCESS_KEY"] = SECRET
    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{Settings().data_dir / 'escape-shell.sqlite3'}"),
        interpreter_auto_run=True,
        interpreter_timeout_s=4,
        interpreter_memory_mb=1024,
        interpreter_disk_mb=20,
        interpreter_processes=PROCESSES,
        interpreter_output_chars=20_000,
    )
    made = app_for(settings)
    try:
        yield made
    finally:
        del os.environ["DATAPILOT_LLM_API_KEY"], os.environ["AWS_SECRET_ACCESS_KEY"]
        made.state.interpreter_sessions.close()


@pytest.fixture(scope="module")
def key(app: FastAPI) -> str:
    return key_for(app.state.store, "mallory", "chat,run")


async def run(
    app: FastAPI, key: str, code: str, session: str = "escape", language: str = "shell"
) -> list[dict[str, Any]]:
    body = {
        "messages": [{"role": "user", "type": "code", "format": language, "content": code}],
        "session": session,
    }
    async with client_of(app, key) as client:
        response = await client.post("/api/v1/interpreter", json=body)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines() if line]


def output(chunks: list[dict[str, Any]]) -> str:
    return "".join(m["content"] or "" for m in process_chunks(chunks) if m["type"] == "console")


def verdict(command: str) -> str:
    """Bash that runs `command` in a subshell and says whether it got through."""
    return (
        f"if ( {command} ) > /tmp/attempt 2>&1; then echo ESCAPED; "
        "else echo CONTAINED $(head -c 160 /tmp/attempt | tr '\\n' ' '); fi"
    )


def cases(listen: dict[str, Any], settings: Settings) -> dict[str, str]:
    """name -> a command that succeeds only if the sandbox leaks."""
    warehouse, store = settings.warehouse_path, settings.data_dir / "escape-shell.sqlite3"
    site = next(p for p in sys.path if p.endswith("site-packages"))
    project = paths.ROOT / "datapilot" / "settings.py"
    port, unix, pid, python = listen["port"], listen["unix"], listen["pid"], sys.executable
    return {
        # network
        "tcp to the internet": "exec 3<>/dev/tcp/1.1.1.1/80",
        "tcp to the server's loopback": f"exec 3<>/dev/tcp/127.0.0.1/{port}",
        "tcp to the server's ipv6 loopback": f"exec 3<>/dev/tcp/::1/{port}",
        "udp to a dns server": "echo x > /dev/udp/8.8.8.8/53",
        "dns lookup": "getent hosts example.com",
        "python from the shell to the internet": f"{python} -c \"import socket; socket.create_connection(('1.1.1.1', 80), timeout=2)\"",
        "unix socket of the server": f'{python} -c "import socket; socket.socket(socket.AF_UNIX).connect({unix!r})"',
        # host files
        "read the warehouse": f"head -c 16 {warehouse}",
        "read the store": f"head -c 16 {store}",
        "list the data dir": f"ls {settings.data_dir}",
        "read the project source": f"cat {project}",
        "read /etc/shadow": "cat /etc/shadow",
        "read a host file anyone may read": f"cat {listen['note']}",
        "write a system dir": "touch /usr/lib/escaped",
        "write the python install": f"touch {site}/escaped.py",
        "write /etc": "touch /etc/escaped",
        "write outside the work dir": "touch /escaped",
        # environment and processes
        "env vars with keys": f"env | grep -q -e {SECRET} -e DATAPILOT",
        "other processes' environ": f"grep -l {SECRET} /proc/[0-9]*/environ",
        "signal the server": f"kill -0 {pid}",
        "kill the sandbox's init": "kill -9 1",
        "become root": "test $(id -u) -eq 0",
        "chroot": "/usr/sbin/chroot / true",
        "mount over /usr": "mount -t tmpfs none /usr",
        # limits
        "lift the process cap": "ulimit -u unlimited",
        "lift the memory cap": "ulimit -v unlimited",
        "lift the cpu cap": "ulimit -t unlimited",
        "no process cap": f'test "$(ulimit -u)" = unlimited || test "$(ulimit -u)" -gt {PROCESSES}',
        "memory bomb": "dd if=/dev/zero of=/dev/null bs=1500M count=1",  # over the 1024 MB cap
        "fill the disk": "head -c 200M /dev/zero > fill; rc=$?; rm -f fill; exit $rc",
        "fill /tmp": "head -c 200M /dev/zero > /tmp/fill; rc=$?; rm -f /tmp/fill; exit $rc",
    }


CASES = [
    "tcp to the internet", "tcp to the server's loopback", "tcp to the server's ipv6 loopback",
    "udp to a dns server", "dns lookup", "python from the shell to the internet",
    "unix socket of the server", "read the warehouse", "read the store", "list the data dir",
    "read the project source", "read /etc/shadow", "read a host file anyone may read", "write a system dir",
    "write the python install", "write /etc", "write outside the work dir", "env vars with keys",
    "other processes' environ", "signal the server", "kill the sandbox's init", "become root",
    "chroot", "mount over /usr", "lift the process cap", "lift the memory cap", "lift the cpu cap",
    "no process cap", "memory bomb", "fill the disk", "fill /tmp",
]  # fmt: skip


@pytest.mark.parametrize("name", CASES)
async def test_shell_escape_is_contained(app, key, listeners, name: str) -> None:  # type: ignore[no-untyped-def]
    chunks = await run(app, key, verdict(cases(listeners, app.state.settings)[name]))
    text = output(chunks)
    assert "ESCAPED" not in text, f"{name}: {text}"
    assert "CONTAINED" in text, f"{name}: {text}"
    assert report(chunks)["isolation"]["level"] == "namespace"


def test_the_host_files_exist_so_the_reads_above_mean_something(app, listeners) -> None:  # type: ignore[no-untyped-def]
    settings = app.state.settings
    assert settings.warehouse_path.exists()
    assert (settings.data_dir / "escape-shell.sqlite3").exists()
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == SECRET
    assert Path(listeners["note"]).read_text() == SECRET


async def test_a_runaway_script_is_stopped_and_python_keeps_its_variables(app, key) -> None:  # type: ignore[no-untyped-def]
    await run(app, key, "kept = 7", session="loop", language="python")
    chunks = await run(
        app, key, "trap '' INT TERM\necho looping\nwhile :; do :; done", session="loop"
    )
    assert report(chunks)["status"] == "timeout" and output(chunks) == "looping\n"
    again = await run(app, key, "print(kept)", session="loop", language="python")
    assert output(again) == "7\n"


async def test_nothing_a_script_starts_outlives_its_run(app, key) -> None:  # type: ignore[no-untyped-def]
    await run(app, key, "sleep 313 &\necho started", session="background")
    chunks = await run(app, key, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '", session="background")
    assert "sleep 313" not in output(chunks)


@pytest.mark.parametrize(
    "code",
    [":(){ :|:& };:", "yes | head -c 80000000"],
    ids=["fork bomb", "huge output"],
)
async def test_a_runaway_shell_is_stopped_and_the_next_run_works(app, key, code) -> None:  # type: ignore[no-untyped-def]
    session = f"runaway-{abs(hash(code))}"
    chunks = await run(app, key, code, session=session)
    assert len(output(chunks)) <= 20_000
    again = await run(app, key, "echo fresh $((1 + 1))", session=session)
    assert output(again) == "fresh 2\n"
    async with client_of(app, key) as client:
        assert (await client.get("/health")).status_code == 200
