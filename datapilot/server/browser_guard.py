"""The door browsers meet first: which Host, Origin and request shapes a server takes at all.

A server on a laptop is reachable by every web page its user opens. Three checks keep those
pages out before any route runs (as Jupyter and Ollama do); the first two come before the key
check and CORS handling too:

- **Host** (DNS rebinding): every request and WebSocket must name this server: an IP address,
  `localhost`, the address it binds to, or a name in `DATAPILOT_ALLOWED_HOSTS`. A page whose
  own name was re-pointed at 127.0.0.1 sends its own name, and is refused with 421.
- **Origin** (cross-site requests and WebSocket hijacking): a WebSocket, and any request that
  can change something (not GET, HEAD or OPTIONS), that carries an Origin must come from this
  server's own origin or one of the CORS origins (`DATAPILOT_CORS_ORIGINS`, which hold OpenBB
  Workspace's). A foreign Origin is refused with 403 before the route runs.
- **Shape** (forms): a POST must carry a JSON body or a header a cross-site form cannot send
  (an API key, `X-Guest-Id`, `X-Requested-With`); what an HTML form or a `no-cors` fetch can
  send is refused with 415, whatever its Origin says.

Clients that are not browsers send no Origin and JSON bodies, so they pass unchanged.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from datapilot.server.auth import ASGIApp, Receive, Scope_, Send, refuse
from datapilot.settings import Settings

_LOOPBACK_NAMES = frozenset({"localhost"})
# Methods a page can use without changing anything; every other one can.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Body types an HTML form (or a fetch in `no-cors` mode) can send across sites without asking.
_FORM_TYPES = frozenset(
    {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"}
)
# Headers a cross-site form cannot set: a request carrying one was sent by script or program,
# and a browser would have asked the server first (a CORS preflight).
_SCRIPT_HEADERS = frozenset({b"authorization", b"x-api-key", b"x-guest-id", b"x-requested-with"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _split_host(value: str) -> tuple[str, int | None] | None:
    """`(name, port)` of a Host header or an origin's authority; None when malformed."""
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.rstrip(".").lower(), port


def is_address(name: str) -> bool:
    """Whether a host is an IP address (IPv6 with or without brackets), not a name."""
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostRule:
    """One entry of the allowed hosts: `name`, `name:port`, `name:*`, `*.domain` or `*`."""

    name: str
    port: int | None  # None: any port

    @classmethod
    def parse(cls, entry: str) -> HostRule:
        entry = entry.strip().lower()
        if entry == "*" or entry.startswith("*."):
            return cls(entry, None)
        name, _, port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if name and port == "*":
            return cls(name, None)
        if name and port.isdigit():
            return cls(name, int(port))
        bare = _split_host(entry)
        return cls(bare[0] if bare else entry, None)

    def matches(self, name: str, port: int | None) -> bool:
        if self.name == "*":
            return True
        if self.name.startswith("*."):
            return name.endswith(self.name[1:])
        return name == self.name and (self.port is None or self.port == port)


class BrowserGuard:
    """Pure ASGI middleware (streams pass untouched): the Host, Origin and shape checks."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = tuple(HostRule.parse(entry) for entry in allowed_hosts(settings))
        self.origins = frozenset(origin.rstrip("/").lower() for origin in settings.cors_origins)
        self.origin_pattern = (
            re.compile(settings.cors_origin_regex) if settings.cors_origin_regex else None
        )

    async def __call__(self, scope: Scope_, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name: value.decode("latin-1") for name, value in scope.get("headers", ())}
        host = headers.get(b"host")
        if host is not None and not self.host_allowed(host):
            message = (
                f"This server does not answer to the name {host[:100]!r}: a web page that points "
                "its own name at this machine could otherwise use it. Call it by its address or "
                "`localhost`; to use another name, add it to DATAPILOT_ALLOWED_HOSTS on the "
                "server."
            )
            await refuse(scope, send, 421, "foreign_host", message)
            return
        changes = scope["type"] == "websocket" or scope.get("method", "GET") not in _SAFE_METHODS
        origin = headers.get(b"origin")
        if changes and origin is not None and not self.origin_allowed(origin, host):
            message = (
                f"Requests that can change something, and WebSockets, are taken from this "
                f"server's own pages only, not from {origin[:100]!r}; to let that site's pages "
                "call this server, add its origin to DATAPILOT_CORS_ORIGINS on the server."
            )
            await refuse(scope, send, 403, "foreign_origin", message)
            return
        await self.app(scope, receive, send)

    def host_allowed(self, host: str) -> bool:
        split = _split_host(host)
        if split is None:
            return False
        name, port = split
        # An address or `localhost` involves no DNS, so no page can re-point it.
        if is_address(name) or name in _LOOPBACK_NAMES:
            return True
        return any(rule.matches(name, port) for rule in self.hosts)

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        origin = origin.strip().rstrip("/").lower()
        if origin in self.origins or (
            self.origin_pattern is not None and self.origin_pattern.fullmatch(origin)
        ):
            return True
        return host is not None and _same_origin(origin, host)


class FormPostGuard:
    """Pure ASGI middleware: a POST that a cross-site form could send is refused (415).

    Inside the key check, so that a server with keys first says a key is missing (a request
    with one is never form-shaped), and inside the body limits, which refuse first."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope_, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and _form_shaped(scope["headers"]):
            message = (
                "A POST to this server carries a JSON body (`Content-Type: application/json`; "
                "send `{}` when there is nothing to say) or an API key: a request that any web "
                "page's form could send is refused, so that other sites cannot act through "
                "your browser."
            )
            await refuse(scope, send, 415, "json_required", message)
            return
        await self.app(scope, receive, send)


def _same_origin(origin: str, host: str) -> bool:
    """Whether a browser's `origin` is the server named by `host` (its own pages)."""
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return False
    here = _split_host(host)
    if here is None:
        return False
    default = _DEFAULT_PORTS[parts.scheme]
    return (parts.hostname.rstrip("."), origin_port or default) == (here[0], here[1] or default)


def _form_shaped(headers: object) -> bool:
    """Whether a POST's headers are ones a cross-site form could send (no JSON, no key)."""
    content_type = ""
    for name, value in headers:  # type: ignore[attr-defined]
        if name in _SCRIPT_HEADERS:
            return False
        if name == b"content-type":
            content_type = value.decode("latin-1").split(";")[0].strip().lower()
    return content_type in _FORM_TYPES


def allowed_hosts(settings: Settings) -> list[str]:
    """The Host names the server answers to besides addresses and `localhost`: the address it
    binds to, DATAPILOT_ALLOWED_HOSTS and its older name DATAPILOT_MCP_ALLOWED_HOSTS."""
    bound = [] if is_address(settings.host.strip("[]")) else [settings.host]
    return [*bound, *settings.allowed_hosts, *settings.mcp_allowed_hosts]
