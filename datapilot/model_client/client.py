"""An async client for any OpenAI-compatible chat endpoint, with usage accounting.

Retries with backoff on 429, 5xx and connection errors are the `openai` SDK's own (it honours
`Retry-After`); this module adds an overall deadline per call, maps failures to `LLMError`s
with actionable messages, and adapts to what each endpoint refuses (rejections.py): a field its
error names (a 400, a 422 or a 500) is dropped or changed and the call made again at once, and
structured output degrades from JSON schema to JSON mode to plain text (the caller extracts the
JSON). Without `tools` (refused), the tools are described in the prompt and the caller reads
the calls from the text (toolcalls.py).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, NamedTuple

import openai
from pydantic import BaseModel

from datapilot.core.model_messages import (
    ModelMessage,
    ModelResponse,
    ToolCall,
    WireMessage,
    to_openai,
)
from datapilot.model_client.config import LLMConfig
from datapilot.model_client.errors import (
    LLMError,
    LLMRefused,
    LLMStreamBroken,
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
)
from datapilot.model_client.failures import clip, said, translate
from datapilot.model_client.rejections import (
    Adaptations,
    OutputMode,
    Rejected,
    mark_rejections,
    rejection,
)
from datapilot.model_client.replies import (
    CallAssembly,
    count_usage,
    stream_usage,
    tool_names,
    written_calls,
)
from datapilot.model_client.tokens import count_chat, count_tokens
from datapilot.model_client.toolcalls import may_be_call, with_tools_described
from datapilot.model_client.usage import CallUsage, UsageMeter

# What each endpoint+model refused so far; shared by every client of the process.
_adaptations: dict[str, Adaptations] = {}

# Each adaptation removes one thing the endpoint rejected, so a few rounds always suffice.
_MAX_ADAPTATIONS = 8
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry|i can(?:'|no)t|i cannot|i'm unable|i am unable|"
    r"as an ai|抱歉|对不起|我无法|我不能)",
    re.I,
)

# What the client is called with: typed messages, which become OpenAI's wire dicts only here
# (`to_openai`).
Message = ModelMessage


class ChatReply(BaseModel):
    """The text of a non-streamed reply and how it was asked for."""

    text: str
    finish_reason: str | None = None
    mode: OutputMode = "text"


class EndpointProbe(NamedTuple):
    """What asking an endpoint for its model list found."""

    status: int | None
    """The HTTP status it answered with (200 when it listed them); None when not reached."""
    problem: str = ""
    """Why it was not reached, e.g. "did not answer within 3 s"."""


def looks_like_refusal(text: str) -> bool:
    """True for replies such as "I'm sorry, I can't help with that"."""
    return bool(_REFUSAL.match(text))


def forget_endpoint_modes() -> None:
    """Forget what endpoints accept (for tests and after reconfiguration)."""
    _adaptations.clear()


class LLMClient:
    """Chat calls against one endpoint; every call is recorded in `meter`."""

    def __init__(self, config: LLMConfig, meter: UsageMeter | None = None) -> None:
        self.config = config
        self.meter = meter if meter is not None else UsageMeter()
        self._sdk = openai.AsyncOpenAI(
            base_url=config.base_url,
            # Local servers (Ollama, vLLM, llama.cpp) take any key, but the SDK insists on one.
            api_key=config.api_key.get_secret_value() if config.api_key else "not-needed",
            timeout=config.timeout_s,
            max_retries=config.max_retries,
            # A server error naming a field of the request is a rejection: adapted to, not
            # retried as it was.
            http_client=openai.DefaultAsyncHttpxClient(
                timeout=config.timeout_s, event_hooks={"response": [mark_rejections]}
            ),
        )

    @property
    def adaptations(self) -> Adaptations:
        """What this endpoint and model refused so far (shared by its clients)."""
        return _adaptations.setdefault(self.config.endpoint_key, Adaptations())

    @property
    def mode(self) -> OutputMode:
        """The structured-output mode this endpoint is currently asked with."""
        return self.adaptations.mode

    async def aclose(self) -> None:
        await self._sdk.close()

    async def complete_json(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any],
        schema_name: str,
        purpose: str = "plan",
        max_tokens: int = 2000,
    ) -> ChatReply:
        """One non-streamed call asking for a JSON object that follows `schema`.

        Raises `LLMRefused` for refusals and empty replies, `LLMTruncated` when the reply hit the
        token limit, and `LLMUnavailable`/`LLMTimeout` when the endpoint failed.
        """
        wire = to_openai(messages)
        for _ in range(_MAX_ADAPTATIONS):
            mode = self.mode
            try:
                return await self._complete(wire, mode, schema, schema_name, purpose, max_tokens)
            except Rejected as rejected:
                self._adapt(rejected, structured=True)
        raise self._rejected_everything()

    async def _complete(
        self,
        messages: list[WireMessage],
        mode: OutputMode,
        schema: dict[str, Any],
        schema_name: str,
        purpose: str,
        max_tokens: int,
    ) -> ChatReply:
        extra: dict[str, Any] = {}
        if mode == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": False},
            }
        elif mode == "json_object":
            extra["response_format"] = {"type": "json_object"}
        usage = CallUsage(purpose=purpose, ok=False)
        sampling = self.adaptations.sampling(max_tokens, temperature=0.0)
        response = await self._create(messages, usage, sampling, extra)
        choice = response.choices[0]
        text = choice.message.content or ""
        usage.ok = True
        count_usage(usage, response, messages, [text])
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            raise LLMRefused(f"the model declined: {clip(refusal)}")
        if not text.strip():
            raise LLMRefused("the model answered with nothing")
        if choice.finish_reason == "length":
            raise LLMTruncated(f"the reply was cut off at the {max_tokens}-token limit")
        if choice.finish_reason == "content_filter":
            raise LLMRefused("the endpoint's content filter stopped the reply")
        return ChatReply(text=text, finish_reason=choice.finish_reason, mode=mode)

    async def complete_tools(
        self,
        messages: Sequence[Message],
        *,
        tools: list[dict[str, Any]],
        purpose: str = "assistant",
        max_tokens: int = 1500,
        temperature: float | None = None,
    ) -> ModelResponse:
        """One non-streamed call with OpenAI function calling: the reply's text and tool calls.

        Raises `LLMUnavailable`/`LLMTimeout` when the endpoint failed, `LLMRefused` for a
        refusal or a reply with neither text nor tool calls.
        """
        for _ in range(_MAX_ADAPTATIONS):
            usage = CallUsage(purpose=purpose, ok=False)
            wire, extra = self._with_tools(messages, tools, {})
            sampling = self.adaptations.sampling(max_tokens, temperature=temperature or 0.2)
            try:
                response = await self._create(wire, usage, sampling, extra)
            except Rejected as rejected:
                self._adapt(rejected, structured=False)
                continue
            choice = response.choices[0]
            text = choice.message.content or ""
            calls = [
                ToolCall(
                    id=call.id,
                    name=call.function.name,
                    arguments=call.function.arguments or "{}",
                )
                for call in choice.message.tool_calls or []
                if call.type == "function"
            ]
            pieces = [text, *(call.name + call.arguments for call in calls)]
            count_usage(usage, response, wire, pieces)
            usage.ok = True
            refusal = getattr(choice.message, "refusal", None)
            if refusal:
                raise LLMRefused(f"the model declined: {clip(refusal)}")
            names = tool_names(tools)
            if names and not calls and (written := written_calls(text, names, strict=True)):
                calls, text = list(written), ""
            if not text.strip() and not calls:
                raise LLMRefused("the model answered with nothing")
            return ModelResponse(
                text=text,
                tool_calls=tuple(calls),
                finish_reason=choice.finish_reason,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
            )
        raise self._rejected_everything()

    async def _create(
        self,
        messages: list[WireMessage],
        usage: CallUsage,
        sampling: dict[str, Any],
        extra: dict[str, Any],
    ) -> Any:
        """One non-streamed call within the deadline, metered in `usage`; the response, which has
        at least one choice.

        Raises `Rejected` when the endpoint refused a field (callers adapt the request to it);
        other endpoint failures become `LLMUnavailable`/`LLMTimeout`.
        """
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._deadline_s()):
                response = await self._sdk.chat.completions.create(
                    model=self.config.model,
                    messages=messages,  # type: ignore[arg-type]
                    **sampling,
                    **extra,
                )
        except (openai.APIError, TimeoutError) as error:
            raise self._failure(error, {*sampling, *extra}) from error
        finally:
            usage.latency_ms = (time.perf_counter() - started) * 1000
            self.meter.record(usage)
        if not response.choices:
            raise LLMRefused("the model returned no choices")
        return response

    async def stream_text(
        self, messages: Sequence[Message], *, purpose: str = "summary", max_tokens: int = 600
    ) -> AsyncGenerator[str, None]:
        """Stream a reply's text as it arrives.

        Every wait for the next chunk is bounded by the remaining deadline. Raises `LLMTruncated`
        when the stream drops or hits the token limit after text arrived, `LLMTimeout` when it
        stalls, and `LLMUnavailable` when it never starts.
        """
        wire = to_openai(messages)
        started = time.perf_counter()
        deadline = started + self._deadline_s()
        usage = CallUsage(purpose=purpose, ok=False, prompt_tokens=count_chat(wire))
        self.meter.record(usage)
        received: list[str] = []
        finish: str | None = None
        try:
            stream = await self._open_stream(messages, max_tokens, 0.2, {}, deadline)
            async for chunk in self._chunks(stream, deadline, received):
                stream_usage(usage, chunk)
                for choice in chunk.choices:
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        received.append(piece)
                        yield piece
                    finish = choice.finish_reason or finish
            if not usage.completion_tokens:
                usage.completion_tokens = count_tokens("".join(received))
            if finish == "length":
                raise LLMTruncated(f"the reply was cut off at the {max_tokens}-token limit")
            if finish is None and received:
                raise LLMStreamBroken("the stream ended before the model finished")
            if not "".join(received).strip():
                raise LLMRefused("the model answered with nothing")
            usage.ok = True
        finally:
            usage.latency_ms = (time.perf_counter() - started) * 1000

    async def stream_tools(
        self,
        messages: Sequence[Message],
        *,
        tools: list[dict[str, Any]],
        purpose: str = "assistant",
        max_tokens: int = 1500,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
        client_limit: bool = False,
    ) -> AsyncGenerator[str | ModelResponse, None]:
        """A function-calling reply streamed: its text pieces as they arrive, then one
        `ModelResponse` with the whole text, the assembled tool calls and the call's tokens.

        `options` are more request fields (a client's `stop`, `seed`, `tool_choice`…, sent as
        given). With `client_limit`, `max_tokens` is a client's own limit: a reply cut there
        is the answer (`finish_reason` length), not a truncation.

        Raises like `stream_text`; a reply with neither text nor tool calls, or a refusal, is
        `LLMRefused`.
        """
        wire = to_openai(messages)
        started = time.perf_counter()
        deadline = started + self._deadline_s()
        usage = CallUsage(purpose=purpose, ok=False, prompt_tokens=count_chat(wire))
        self.meter.record(usage)
        received: list[str] = []
        calls = CallAssembly()
        refusal: list[str] = []
        finish: str | None = None
        names = tool_names(tools)
        # With tools offered, a reply that may be a call written as text is held back until
        # it is read whole.
        held: bool | None = True if names else None
        try:
            stream = await self._open_stream(
                messages, max_tokens, temperature or 0.2, dict(options or {}), deadline, tools
            )
            async for chunk in self._chunks(stream, deadline, received):
                stream_usage(usage, chunk)
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta is not None:
                        if delta.content:
                            received.append(delta.content)
                            if held is None:
                                yield delta.content
                            elif not may_be_call("".join(received)):
                                yield "".join(received)  # prose after all: out it goes
                                held = None
                        if getattr(delta, "refusal", None):
                            refusal.append(delta.refusal or "")
                        for call in delta.tool_calls or []:
                            calls.add(call)
                            received.append("")  # progress: a drop now is a truncation
                    finish = choice.finish_reason or finish
            text = "".join(received)
            requests = calls.requests()
            if not usage.completion_tokens:
                pieces = [text, *(call.name + call.arguments for call in requests)]
                usage.completion_tokens = sum(count_tokens(piece) for piece in pieces)
            if refusal:
                raise LLMRefused(f"the model declined: {clip(''.join(refusal))}")
            if names and not requests and (held or "<tool_call>" in text):
                written = written_calls(text, names, strict=bool(held))
                if written:
                    requests, text, finish, held = list(written), "", "tool_calls", None
            if held and text:
                yield text  # held back as a possible call, and none was read from it
            if finish == "length" and not client_limit:
                raise LLMTruncated(f"the reply was cut off at the {max_tokens}-token limit")
            if finish is None and (text or requests):
                raise LLMStreamBroken("the stream ended before the model finished")
            if not text.strip() and not requests and finish != "length":
                raise LLMRefused("the model answered with nothing")
            usage.ok = True
            yield ModelResponse(
                text=text,
                tool_calls=tuple(requests),
                finish_reason=finish,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
            )
        finally:
            usage.latency_ms = (time.perf_counter() - started) * 1000

    async def _open_stream(
        self,
        messages: Sequence[Message],
        max_tokens: int,
        temperature: float,
        extra: dict[str, Any],
        deadline: float,
        tools: list[dict[str, Any]] | None = None,
    ) -> openai.AsyncStream[Any]:
        """Start a streamed call within the deadline, adapting to what the endpoint rejects."""
        for _ in range(_MAX_ADAPTATIONS):
            wire, options = self._with_tools(messages, tools or [], extra)
            options = self.adaptations.options(
                {**options, "stream_options": {"include_usage": True}}
            )
            sampling = self.adaptations.sampling(max_tokens, temperature=temperature)
            try:
                stream = await asyncio.wait_for(
                    self._sdk.chat.completions.create(
                        model=self.config.model,
                        messages=wire,  # type: ignore[arg-type]
                        stream=True,
                        **sampling,
                        **options,
                    ),
                    timeout=self._remaining(deadline),
                )
            except Rejected as rejected:
                self._adapt(rejected, structured=False)
                continue
            except (openai.APIError, TimeoutError) as error:
                failure = self._failure(error, {*sampling, *options})
                if isinstance(failure, Rejected):
                    self._adapt(failure, structured=False)
                    continue
                raise failure from error
            # `stream=True` always streams; the `**` options hide which overload mypy should pick.
            assert isinstance(stream, openai.AsyncStream)
            return stream
        raise LLMUnavailable(f"{self.config.shown_url} rejected every variant of the request")

    async def _chunks(
        self, stream: openai.AsyncStream[Any], deadline: float, received: list[str]
    ) -> AsyncGenerator[Any, None]:
        """The stream's chunks, each wait bounded by the deadline; a drop after something was
        `received` is a truncation, before it the endpoint's failure."""
        iterator = stream.__aiter__()
        while True:
            try:
                chunk = await asyncio.wait_for(
                    iterator.__anext__(), timeout=self._remaining(deadline)
                )
            except StopAsyncIteration:
                return
            except TimeoutError as error:
                raise LLMTimeout(
                    f"the model stopped streaming for longer than {self.config.timeout_s:g} s"
                ) from error
            # A dropped connection surfaces as whatever the HTTP layer raises mid-stream.
            except Exception as error:
                if received:
                    raise LLMStreamBroken(f"the stream broke off: {clip(str(error))}") from error
                raise translate(error, self.config) from error
            yield chunk

    def _with_tools(
        self, messages: Sequence[Message], tools: list[dict[str, Any]], extra: dict[str, Any]
    ) -> tuple[list[WireMessage], dict[str, Any]]:
        """The wire messages and request fields of a call offering `tools`: as `tools`, or,
        where the endpoint refused them, described in the prompt (the reply's text holds the
        calls then)."""
        adaptations = self.adaptations
        if tools and adaptations.tools:
            return to_openai(messages), adaptations.options({**extra, "tools": tools})
        wire = to_openai(with_tools_described(messages, tools) if tools else messages)
        return wire, adaptations.options(extra)

    def _failure(self, error: BaseException, sent: set[str]) -> LLMError:
        """What an endpoint failure is: a rejection of a field sent, or an error to report."""
        if isinstance(error, openai.APIStatusError):
            rejected = rejection(error.status_code, said(error), sent)
            if rejected is not None:
                return rejected
        return translate(error, self.config)

    def _adapt(self, rejected: Rejected, *, structured: bool) -> None:
        """Learn what this endpoint refused, or raise the rejection as an error when nothing is
        left to change."""
        if not self.adaptations.learn(rejected, structured=structured):
            where = f"the model endpoint {self.config.base_url}"
            raise LLMUnavailable(
                f"{where} rejected the request (HTTP {rejected.status}): {clip(rejected.said)}"
            ) from rejected

    async def ping(self, timeout_s: float = 3.0) -> bool:
        """True when the endpoint answers at all (any HTTP status counts as reachable)."""
        return (await self.probe(timeout_s)).status is not None

    async def probe(self, timeout_s: float = 3.0, connect_s: float | None = None) -> EndpointProbe:
        """The status the endpoint's model list answers with, or why it was not reached.

        The whole probe takes at most `timeout_s`; connecting at most `connect_s` (a host that
        drops the connection attempt costs that, not the whole timeout)."""
        connect = min(connect_s or timeout_s, timeout_s)
        timeout = openai.Timeout(timeout_s, connect=connect)
        sdk = self._sdk.with_options(timeout=timeout, max_retries=0)
        try:
            # A server that trickles bytes resets httpx's read timeout: this bounds the whole.
            async with asyncio.timeout(timeout_s):
                await sdk.models.list()
        except openai.APIStatusError as error:
            return EndpointProbe(error.status_code)
        except (openai.APITimeoutError, TimeoutError) as error:
            # By name: the SDK's HTTP library is httpx or its fork httpx2, by version.
            if type(error.__cause__).__name__ == "ConnectTimeout":
                return EndpointProbe(None, f"accepted no connection within {connect:g} s")
            return EndpointProbe(None, f"did not answer within {timeout_s:g} s")
        except openai.APIError as error:
            cause = error.__cause__
            said = str(cause or error).strip() or type(cause or error).__name__
            return EndpointProbe(None, said[:1].lower() + said[1:])
        return EndpointProbe(200)

    def _rejected_everything(self) -> LLMUnavailable:
        return LLMUnavailable(
            f"the model endpoint {self.config.shown_url} rejected every variant of the request"
        )

    def _deadline_s(self) -> float:
        # Room for every retry plus the SDK's backoff between them.
        return self.config.timeout_s * (self.config.max_retries + 1) + 10.0

    @staticmethod
    def _remaining(deadline: float) -> float:
        return max(0.01, deadline - time.perf_counter())
