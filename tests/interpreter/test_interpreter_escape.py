# ruff: noqa: E501 - each case is one line of code to run, kept whole
"""The escape suite: code that tries to leave the sandbox, sent through the server like any user's
code. Every case prints CONTAINED (with what stopped it) or ESCAPED; every one must be contained,
the run's report names the isolation, and the server answers normally afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import threading
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

from datapilot.interfaces.library import default_registry
from datapilot.settings import Settings

# The test's own loopback listener (the sandbox must not reach it); runaway kernels take seconds.
pytestmark = [*LOOPBACK, pytest.mark.slow]

SECRET = "sk-test-secret-0123456789"
# Runs first in the shared session: `verdict(f)` prints CONTAINED when `f` raises, else ESCAPED.
PRELUDE = """
import os, socket, subprocess, ctypes, sys, time, json
def verdict(f):
    try:
        f()
    except BaseException as e:
        print('CONTAINED', type(e).__name__, str(e)[:120])
    else:
        print('ESCAPED')
"""


@pytest.fixture(scope="module")
def listeners() -> Iterator[dict[str, Any]]:
    """A TCP port on 127.0.0.1 and ::1, a unix socket path and an abstract unix socket, all
    listening in the server's own namespace."""
    opened: list[socket.socket] = []

    def listen(family: int, address: Any) -> socket.socket:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen()
        opened.append(sock)
        return sock

    tcp = listen(socket.AF_INET, ("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    with contextlib.suppress(OSError):  # a host without IPv6 loopback
        listen(socket.AF_INET6, ("::1", port))
    path = Path(tempfile.mkdtemp()) / "server.sock"
    listen(socket.AF_UNIX, str(path))
    os.chmod(path, 0o777)
    abstract = f"\0datapilot-escape-{os.getpid()}"
    listen(socket.AF_UNIX, abstract)
    yield {"port": port, "unix": str(path), "pid": os.getpid(), "abstract": abstract}
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
        database_url=SecretStr(f"sqlite:///{Settings().data_dir / 'escape.sqlite3'}"),
        interpreter_auto_run=True,
        interpreter_timeout_s=4,
        interpreter_memory_mb=1024,
        interpreter_disk_mb=20,
        interpreter_output_chars=20_000,
    )
    # An interface marked as writing (read_only=False): the data channel must not reach it.
    writer = default_registry().get("get_news")
    writer.read_only = False
    made = app_for(settings)
    try:
        yield made
    finally:
        writer.read_only = True
        del os.environ["DATAPILOT_LLM_API_KEY"], os.environ["AWS_SECRET_ACCESS_KEY"]
        made.state.interpreter_sessions.close()


@pytest.fixture(scope="module")
def key(app: FastAPI) -> str:
    return key_for(app.state.store, "mallory", "chat,run")


async def run(app: FastAPI, key: str, code: str, session: str = "escape") -> list[dict[str, Any]]:
    body = {
        "messages": [{"role": "user", "type": "code", "format": "python", "content": code}],
        "session": session,
    }
    async with client_of(app, key) as client:
        response = await client.post("/api/v1/interpreter", json=body)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines() if line]


def output(chunks: list[dict[str, Any]]) -> str:
    return "".join(m["content"] or "" for m in process_chunks(chunks) if m["type"] == "console")


