"""API keys at the door: who may call the server, and with which scopes.

While no (unrevoked) key exists the server answers loopback clients only, so a fresh install
on a laptop works without setup and is never open to the network. Once a key exists every
route needs one, as `Authorization: Bearer KEY` or `X-API-Key: KEY`, except the public ones:
`/health`, the agent descriptors and the static files. A missing, unknown or revoked key is a
401; a key without the route's scope (`require_scope`) is a 403. Both bodies say what to do.

Lookups hit the store only on a cache miss (in a worker thread); answers are kept for
`settings.auth_cache_s` seconds, so a key revoked by another process stops working within that
time, and the hot path costs a dictionary lookup.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, ClassVar

import anyio
from fastapi import Request, WebSocketException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, model_validator
from starlette.requests import HTTPConnection

from datapilot.server.errors import openai_body, openai_face
from datapilot.store import Keys, Principal, Scope, Store
from datapilot.store.accounts import LAST_USED_RESOLUTION
from datapilot.store.models import utcnow

PUBLIC_PATHS = frozenset(
    {
        "/health",
        "/agents.json",
        "/copilots.json",
        # The published plugin's documents (`routes/publish.py`); its /run and /mcp need a key.
        "/.well-known/ai-plugin.json",
        "/.well-known/mcp.json",
        "/openapi.yaml",
        "/openapi.json",
        "/legal",
        # The web page holds no data: it asks for a key before any call.
        "/",
        # The API's description and its page (whose Authorize button takes a key for calls).
        "/api/openapi.json",
        "/docs",
    }
)
# Guests of public assistants identify themselves with a guest id, not a key (`routes/guests.py`);
# chart PNGs of published answers have unguessable names (`chart_files.py`).
PUBLIC_PREFIXES = ("/assets/", "/api/v1/guest/", "/charts/", "/web/", "/docs/assets/")
PUBLIC_PATHS_PER_AGENT = frozenset({"agents.json"})
_CACHE_LIMIT = 10_000

Scope_ = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope_, Receive, Send], Awaitable[None]]

CREATE_KEY_HINT = "create one with `datapilot keys create --name NAME --scopes chat`"


class AuthProblem(BaseModel):
    """The body of every 401 and 403 answer."""

    message: str = Field(description="What is wrong and what to do, for people.")
    code: str = Field(
        description="missing_key | invalid_key | missing_scope | loopback_only | bound_key"
    )
    detail: str = Field(
        default="",
        description="The same words as `message`: every error of the native API carries "
        "message, code and detail, whatever refused the request.",
    )

    @model_validator(mode="after")
    def _detail_is_message(self) -> AuthProblem:
        self.detail = self.detail or self.message
        return self


AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": AuthProblem, "description": "No API key, or an unknown or revoked one."},
    403: {"model": AuthProblem, "description": "The key lacks the scope this route needs."},
}


def is_loopback(host: str | None) -> bool:
    """Whether an address (or host name) can only be reached from this machine."""
    if host is None:  # a unix socket
        return True
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class KeyGate:
    """One app's view of the keys in its store, with a short cache."""

    def __init__(self, store: Store, ttl_s: float) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self._required: tuple[float, bool] | None = None
        self._principals: dict[str, tuple[float, Principal | None]] = {}

    async def keys_required(self) -> bool:
        """Whether any active key exists (then every non-public route needs one)."""
        now = time.monotonic()
        if self._required is not None and now < self._required[0]:
            return self._required[1]
        required = await anyio.to_thread.run_sync(self._any_active)
        self._required = (now + self.ttl_s, required)
        return required

    async def principal(self, key: str) -> Principal | None:
        """Who the key speaks for; None for an unknown or revoked key."""
        digest = hashlib.sha256(key.encode()).hexdigest()  # the raw key is never kept
        now = time.monotonic()
        cached = self._principals.get(digest)
        if cached is not None and now < cached[0]:
            return cached[1]
        principal = await anyio.to_thread.run_sync(self._authenticate, key)
        if len(self._principals) >= _CACHE_LIMIT:
            self._principals.clear()
        self._principals[digest] = (now + self.ttl_s, principal)
        return principal

    def forget(self) -> None:
        """Drop cached answers (after a key changed in this process)."""
        self._required = None
        self._principals.clear()

    def _any_active(self) -> bool:
        with self.store.session() as session:
            return Keys(session).any_active()

    def _authenticate(self, key: str) -> Principal | None:
        with self.store.session() as session:
            principal = Keys(session).authenticate(key)
        stale = principal is not None and (
            principal.last_used_at is None
            or principal.last_used_at < utcnow() - LAST_USED_RESOLUTION
        )
        if principal is not None and stale:
            # Its own write-only transaction: a read followed by a write in one would fail
            # under concurrent writers on SQLite.
            with self.store.session() as session:
                Keys(session).mark_used(principal.key_id)
        return principal


