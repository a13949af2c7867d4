"""Calling OpenAI-compatible model endpoints: configuration, client, usage and token counting."""

from __future__ import annotations

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
    LLMTimeout,
    LLMTruncated,
    LLMUnavailable,
    UnreadableToolCalls,
)
from datapilot.model_client.jsontext import NoJSONError, extract_json_object
from datapilot.model_client.tokens import count_chat, count_tokens
from datapilot.model_client.usage import CallUsage, UsageMeter

__all__ = [
    "CallUsage",
    "ChatReply",
    "EndpointProbe",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMPromptTooLong",
    "LLMRefused",
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
