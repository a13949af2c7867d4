"""A scripted OpenAI-compatible endpoint on loopback, for tests and the offline bench.

It speaks the real wire protocol (JSON and server-sent-event streams) so the client, its retries,
timeouts and stream handling are exercised exactly as against a hosted model, while every reply is
chosen by a script: a list of `Reply`s served in order (the last one repeats) or a function of the
request. Replies can fail on purpose: HTTP errors, delays, dropped or stalled streams, refusals.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from datapilot.model_client.tokens import count_chat, count_tokens


class Reply(BaseModel):
    """One scripted answer to a chat completion request."""

    content: str | None = ""
    status: int = 200
    error: str = "scripted failure"
    retry_after_ms: int | None = Field(default=None, description="Sent as `retry-after-ms`.")
    delay_s: float = Field(default=0.0, description="Wait this long before answering.")
    finish_reason: str = "stop"
    refusal: str | None = None
    reject_schema: bool = Field(
        default=False, description="Answer 400 when asked for a JSON schema (an older server)."
    )
    reject_json_mode: bool = Field(default=False, description="Answer 400 to JSON mode too.")
    cut_after_chunks: int | None = Field(
        default=None, description="Streams: drop the connection after this many chunks."
    )
    stall_after_chunks: int | None = Field(
        default=None, description="Streams: stop sending (but keep the connection) after this."
    )
    omit_usage: bool = False
    tool_calls: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Function calls to return: `{id, name, arguments}` (arguments as JSON text); "
        "the finish reason becomes `tool_calls`.",
    )
    reject_params: list[str] = Field(
        default_factory=list,
        description="Answer 400 when the request sets one of these (as reasoning models do "
        "for max_tokens and temperature).",
    )
    rejection_status: int = Field(
        default=400,
        description="The status of those rejections: 422 as FastAPI servers, 500 as "
        "llama-cpp-python's server (then without `x-should-retry`, as it sends none).",
    )
    rejection_body: dict[str, Any] | None = Field(
        default=None, description="The exact body of a rejection (e.g. a real server's)."
    )


class ChatRequest(BaseModel):
    """What the endpoint received (the body's useful parts)."""

    model: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    stream: bool = False
    response_format: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    max_tokens: int | None = None
    body: dict[str, Any] = Field(default_factory=dict, description="The whole request body.")
    authorization: str | None = Field(
        default=None, description="The `Authorization` header the request came with."
    )

    @property
    def prompt(self) -> str:
        return "\n".join(str(message.get("content") or "") for message in self.messages)


Script = Sequence[Reply] | Callable[[ChatRequest], Reply]


class ScriptedEndpoint:
    """Serve scripted replies at `base_url` (an OpenAI-style `/v1`) until `stop()`.

    Use as a context manager. `requests` lists every chat request received, in order.
    """

    def __init__(self, script: Script) -> None:
        self._script = script
        self._served = 0
        self.requests: list[ChatRequest] = []
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app(),
            log_level="critical",
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the scripted endpoint did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    def load(self, script: Script) -> None:
        """Serve `script` from now on, forgetting the requests received so far."""
        self._script = script
        self._served = 0
        self.requests = []

    def next_reply(self, request: ChatRequest) -> Reply:
        self.requests.append(request)
        if callable(self._script):
            return self._script(request)
        index = min(self._served, len(self._script) - 1)
        self._served += 1
        return self._script[index]

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": "scripted", "object": "model"}]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Any:
            body = await request.json()
            chat_request = ChatRequest.model_validate(
                {**body, "body": body, "authorization": request.headers.get("authorization")}
            )
            reply = self.next_reply(chat_request)
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
            rejected = _rejection(reply, chat_request) or _param_rejection(reply, body)
            status = reply.rejection_status if rejected else reply.status
            if status != 200:
                headers = {"x-should-retry": "false"} if rejected and status < 500 else {}
                if reply.retry_after_ms is not None:
                    headers["retry-after-ms"] = str(reply.retry_after_ms)
                message = rejected or reply.error
                error = {"error": {"message": message, "type": "scripted", "code": status}}
                if rejected and reply.rejection_body is not None:
                    error = reply.rejection_body
                return JSONResponse(error, status_code=status, headers=headers)
            if chat_request.stream:
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                return StreamingResponse(
                    _sse(reply, chat_request, include_usage), media_type="text/event-stream"
                )
            return _completion(reply, chat_request)

        return app


def _rejection(reply: Reply, request: ChatRequest) -> str | None:
    kind = (request.response_format or {}).get("type")
    if kind == "json_schema" and reply.reject_schema:
        return "response_format json_schema is not supported by this server"
    if kind in {"json_schema", "json_object"} and reply.reject_json_mode:
        return "response_format is not supported by this server"
    return None


_PARAM_ERRORS = {
    "max_tokens": "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead.",
    "temperature": "Unsupported value: 'temperature' does not support 0 with this model. "
    "Only the default (1) value is supported.",
}


def _param_rejection(reply: Reply, body: dict[str, Any]) -> str | None:
    for name in reply.reject_params:
        if name in body:
            return _PARAM_ERRORS.get(name, f"Unsupported parameter: {name!r}.")
    return None


def _usage(reply: Reply, request: ChatRequest) -> dict[str, int]:
    prompt = count_chat(request.messages)
    completion = count_tokens(reply.content or "")
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _completion(reply: Reply, request: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": reply.content,
                    "refusal": reply.refusal,
                    **({"tool_calls": _tool_calls(reply)} if reply.tool_calls else {}),
                },
                "finish_reason": "tool_calls" if reply.tool_calls else reply.finish_reason,
            }
        ],
    }
    if not reply.omit_usage:
        body["usage"] = _usage(reply, request)
    return body


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    return [
        {
            "id": call.get("id", f"call_{number}"),
            "type": "function",
            "function": {"name": call["name"], "arguments": call.get("arguments", "{}")},
        }
        for number, call in enumerate(reply.tool_calls)
    ]


