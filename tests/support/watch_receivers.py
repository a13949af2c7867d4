"""What receives watch deliveries in tests, on 127.0.0.1: a webhook endpoint that keeps every
POST (and can fail the first ones), and an SMTP server (aiosmtpd) that keeps every message."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

LOOPBACK = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]


@dataclass
class Posted:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Hook:
    """A webhook receiver: `posts` in arrival order; `fail_next` answers 503 that many times."""

    port: int
    posts: list[Posted] = field(default_factory=list)
    fail_next: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    @property
    def allow(self) -> str:
        return f"127.0.0.1:{self.port}"


@contextmanager
def webhook_receiver() -> Iterator[Hook]:
    holder: list[Hook] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            hook = holder[0]
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with hook.lock:
                failing = hook.fail_next > 0
                hook.fail_next -= 1 if failing else 0
                hook.posts.append(Posted(self.path, dict(self.headers.items()), body))
            status = 503 if failing else 204
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(Hook(port=server.server_address[1]))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Mailbox:
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)


@contextmanager
def smtp_receiver() -> Iterator[Mailbox]:
    """aiosmtpd's SMTP server on loopback (plain: the settings say `none`)."""
    import socket

    from aiosmtpd.controller import Controller

    box: list[Mailbox] = []

    class Keep:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            message = message_from_bytes(envelope.content, policy=policy.default)
            assert isinstance(message, EmailMessage)
            box[0].messages.append(message)
            box[0].recipients.append(list(envelope.rcpt_tos))
            return "250 OK"

    with socket.socket() as probe:  # a free port; aiosmtpd binds it itself
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    box.append(Mailbox(port=port))
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box[0]
    finally:
        controller.stop()


def wait_for(check: Callable[[], Any], timeout: float = 20.0, what: str = "it") -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