def cases(listen: dict[str, Any], settings: Settings) -> dict[str, str]:
    """name -> code whose `verdict` escapes only if the sandbox leaks."""
    warehouse, store = settings.warehouse_path, settings.data_dir / "escape.sqlite3"
    site = next(p for p in __import__("sys").path if p.endswith("site-packages"))
    project = paths.ROOT / "datapilot" / "settings.py"
    port, unix, pid = listen["port"], listen["unix"], listen["pid"]
    return {
        "ipv4 internet": "verdict(lambda: socket.create_connection(('1.1.1.1', 80), timeout=2))",
        "ipv4 server loopback": f"verdict(lambda: socket.create_connection(('127.0.0.1', {port}), timeout=2))",
        "ipv6 internet": "verdict(lambda: socket.create_connection(('2606:4700:4700::1111', 80), timeout=2))",
        "ipv6 server loopback": f"verdict(lambda: socket.create_connection(('::1', {port}), timeout=2))",
        "udp to a dns server": "verdict(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53)))",
        "dns lookup": "verdict(lambda: socket.getaddrinfo('example.com', 80))",
        "unix socket of the server": f"def f():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect({unix!r})\nverdict(f)",
        "abstract unix socket": f"def f():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect({listen['abstract']!r})\nverdict(f)",
        "raw socket": "verdict(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))",
        "read the warehouse": f"verdict(lambda: open({str(warehouse)!r}, 'rb').read(16))",
        "read the store": f"verdict(lambda: open({str(store)!r}, 'rb').read(16))",
        "list the data dir": f"verdict(lambda: os.listdir({str(settings.data_dir)!r}))",
        "read the project source": f"verdict(lambda: open({str(project)!r}).read())",
        "import datapilot": "verdict(lambda: __import__('datapilot.settings'))",
        "env vars with keys": f"def f():\n    assert any({SECRET!r} in v for v in os.environ.values()) or any('DATAPILOT' in k for k in os.environ)\nverdict(f)",
        "other processes' environ": f"def f():\n    found = [p for p in os.listdir('/proc') if p.isdigit() and {SECRET!r} in open(f'/proc/{{p}}/environ', errors='ignore').read()]\n    assert found\nverdict(f)",
        "signal the server": f"verdict(lambda: os.kill({pid}, 0))",
        "kill the parent": "verdict(lambda: os.kill(os.getppid(), 9))",
        "write a system dir": "verdict(lambda: open('/usr/lib/escaped', 'w'))",
        "write the python install": f"verdict(lambda: open({site + '/escaped.py'!r}, 'w'))",
        "write /etc": "verdict(lambda: open('/etc/escaped', 'w'))",
        "become root": "verdict(lambda: os.setuid(0))",
        "mount via ctypes": "def f():\n    libc = ctypes.CDLL(None, use_errno=True)\n    assert libc.mount(b'none', b'/usr', b'tmpfs', 0, None) == 0\nverdict(f)",
        "socket via ctypes": "def f():\n    libc = ctypes.CDLL(None, use_errno=True)\n    fd = libc.socket(2, 1, 0)\n    addr = bytes([2, 0, 0, 80, 1, 1, 1, 1]) + bytes(8)\n    assert libc.connect(fd, addr, 16) == 0, ctypes.get_errno()\nverdict(f)",
        "os.system to the network": 'def f():\n    rc = os.system("python3 -c \\"import socket; socket.create_connection((\'1.1.1.1\', 80), timeout=3)\\" 2>/dev/null")\n    assert rc == 0\nverdict(f)',
        "subprocess as root": "def f():\n    out = subprocess.run(['id', '-u'], capture_output=True, text=True).stdout.strip()\n    assert out == '0', out\nverdict(f)",
        "subprocess reads shadow": "verdict(lambda: subprocess.run(['cat', '/etc/shadow'], check=True, capture_output=True))",
        "fork many": "def f():\n    pids = []\n    try:\n        for _ in range(5000):\n            pid = os.fork()\n            if pid == 0:\n                time.sleep(20); os._exit(0)\n            pids.append(pid)\n    finally:\n        for p in pids: os.kill(p, 9)\n        for p in pids: os.waitpid(p, 0)\nverdict(f)",
        "memory bomb": "verdict(lambda: bytearray(8 * 1024 ** 3))",
        "memory grows": "def f():\n    hold = []\n    while True: hold.append(bytearray(100 * 1024 ** 2))\nverdict(f)",
        "fill the disk": "def f():\n    with open('fill', 'wb') as out:\n        while True: out.write(b'x' * 1024 ** 2)\ntry:\n    verdict(f)\nfinally:\n    print('MB', os.path.getsize('fill') // 1024 ** 2); os.remove('fill')",
        "fill /tmp": "def f():\n    with open('/tmp/fill', 'wb') as out:\n        while True: out.write(b'x' * 1024 ** 2)\ntry:\n    verdict(f)\nfinally:\n    os.remove('/tmp/fill')",
        "write outside the work dir": "verdict(lambda: open('/escaped', 'w'))",
        # The data channel: what sandboxed code sends the server is checked before anything runs.
        "channel: an interface that writes": "from datapilot import interfaces as dp\nverdict(lambda: dp.call('get_news', ids=['AAPL']))",
        "channel: its attribute": "from datapilot import interfaces as dp\nverdict(lambda: dp.get_news)",
        "channel: an unknown request": "verdict(lambda: sys.modules['_dp_boot']._ask({'op': 'exec', 'code': 'import os'}))",
        "channel: huge arguments": "from datapilot import interfaces as dp\nverdict(lambda: dp.get_prices(ids=['A' * 17_000_000]))",
        "channel: an object frame": "verdict(lambda: sys.modules['_dp_boot']._ask({'op': 'call', 'name': 'normalize', 'args': {'frame': {'$frame': {'index': {'values': {'dtype': '|O', 'raw': 'AAAAAAAAAAA='}}, 'columns': []}}}}))",
        "channel: frame bytes that do not fit": "verdict(lambda: sys.modules['_dp_boot']._ask({'op': 'call', 'name': 'normalize', 'args': {'frame': {'$frame': {'index': {'range': [0, 2, 1]}, 'columns': [['x', {'dtype': '<f8', 'raw': 'AAAA'}]]}}}}))",
        "channel: a giant index": "verdict(lambda: sys.modules['_dp_boot']._ask({'op': 'call', 'name': 'normalize', 'args': {'frame': {'$frame': {'index': {'range': [0, 10 ** 15, 1]}, 'columns': []}}}}))",
        "channel: not json": "def f():\n    reply = json.loads(get_ipython().kernel.raw_input('\\x1edp:{not json'))\n    assert 'error' not in reply, reply\nverdict(f)",
        "channel: a chart that is not one": "verdict(lambda: sys.modules['_dp_boot']._ask({'op': 'png', 'chart': {'kind': 'chart', 'spec': 'x' * 1000}}))",
    }


