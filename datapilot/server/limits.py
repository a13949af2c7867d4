"""What one request may send, checked in one place; every refusal names the setting behind it.

- The body: `RequestLimitsMiddleware` answers 413 before the body is parsed — at once when the
  `Content-Length` says it is too large, or as soon as the streamed bytes pass the limit. It wraps
  every route, those added later included.
- Text: a JSON body's lone surrogate escapes (`"\\ud800"`: JSON may escape one, but it is not
  text and cannot be encoded as UTF-8) become U+FFFD before any route reads it, so no store
  write, model call or stream half sent breaks on one later.
- Questions, messages, history and client tables: the request models check the raw payload with
  `check_conversation` / `check_tables` before validating it (so 10,000 bad entries cost one
  short error), reading the limits of the app serving the request (`request_settings`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from typing import Any

from pydantic_core import InitErrorDetails, PydanticCustomError
from starlette.exceptions import HTTPException

from datapilot.core.context import ClientTable, check_question
from datapilot.settings import Settings, get_settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_request_settings: ContextVar[Settings | None] = ContextVar("request_settings", default=None)
# The escapes of a JSON text, left to right: a valid pair (kept), a lone surrogate (replaced), or
# any other escape (kept; matched so that `\\` never makes the next `u` look like an escape).
_ESCAPE = re.compile(
    rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    rb"|(?P<lone>u[dD][89a-fA-F][0-9a-fA-F]{2})|.)",
    re.DOTALL,
)
_MAYBE_LONE = re.compile(rb"\\u[dD][89a-fA-F]")


def request_settings() -> Settings:
    """The settings of the app serving the current request (else the process's)."""
    return _request_settings.get() or get_settings()


class BodyTooLarge(HTTPException):
    """The request body passed `DATAPILOT_MAX_BODY_MB`."""

    def __init__(self, limit_mb: float) -> None:
        super().__init__(413, body_limit_message(limit_mb))


def body_limit_message(limit_mb: float) -> str:
    return (
        f"The request body is larger than {limit_mb:g} MB (DATAPILOT_MAX_BODY_MB); send less "
        "data (fewer or smaller tables or files), or raise DATAPILOT_MAX_BODY_MB on the server."
    )


class RequestLimitsMiddleware:
    """Pure ASGI: refuses bodies over the limit before they are read, makes the app's settings
    the request's limits (`request_settings`), and hands routes JSON bodies as text only."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.max_bytes = int(settings.max_body_mb * 1024 * 1024)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _request_settings.set(self.settings)
        try:
            await self._limited(scope, receive, send)
        finally:
            _request_settings.reset(token)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _send_413(send, self.settings.max_body_mb, scope.get("path", ""))
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.settings.max_body_mb)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        app_receive = _text_only(counting_receive) if _json_body(scope) else counting_receive
        try:
            await self.app(scope, app_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            await _send_413(send, self.settings.max_body_mb, scope.get("path", ""))


def _json_body(scope: Scope) -> bool:
    """Whether the routes read the body as JSON: FastAPI does without a content type too."""
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            kind = value.split(b";", 1)[0].strip().lower()
            return kind == b"application/json" or (
                kind.startswith(b"application/") and kind.endswith(b"+json")
            )
    return True


def _text_only(receive: Receive) -> Receive:
    """`receive` giving the whole body at its first call, lone surrogate escapes replaced (an
    escape may straddle two chunks, and the routes read a JSON body whole anyway); later calls
    (a disconnect) go to `receive` itself."""
    read = False

    async def whole_body() -> Message:
        nonlocal read
        if read:
            return await receive()
        read = True
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nothing to hand on
                return message
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = json_without_surrogates(b"".join(chunks))
        return {"type": "http.request", "body": body, "more_body": False}

    return whole_body


def json_without_surrogates(raw: bytes) -> bytes:
    """The JSON text `raw` with every lone surrogate escape as `\\ufffd`; every other byte as
    sent (numbers, key order and valid pairs such as an emoji's untouched)."""
    if not _MAYBE_LONE.search(raw):  # the usual case: one scan, nothing rewritten
        return raw
    return _ESCAPE.sub(_replace_lone, raw)


def _replace_lone(match: re.Match[bytes]) -> bytes:
    return b"\\ufffd" if match.group("lone") else match.group()


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_413(send: Send, limit_mb: float, path: str) -> None:
    from datapilot.server.errors import native_body, openai_body, openai_face

    message = body_limit_message(limit_mb)
    problem = (
        openai_body(413, message, "max_body_mb")  # the OpenAI-compatible face's own shape
        if openai_face(path)
        else native_body(message, "too_large") | {"setting": "max_body_mb"}
    )
    body = json.dumps(problem)
    data = body.encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"connection", b"close"),  # the rest of the body is not read
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def check_conversation(messages: Any, settings: Settings, what: str) -> list[tuple[str, str]]:
    """Problems (field path, message) of a raw list of messages: their number and the length of
    each message's content. `what` names the list (`messages`, `history`)."""
    if not isinstance(messages, list):
        return []
    if len(messages) > settings.max_messages:
        return [
            (
                what,
                f"{len(messages):,} messages; the limit is {settings.max_messages:,} "
                "(DATAPILOT_MAX_MESSAGES). Send only the recent part of the conversation.",
            )
        ]
    problems = []
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and len(content) > settings.max_message_chars:
            problems.append(
                (
                    f"{what}.{index}.content",
                    f"{len(content):,} characters; the limit is {settings.max_message_chars:,} "
                    "(DATAPILOT_MAX_MESSAGE_CHARS). Shorten or leave out this message.",
                )
            )
    return problems


def check_tables(tables: list[ClientTable], settings: Settings, what: str) -> list[tuple[str, str]]:
    """Problems (field path, message) of client tables: their number, cells and cell sizes."""
    if len(tables) > settings.max_tables:
        return [
            (
                what,
                f"{len(tables):,} tables; the limit is {settings.max_tables:,} "
                "(DATAPILOT_MAX_TABLES). Send the tables the question needs.",
            )
        ]
    problems = []
    for index, table in enumerate(tables):
        cells = len(table.rows) * max(len(table.columns), 1)
        if cells > settings.max_table_cells:
            problems.append(
                (
                    f"{what}.{index}",
                    f"table {table.name!r} has {cells:,} cells (rows × columns); the limit is "
                    f"{settings.max_table_cells:,} (DATAPILOT_MAX_TABLE_CELLS). Send fewer rows "
                    "or columns.",
                )
            )
            continue
        longest = max(
            (len(cell) for row in table.rows for cell in row if isinstance(cell, str)), default=0
        )
        if longest > settings.max_cell_chars:
            problems.append(
                (
                    f"{what}.{index}",
                    f"table {table.name!r} has a cell of {longest:,} characters; the limit is "
                    f"{settings.max_cell_chars:,} (DATAPILOT_MAX_CELL_CHARS).",
                )
            )
    return problems


def payload_problems(raw: Any) -> list[InitErrorDetails]:
    """Limit problems of a raw conversation payload (`messages`, the last human one being the
    question), as errors for a model validator to raise before validating the rest."""
    if not isinstance(raw, dict):
        return []
    settings = request_settings()
    messages = raw.get("messages")
    found = check_conversation(messages, settings, "messages")
    if isinstance(messages, list) and not found:
        humans = [
            index
            for index, message in enumerate(messages)
            if isinstance(message, dict) and message.get("role") == "human"
        ]
        if humans:
            problem = check_question(messages[humans[-1]].get("content"), settings)
            found += [(f"messages.{humans[-1]}.content", problem)] if problem else []
    return [as_error(field, message) for field, message in found]


def as_error(field: str, message: str, kind: str = "too_large") -> InitErrorDetails:
    """A validation error of type `kind` at the dotted `field`, for
    `ValidationError.from_exception_data`."""
    loc = tuple(int(part) if part.isdigit() else part for part in field.split("."))
    return InitErrorDetails(
        type=PydanticCustomError(kind, "{message}", {"message": message}),
        loc=loc,
        input=None,
    )
