"""What an endpoint refuses, learnt from its errors: a request field that its error names.

Servers say no in different ways: OpenAI and vLLM answer 400, FastAPI-based servers 422, and
llama-cpp-python's server 500 with the validation error as the body (`('body',
'response_format', 'type')` … `Input should be 'text' or 'json_object'`). Any of these whose body
names a field the request sent is that field's rejection: learnt once per endpoint and model
(`Adaptations`), adapted to, and never retried as it was. A server error that names no field of
the request keeps the retry policy (the SDK's own retries, with backoff).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import httpx

from datapilot.model_client.errors import LLMError

OutputMode = Literal["json_schema", "json_object", "text"]
DOWNGRADE: dict[OutputMode, OutputMode] = {"json_schema": "json_object", "json_object": "text"}

# The fields an endpoint may refuse, the most specific first: a body naming several is taken
# for the first of them that the request sent (the next attempt learns the next one).
Refusable = Literal[
    "response_format",
    "tool_choice",
    "parallel_tool_calls",
    "tools",
    "stream_options",
    "max_completion_tokens",
    "max_tokens",
    "temperature",
]
REFUSABLE: tuple[Refusable, ...] = get_args(Refusable)
_NAMES = {name: re.compile(rf"(?<![A-Za-z_]){name}(?![A-Za-z_])") for name in REFUSABLE}
# Older servers reject structured output on a 400 without naming the field.
_FORMAT_WORDS = re.compile(
    r"json_schema|json_object|schema|format|not support|unsupported", re.IGNORECASE
)
# The statuses that may carry a rejection: a 400, a 422, or a server error naming the field.
_CLIENT_REJECTIONS = {400, 422}


class Rejected(LLMError):
    """The endpoint refused `field` of the request (`status`, its body in `said`)."""

    def __init__(self, field: Refusable | None, status: int, said: str) -> None:
        super().__init__(f"HTTP {status} rejecting {field or 'the output format'}: {said}")
        self.field = field
        self.status = status
        self.said = said


def named_field(status: int, body: str, sent: Collection[str]) -> Refusable | None:
    """The field of the request (`sent`: its top-level keys) that an error names, if any."""
    if status not in _CLIENT_REJECTIONS and status < 500:
        return None
    for name in REFUSABLE:
        if name in sent and _NAMES[name].search(body):
            return name
    return None


def rejection(status: int, body: str, sent: Collection[str]) -> Rejected | None:
    """The rejection an error is, or None for an error to retry or report as it is.

    A 400 or 422 to a request with a `response_format` that speaks of formats or schemas
    without naming a field is taken as refusing the format, as older servers word it.
    """
    field = named_field(status, body, sent)
    if field is not None:
        return Rejected(field, status, body)
    if status in _CLIENT_REJECTIONS and "response_format" in sent and _FORMAT_WORDS.search(body):
        return Rejected("response_format", status, body)
    return None


def sent_fields(request: httpx.Request) -> set[str]:
    """The top-level fields of a JSON request body (none when it is not one)."""
    try:
        body = json.loads(request.content or b"{}")
    except (ValueError, httpx.RequestNotRead):
        return set()
    return set(body) if isinstance(body, dict) else set()


async def mark_rejections(response: Any) -> None:
    """An HTTP response hook: a server error naming a field of its request is not retried.

    The SDK retries every 5xx; it obeys `x-should-retry`, which this sets to false for a
    rejection (a server error that names no field keeps the retries)."""
    if response.status_code < 500:
        return
    await response.aread()
    if named_field(response.status_code, response.text, sent_fields(response.request)):
        response.headers["x-should-retry"] = "false"


@dataclass
class Adaptations:
    """What one endpoint and model refused so far, and so how it is asked from now on."""

    mode: OutputMode = "json_schema"
    refused: set[Refusable] = field(default_factory=set)

    def learn(self, rejected: Rejected, *, structured: bool) -> bool:
        """Adapt to a rejection; False when nothing is left to change (then it is an error)."""
        name = rejected.field
        if name == "response_format":
            if not structured or self.mode not in DOWNGRADE:
                return False
            self.mode = DOWNGRADE[self.mode]
            return True
        if name is None or name in self.refused:
            return False
        self.refused.add(name)
        if name == "tools":
            # Without tools a tool choice means nothing either.
            self.refused.update({"tool_choice", "parallel_tool_calls"})
        return True

    def limit_field(self) -> str | None:
        """The field the token limit goes in: `max_tokens`, as reasoning models want it
        `max_completion_tokens`, or none when both were refused."""
        for name in ("max_tokens", "max_completion_tokens"):
            if name not in self.refused:
                return name
        return None

    def sampling(self, max_tokens: int, temperature: float) -> dict[str, Any]:
        """The token limit and temperature, in the fields this endpoint accepts."""
        sampling: dict[str, Any] = {}
        limit = self.limit_field()
        if limit is not None:
            sampling[limit] = max_tokens
        if "temperature" not in self.refused:
            sampling["temperature"] = temperature
        return sampling

    def options(self, extra: Mapping[str, Any]) -> dict[str, Any]:
        """`extra` without the fields this endpoint refused."""
        return {key: value for key, value in extra.items() if key not in self.refused}

    @property
    def tools(self) -> bool:
        """Whether this endpoint takes `tools` (else calls are asked for in the prompt)."""
        return "tools" not in self.refused