class ApiKeyMiddleware:
    """Pure ASGI (no buffering, so streamed answers pass untouched)."""

    def __init__(self, app: ASGIApp, gate: KeyGate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope_, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or _public(scope["path"]):
            await self.app(scope, receive, send)
            return
        if not await self.gate.keys_required():
            client = scope.get("client")
            if not is_loopback(client[0] if client else None):
                message = (
                    "This server has no API keys yet, so it answers only on its own machine; "
                    f"on the server, {CREATE_KEY_HINT}, then send it as `Authorization: Bearer "
                    "KEY`."
                )
                await refuse(scope, send, 403, "loopback_only", message)
                return
            await self.app(scope, receive, send)
            return
        key = _key_from(scope)
        if key is None:
            message = (
                "This server needs an API key: send it as `Authorization: Bearer KEY` or "
                f"`X-API-Key: KEY` (its administrator can {CREATE_KEY_HINT})."
            )
            await refuse(scope, send, 401, "missing_key", message)
            return
        principal = await self.gate.principal(key)
        if principal is None:
            message = (
                "The API key is unknown or revoked; ask the server's administrator for a valid "
                f"key (they can {CREATE_KEY_HINT}) and send it as `Authorization: Bearer KEY`."
            )
            await refuse(scope, send, 401, "invalid_key", message)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)


def require_scope(scope: Scope) -> Callable[[Request], None]:
    """A route dependency: the caller's key must have `scope` (when keys are in use)."""

    def check(request: Request) -> None:
        principal: Principal | None = getattr(request.state, "principal", None)
        if principal is not None and not principal.allows(scope):
            raise ScopeMissing(scope, principal)

    return check


# The routes a key bound to an assistant reaches (templates, and the methods where not all):
# that assistant's own chats, files and answers, and what any page needs. Every other route —
# those a plugin adds included — answers 403 `bound_key` (`confine_bound_key`). Routes naming
# an assistant or a chat check themselves that it is the bound one.
BOUND_KEY_ROUTES: dict[str, frozenset[str] | None] = {
    "/health": None,
    "/api/v1/features": None,
    "/api/v1/follow-ups": None,
    "/v1/models": None,
    "/v1/models/{model}": None,
    "/v1/chat/completions": None,
    "/assistants/{assistant_id}/agents.json": None,
    "/assistants/{assistant_id}/v1/query": None,
    "/api/v1/chats": None,
    "/api/v1/chats/{chat_id}": None,
    "/api/v1/chats/{chat_id}/messages": None,
    "/api/v1/chats/{chat_id}/files": None,
    "/api/v1/chats/{chat_id}/messages/{message_id}/context": None,
    "/api/v1/files/{file_id}": None,
    "/api/v1/assistants": None,
    "/api/v1/assistants/{ref}": None,
    "/api/v1/keys": frozenset({"POST"}),  # a key bound to the same assistant only
}


def bound_key_reaches(template: str, method: str) -> bool:
    """Whether a key bound to an assistant may use the route `template` with `method`."""
    if template not in BOUND_KEY_ROUTES:
        return False
    methods = BOUND_KEY_ROUTES[template]
    return methods is None or method.upper() in methods


