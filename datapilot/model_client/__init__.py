"""Calling OpenAI-compatible model endpoints: configuration, client, usage and token counting.

The names below load with their own module, on first use: reading the configuration
(`model_client.config`) or the endpoint's health must not import the OpenAI SDK (~0.3-1 s),
which only a call needs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datapilot.model_client.client import (
        ChatReply,
        EndpointProbe,
        LLMClient,
        OutputMode,
        looks_like_refusal,
    )
    from datapilot.model_client.config import LLMConfig, resolve_config
    from datapilot.model_client.errors import (
        LLMError,
        LLMPromptTooLong,
        LLMRefused,
        LLMStreamBroken,
        LLMTimeout,
        LLMTruncated,
        LLMUnavailable,
        UnreadableToolCalls,
    )
    from datapilot.model_client.jsontext import NoJSONError, extract_json_object
    from datapilot.model_client.tokens import count_chat, count_tokens
    from datapilot.model_client.usage import CallUsage, UsageMeter

# Each name and the module (of this package) that defines it.
_MODULES = {
    "ChatReply": "client",
    "EndpointProbe": "client",
    "LLMClient": "client",
    "OutputMode": "client",
    "looks_like_refusal": "client",
    "LLMConfig": "config",
    "resolve_config": "config",
    "LLMError": "errors",
    "LLMRefused": "errors",
    "LLMTimeout": "errors",
    "LLMStreamBroken": "errors",
    "LLMTruncated": "errors",
    "LLMUnavailable": "errors",
    "LLMPromptTooLong": "errors",
    "UnreadableToolCalls": "errors",
    "NoJSONError": "jsontext",
    "extract_json_object": "jsontext",
    "count_chat": "tokens",
    "count_tokens": "tokens",
    "CallUsage": "usage",
    "UsageMeter": "usage",
}

__all__ = [
    "CallUsage",
    "ChatReply",
    "EndpointProbe",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMPromptTooLong",
    "LLMRefused",
    "LLMStreamBroken",
    "LLMTimeout",
    "LLMTruncated",
    "LLMUnavailable",
    "NoJSONError",
    "OutputMode",
    "UnreadableToolCalls",
    "UsageMeter",
    "count_chat",
    "count_tokens",
    "extract_json_object",
    "looks_like_refusal",
    "resolve_config",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value
