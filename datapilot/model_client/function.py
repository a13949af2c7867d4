"""A model that is a Python function: tests drive a turn in-process, without an endpoint.

`FunctionModel(fn)` offers the calls an assistant turn makes of `LLMClient` (`stream_tools`,
`complete_tools`, `aclose`); `fn(messages, tools)` sees the typed messages and the tools'
schemas of each call and returns the `ModelResponse`. The wire-level `ScriptedEndpoint`
(scripted.py) stays for end-to-end tests of what goes over HTTP.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from datapilot.core.model_messages import ModelMessage, ModelResponse
from datapilot.model_client.errors import LLMRefused

ModelFunction = Callable[
    [list[ModelMessage], list[dict[str, Any]]], ModelResponse | Awaitable[ModelResponse]
]


class ToolModel(Protocol):
    """What an assistant turn calls a model with: `LLMClient`, or `FunctionModel` in tests."""

    def stream_tools(
        self,
        messages: Sequence[ModelMessage],
        *,
        tools: list[dict[str, Any]],
        purpose: str = "assistant",
        max_tokens: int = 1500,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
        client_limit: bool = False,
    ) -> AsyncGenerator[str | ModelResponse, None]: ...

    async def aclose(self) -> None: ...


class FunctionModel:
    """A model whose every reply is `fn(messages, tools)`; `calls` keeps what it was sent."""

    def __init__(self, fn: ModelFunction) -> None:
        self.fn = fn
        self.calls: list[list[ModelMessage]] = []
        self.requests: list[dict[str, Any]] = []  # each streamed call's request fields

    async def complete_tools(
        self,
        messages: Sequence[ModelMessage],
        *,
        tools: list[dict[str, Any]],
        purpose: str = "assistant",
        max_tokens: int = 1500,
        temperature: float | None = None,
    ) -> ModelResponse:
        """The function's reply; like `LLMClient`, one with neither text nor calls is refused."""
        self.calls.append(list(messages))
        reply = self.fn(list(messages), tools)
        if inspect.isawaitable(reply):
            reply = await reply
        if not reply.text.strip() and not reply.tool_calls:
            raise LLMRefused("the model answered with nothing")
        return reply

    async def stream_tools(
        self,
        messages: Sequence[ModelMessage],
        *,
        tools: list[dict[str, Any]],
        purpose: str = "assistant",
        max_tokens: int = 1500,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
        client_limit: bool = False,
    ) -> AsyncGenerator[str | ModelResponse, None]:
        """The reply's text as one piece (when it has any), then the reply; the request's
        fields are kept in `requests` (max_tokens, temperature and the options)."""
        sent = {"max_tokens": max_tokens, "temperature": temperature, **(options or {})}
        self.requests.append(sent)
        reply = await self.complete_tools(messages, tools=tools, purpose=purpose)
        if reply.text:
            yield reply.text
        yield reply

    async def aclose(self) -> None:
        return None