def confine_bound_key(connection: HTTPConnection) -> None:
    """An app-wide dependency: a key bound to an assistant reaches `BOUND_KEY_ROUTES` only."""
    principal: Principal | None = getattr(connection.state, "principal", None)
    if principal is None or principal.assistant_id is None:
        return
    route = connection.scope.get("route")
    template = getattr(route, "path", connection.url.path)
    method = connection.scope.get("method", "GET")
    if bound_key_reaches(template, method):
        return
    if connection.scope["type"] == "websocket":
        raise WebSocketException(1008, bound_key_message(principal.assistant_id, template)[:120])
    raise BoundKeyRefused(principal.assistant_id, connection.url.path)


def bound_key_message(assistant: str, path: str) -> str:
    return (
        f"This API key is bound to the assistant {assistant!r} and reaches that assistant "
        f"only; {path} is not one of its routes. Use POST /assistants/{assistant}/v1/query "
        f"(OpenBB Workspace), POST /v1/chat/completions with model {assistant!r}, or "
        "POST /api/v1/chats then /api/v1/chats/{id}/messages; a key bound to no assistant "
        "reaches the rest."
    )


class AuthRefusal(Exception):
    """A key the route refuses after the door let it in: a 403 `AuthProblem` on every route,
    whatever the route's family (`auth_refusal_handler`)."""

    code: ClassVar[str]

    def message(self) -> str:
        raise NotImplementedError


class BoundKeyRefused(AuthRefusal):
    code = "bound_key"

    def __init__(self, assistant_id: str, path: str) -> None:
        super().__init__(assistant_id)
        self.assistant_id = assistant_id
        self.path = path

    def message(self) -> str:
        return bound_key_message(self.assistant_id, self.path)


class ScopeMissing(AuthRefusal):
    code = "missing_scope"

    def __init__(self, scope: Scope, principal: Principal) -> None:
        super().__init__(scope)
        self.scope = scope
        self.principal = principal

    def message(self) -> str:
        return missing_scope_message(self.principal, self.scope)


async def auth_refusal_handler(request: Request, error: Exception) -> JSONResponse:
    """The auth family's one handler: `{message, code}`, 403."""
    assert isinstance(error, AuthRefusal)
    if openai_face(request.url.path):
        return JSONResponse(status_code=403, content=openai_body(403, error.message(), error.code))
    body = AuthProblem(code=error.code, message=error.message())
    return JSONResponse(status_code=403, content=body.model_dump())


def missing_scope_message(principal: Principal, scope: Scope, where: str = "this route") -> str:
    have = ",".join(sorted(principal.scopes))
    return (
        f"The API key {principal.key_prefix}… has the scopes {have}, and {where} needs "
        f"{scope!r}; use a key with it (`datapilot keys create --name NAME --scopes {scope}`)."
    )


def is_public(path: str) -> bool:
    """Whether `path` is served without a key."""
    return _public(path)


def _public(path: str) -> bool:
    if path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES):
        return True
    # Each assistant's agent descriptor (`/assistants/{id}/agents.json`), like the built-in one.
    parts = path.split("/")
    return len(parts) == 4 and parts[1] == "assistants" and parts[3] in PUBLIC_PATHS_PER_AGENT


def _key_from(scope: Scope_) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").strip().partition(" ")
            if kind.lower() == "bearer" and token.strip():
                return token.strip()
        elif name == b"x-api-key" and value.strip():
            return value.decode("latin-1").strip()
    return None


async def refuse(scope: Scope_, send: Send, status: int, code: str, message: str) -> None:
    """Answer an ASGI request with an `AuthProblem` (a close, for a websocket)."""
    if scope["type"] == "websocket":  # before accepting: a policy-violation close
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    problem = (
        openai_body(status, message, code)
        if openai_face(scope.get("path", ""))
        else AuthProblem(code=code, message=message).model_dump()
    )
    body = json.dumps(problem).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="datapilot"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
