"""Model endpoints that are down, on loopback: one that drops connection attempts (a blackholed
host: connecting hangs) and one that refuses them (a closed port)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

from support.serve_process import free_port


@contextmanager
def blackholed_url() -> Iterator[str]:
    """The base URL of an endpoint whose connection attempts hang: a socket that listens with
    a backlog of one and never accepts, the backlog filled by a first connection, so the
    kernel drops every later SYN, as a firewall that drops packets does."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            yield f"http://127.0.0.1:{port}/v1"


def refused_url() -> str:
    """The base URL of an endpoint nothing listens on: connecting is refused at once."""
    return f"http://127.0.0.1:{free_port()}/v1"