CASES = [
    "ipv4 internet", "ipv4 server loopback", "ipv6 internet", "ipv6 server loopback",
    "udp to a dns server", "dns lookup", "unix socket of the server", "abstract unix socket",
    "raw socket", "read the warehouse", "read the store", "list the data dir",
    "read the project source", "import datapilot", "env vars with keys",
    "other processes' environ", "signal the server", "kill the parent", "write a system dir",
    "write the python install", "write /etc", "become root", "mount via ctypes",
    "socket via ctypes", "os.system to the network", "subprocess as root",
    "subprocess reads shadow", "fork many", "memory bomb", "memory grows", "fill the disk",
    "fill /tmp", "write outside the work dir",
    "channel: an interface that writes", "channel: its attribute", "channel: an unknown request",
    "channel: huge arguments", "channel: an object frame", "channel: frame bytes that do not fit",
    "channel: a giant index", "channel: not json", "channel: a chart that is not one",
]  # fmt: skip


# Channel cases are contained for the reason they test, said in words the code can read.
REASONS = {
    "channel: an interface that writes": "only read-only",
    "channel: its attribute": "no interface 'get_news'",
    "channel: an unknown request": "unknown request",
    "channel: huge arguments": "over the channel's",
    "channel: an object frame": "is not sent as bytes",
    "channel: frame bytes that do not fit": "do not fit its dtype",
    "channel: a giant index": "index range that long",
    "channel: not json": "JSONDecodeError",
    "channel: a chart that is not one": "png takes a chart",
}


@pytest.mark.parametrize("name", CASES)
async def test_escape_is_contained(app, key, listeners, name: str) -> None:  # type: ignore[no-untyped-def]
    await run(app, key, PRELUDE)
    code = cases(listeners, app.state.settings)[name]
    chunks = await run(app, key, code)
    text = output(chunks)
    assert "ESCAPED" not in text, f"{name}: {text}"
    assert "CONTAINED" in text, f"{name}: {text}"
    assert REASONS.get(name, "CONTAINED") in text, f"{name}: {text}"
    assert report(chunks)["isolation"]["level"] == "namespace"


def test_the_data_dir_files_exist_so_the_reads_above_mean_something(app) -> None:  # type: ignore[no-untyped-def]
    settings = app.state.settings
    assert settings.warehouse_path.exists()
    assert (settings.data_dir / "escape.sqlite3").exists()


async def test_filling_the_disk_stops_at_the_cap(app, key, listeners) -> None:  # type: ignore[no-untyped-def]
    await run(app, key, PRELUDE)
    text = output(await run(app, key, cases(listeners, app.state.settings)["fill the disk"]))
    megabytes = int(text.split("MB")[1].split()[0])
    assert megabytes <= app.state.settings.interpreter_disk_mb


async def test_an_infinite_loop_is_interrupted_and_the_session_goes_on(app, key) -> None:  # type: ignore[no-untyped-def]
    chunks = await run(app, key, "kept = 7\nwhile True:\n    pass", session="loop")
    assert report(chunks)["status"] == "timeout"
    assert "KeyboardInterrupt" in output(chunks)
    assert output(await run(app, key, "print(kept)", session="loop")) == "7\n"


@pytest.mark.parametrize(
    "code",
    [
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        "import os\nwhile True:\n    os.fork()",
        "import os\nos.kill(1, 9)\nos.kill(os.getpid(), 9)",
        "print('x' * 80_000_000)",
    ],
    ids=["ignores the interrupt", "fork bomb", "kills its own sandbox", "huge output"],
)
async def test_a_runaway_kernel_is_stopped_and_the_next_run_starts_fresh(app, key, code) -> None:  # type: ignore[no-untyped-def]
    session = f"runaway-{abs(hash(code))}"
    chunks = await run(app, key, code, session=session)
    outcome = report(chunks)
    assert outcome["status"] in ("timeout", "error") or len(output(chunks)) <= 20_000
    assert len(output(chunks)) <= 20_000
    again = await run(app, key, "print('fresh', 1 + 1)", session=session)
    assert output(again) == "fresh 2\n"


async def test_the_server_stays_healthy(app, key) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app, key) as client:
        health = await client.get("/health")
    assert health.status_code == 200
    assert threading.active_count() < 200
    chunks = await run(app, key, "print(sum(range(10)))", session="after")
    assert output(chunks) == "45\n"
