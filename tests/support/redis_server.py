"""A real Redis for tests: the distribution's `redis-server` on a loopback port, no persistence.

`.ci/run` installs it with apt; outside CI a machine without it skips the Redis tests with a
note on how to get it, and under CI=true a missing redis-server fails them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

GET_IT = "install it (`sudo apt-get install redis-server`, or `brew install redis`) and rerun"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def redis_server() -> Iterator[str]:
    """A fresh redis-server for the block; yields its `redis://` URL."""
    binary = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if binary is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"redis-server is missing on CI: {GET_IT}")
        pytest.skip(f"redis-server is not installed: {GET_IT}")
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="datapilot-redis-")
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            folder,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
