"""`POST /api/v1/interpreter`: the code interpreter over HTTP (LMC in, LMC chunks out).

The body is the LMC message list (a JSON array, or `{"messages": [...], "session": NAME}`).
The answer streams LMC chunks: server-sent events when the request accepts
`text/event-stream`, else NDJSON (one chunk per line). Code is confirmed, not run, unless the
next request approves it with `{"role":"user","type":"command","content":"run"}` — or auto-run
is allowed: `DATAPILOT_INTERPRETER_AUTO_RUN=true` on the server AND the caller's key names the
`run` scope. Nothing in the body, the messages or the headers can turn it on. With a model
configured, a question is answered by the model writing code (see `interpreter.model`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Body, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError
from sse_starlette import EventSourceResponse
from starlette.requests import HTTPConnection

from datapilot.core.context import QuestionContext
from datapilot.core.messages import LmcChunk
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.policy import may_auto_run as auto_run_policy
from datapilot.interpreter.protocol import InterpreterRequest, LmcMessage, respond
from datapilot.interpreter.sessions import Sessions, pool_for
from datapilot.model_client import resolve_config
from datapilot.render.lmc import lmc_chunks
from datapilot.server.deps import tenant_of
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.limits import as_error, check_conversation
from datapilot.server.runner import guarded_events
from datapilot.settings import Settings
from datapilot.store import Principal

router = APIRouter(prefix="/api/v1", tags=["Code interpreter"], responses=VALIDATION_RESPONSES)
ws_router = APIRouter(prefix="/api/v1")  # checks the `chat` scope itself
_sessions_lock = threading.Lock()


def may_auto_run(
    settings: Settings, principal: Principal | None, assistant_allows: bool = True
) -> bool:
    """Both the server setting and a key naming `run` (admin alone is not enough: running code
    unasked is opted into on purpose), and the policy of the assistant the key is bound to."""
    scopes = principal.scopes if principal is not None else None
    return auto_run_policy(settings.interpreter_auto_run, scopes, assistant_allows)


def sessions_of(request: HTTPConnection) -> Sessions:
    """The process's kernel pool for the app's settings (the python tool draws on the same)."""
    state = request.app.state
    with _sessions_lock:
        if getattr(state, "interpreter_sessions", None) is None:
            state.interpreter_sessions = pool_for(state.settings)
    sessions: Sessions = state.interpreter_sessions
    return sessions


def _channel(settings: Settings, data_owner: str | None) -> Any:
    from datapilot.engine.context import RequestContext
    from datapilot.interpreter.channel import data_channel

    question = QuestionContext(
        today=settings.effective_today(), offline=settings.offline, data_owner=data_owner
    )
    return data_channel(RequestContext.for_request(question, settings))


def _within_limits(parsed: InterpreterRequest, settings: Settings) -> InterpreterRequest:
    """`parsed`, or a `ValidationError` when it has more messages than DATAPILOT_MAX_MESSAGES
    or a text longer than DATAPILOT_MAX_MESSAGE_CHARS."""
    # Text (messages, code, console output a client ran itself) is capped like any message;
    # images and files sent back are bounded by the body's size only.
    raw = [{} if m.type in ("image", "file") else m.model_dump() for m in parsed.messages]
    problems = check_conversation(raw, settings, "messages")
    if problems:
        errors = [as_error(field, message) for field, message in problems]
        raise ValidationError.from_exception_data(InterpreterRequest.__name__, errors)
    return parsed


_BODY_EXAMPLE = [
    {"role": "user", "type": "code", "format": "python", "content": "print(1 + 1)"},
    {"role": "user", "type": "command", "content": "run"},
]


@router.post(
    "/interpreter",
    summary="Run Python in a sandboxed kernel (LMC messages in, LMC chunks out)",
    responses={
        200: {
            "description": "LMC chunks: SSE (`data` = one chunk) or NDJSON, ending with "
            "`{role: server, type: status, content: complete}`.",
            "content": {"application/x-ndjson": {}, "text/event-stream": {}},
        }
    },
)
async def interpreter(
    request: Request,
    body: list[LmcMessage] | InterpreterRequest = Body(examples=[_BODY_EXAMPLE]),
) -> Any:
    try:
        parsed = body if isinstance(body, InterpreterRequest) else InterpreterRequest(messages=body)
        _within_limits(parsed, request.app.state.settings)
    except ValidationError as error:  # a bare list checked as the wrapped form: the same 422
        raise RequestValidationError(error.errors(include_url=False)) from None
    chunks = await _chunks_for(request, parsed)
    if "text/event-stream" in request.headers.get("accept", ""):
        return EventSourceResponse(_sse(chunks))
    return StreamingResponse(_ndjson(chunks), media_type="application/x-ndjson")


async def _chunks_for(
    connection: HTTPConnection, parsed: InterpreterRequest
) -> AsyncIterator[LmcChunk]:
    """The chunks answering one request, for its caller (HTTP or WebSocket alike)."""
    settings: Settings = connection.app.state.settings
    principal: Principal | None = getattr(connection.state, "principal", None)
    owner = principal.user_id if principal is not None else "local"
    data_owner = (await tenant_of(connection)).user_id  # the local user's id without keys
    sessions = sessions_of(connection)
    # A key bound to an assistant never gets here (`auth.confine_bound_key`): that assistant's
    # policy applies to its `python` tool in its chats.
    allows = may_auto_run(settings, principal)

    async def kernel() -> SandboxKernel:
        return await asyncio.to_thread(
            sessions.kernel, owner, parsed.session, lambda: _channel(settings, data_owner)
        )

    def answer(question: str) -> AsyncIterator[LmcChunk]:
        context = QuestionContext(
            today=settings.effective_today(),
            brain=settings.brain,
            offline=settings.offline,
            data_owner=data_owner,
        )
        return lmc_chunks(guarded_events(question, context, settings))

    question = QuestionContext(today=settings.effective_today(), offline=settings.offline)
    return respond(
        parsed.messages,
        kernel=kernel,
        auto_run=allows,
        answer=answer,
        # With a model configured, the model writes the code; offline forbids its endpoint.
        model=None if settings.offline else resolve_config(settings, question),
    )


@ws_router.websocket("/interpreter")
async def interpreter_socket(websocket: WebSocket) -> None:
    """The same exchange over a WebSocket: each text frame the client sends is one request body
    (the message list, or `{"messages", "session"}`); the server answers with one frame per
    chunk, ending with `server/status complete`, and waits for the next."""
    principal: Principal | None = getattr(websocket.state, "principal", None)
    if principal is not None and not principal.allows("chat"):
        await websocket.close(code=1008, reason="this API key lacks the `chat` scope")
        return
    await websocket.accept()
    adapter: TypeAdapter[list[LmcMessage] | InterpreterRequest] = TypeAdapter(
        list[LmcMessage] | InterpreterRequest
    )
    try:
        while True:
            text = await websocket.receive_text()
            try:
                body = adapter.validate_json(text)
                parsed = (
                    body
                    if isinstance(body, InterpreterRequest)
                    else InterpreterRequest(messages=body)
                )
                _within_limits(parsed, websocket.app.state.settings)
            except ValidationError as error:
                problem = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
                )
                for chunk in (
                    LmcChunk(role="server", type="error", content=f"invalid request: {problem}"),
                    LmcChunk(role="server", type="status", content="complete"),
                ):
                    await websocket.send_text(chunk.wire())
                continue
            async for chunk in await _chunks_for(websocket, parsed):
                await websocket.send_text(chunk.wire())
    except WebSocketDisconnect:
        return


async def _sse(chunks: AsyncIterator[LmcChunk]) -> AsyncIterator[dict[str, str]]:
    async for chunk in chunks:
        yield {"data": chunk.wire()}


async def _ndjson(chunks: AsyncIterator[LmcChunk]) -> AsyncIterator[bytes]:
    async for chunk in chunks:
        yield (chunk.wire() + "\n").encode()
