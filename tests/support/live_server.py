"""The real app served by uvicorn on 127.0.0.1 in a thread, for tests that need real sockets:
latency under load, streamed bodies, limits applied before a body is read."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# Loopback only: everything else stays blocked by pytest-socket.
LOOPBACK = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]


@contextmanager
def live_server(app: Any, *, lifespan: str = "off") -> Iterator[str]:
    """Serve `app` (any ASGI app) for the duration of the block; yields its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="critical", lifespan=lifespan, timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()
