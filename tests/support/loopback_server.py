"""A tiny HTTP server on 127.0.0.1 for the outbound-client and document tests.

Routes: `/files/<name>` serves bytes registered in `files`; `/big` streams more bytes than the
tests' size cap without a Content-Length; `/slow` sends its headers and then stalls;
`/redirect?to=URL` answers 302 to URL; `/host` echoes the Host header it received.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

# Loopback only: everything else stays blocked by pytest-socket.
LOOPBACK = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]
BIG_BYTES = 300_000


class LoopbackServer:
    def __init__(self, server: ThreadingHTTPServer) -> None:
        self._server = server
        self.files: dict[str, tuple[str, bytes]] = {}
        self.hosts: list[str] = []
        self.server_names: list[str | None] = []

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def allow(self) -> str:
        return f"127.0.0.1:{self.port}"


def _handler(owner: list[LoopbackServer]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            server = owner[0]
            parts = urlsplit(self.path)
            server.hosts.append(self.headers.get("Host", ""))
            if parts.path.startswith("/files/") and parts.path[7:] in server.files:
                content_type, body = server.files[parts.path[7:]]
                self._send(200, body, content_type)
            elif parts.path == "/big":
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                # The client stops reading at its size cap: the rest has nowhere to go.
                with suppress(BrokenPipeError, ConnectionResetError):
                    for _ in range(BIG_BYTES // 10_000):
                        self.wfile.write(b"x" * 10_000)
            elif parts.path == "/slow":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"first bytes ")
                self.wfile.flush()
                time.sleep(3)
                self.wfile.write(b"too late")
            elif parts.path == "/redirect":
                target = parse_qs(parts.query).get("to", ["/files/none"])[0]
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif parts.path == "/host":
                self._send(200, self.headers.get("Host", "").encode(), "text/plain")
            else:
                self._send(404, b"not found", "text/plain")

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def loopback_server(tls: ssl.SSLContext | None = None) -> Iterator[LoopbackServer]:
    """Serve on an ephemeral 127.0.0.1 port for the duration of the block (HTTPS with `tls`;
    the server names clients ask for in TLS are recorded in `server_names`)."""
    owner: list[LoopbackServer] = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(owner))
    httpd.daemon_threads = True
    owner.append(LoopbackServer(httpd))
    if tls is not None:

        def record(sock: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
            owner[0].server_names.append(name)

        tls.sni_callback = record  # type: ignore[assignment]
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield owner[0]
    finally:
        httpd.shutdown()
        httpd.server_close()