def _pieces(text: str) -> list[str]:
    """Split text into word-sized stream pieces that join back to the text."""
    pieces: list[str] = []
    current = ""
    for char in text:
        current += char
        if char.isspace() or len(current) >= 8:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


async def _sse(reply: Reply, request: ChatRequest, include_usage: bool) -> AsyncIterator[bytes]:
    def event(choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> bytes:
        chunk: dict[str, Any] = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": request.model,
            "choices": choices,
        }
        if usage is not None:
            chunk["usage"] = usage
        return f"data: {json.dumps(chunk)}\n\n".encode()

    for sent, piece in enumerate(_pieces(reply.content or "")):
        if reply.cut_after_chunks is not None and sent >= reply.cut_after_chunks:
            raise ConnectionAbortedError("scripted stream drop")
        if reply.stall_after_chunks is not None and sent >= reply.stall_after_chunks:
            await asyncio.sleep(3600)
        delta = {"role": "assistant", "content": piece} if sent == 0 else {"content": piece}
        yield event([{"index": 0, "delta": delta, "finish_reason": None}])
        await asyncio.sleep(0)
    if reply.refusal:
        yield event([{"index": 0, "delta": {"refusal": reply.refusal}, "finish_reason": None}])
    # Tool calls as OpenAI streams them: the id and name first, the arguments in pieces.
    for index, call in enumerate(_tool_calls(reply)):
        head = {**call, "index": index, "function": {"name": call["function"]["name"]}}
        head["function"]["arguments"] = ""
        yield event([{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}])
        for piece in _pieces(call["function"]["arguments"]):
            part = {"index": index, "function": {"arguments": piece}}
            yield event([{"index": 0, "delta": {"tool_calls": [part]}, "finish_reason": None}])
    finish = "tool_calls" if reply.tool_calls else reply.finish_reason
    yield event([{"index": 0, "delta": {}, "finish_reason": finish}])
    if include_usage and not reply.omit_usage:
        yield event([], _usage(reply, request))
    yield b"data: [DONE]\n\n"
