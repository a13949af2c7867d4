"""An endpoint's failures as `LLMError`s with messages a user can act on."""

from __future__ import annotations

import json
import re

import openai

from datapilot.model_client.config import LLMConfig
from datapilot.model_client.errors import LLMError, LLMPromptTooLong, LLMTimeout, LLMUnavailable

# How servers say a request does not fit the model's context (OpenAI's code, llama.cpp's words).
_CONTEXT = re.compile(r"context_length_exceeded|maximum context length|exceed context window")


def translate(error: BaseException, config: LLMConfig) -> LLMError:
    """An endpoint failure as an `LLMError` whose message says what to check or change."""
    where = f"the model endpoint {config.shown_url}"
    retries = config.max_retries
    if isinstance(error, openai.APITimeoutError | TimeoutError):
        return LLMTimeout(
            f"{where} did not answer within {config.timeout_s:g} s "
            f"({retries} retries); raise DATAPILOT_LLM_TIMEOUT_S or check the server"
        )
    if isinstance(error, openai.APIConnectionError):
        return LLMUnavailable(
            f"could not reach {where} after {retries} retries; "
            "check DATAPILOT_LLM_BASE_URL and that the server is running"
        )
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return LLMUnavailable(
            f"{where} rejected the API key (HTTP {error.status_code}); check DATAPILOT_LLM_API_KEY"
        )
    if isinstance(error, openai.NotFoundError):
        return LLMUnavailable(
            f"{where} does not serve model {config.model!r} (HTTP 404); "
            "check DATAPILOT_LLM_MODEL and DATAPILOT_LLM_BASE_URL"
        )
    if isinstance(error, openai.RateLimitError):
        return LLMUnavailable(
            f"{where} kept rate-limiting the request (HTTP 429) after {retries} retries; "
            "try again later or raise your quota"
        )
    if isinstance(error, openai.APIStatusError) and _CONTEXT.search(str(error.message)):
        # The request's size, not the endpoint's health: a smaller prompt may still fit.
        return LLMPromptTooLong(f"{where} has a smaller context window: {clip(error.message)}")
    if isinstance(error, openai.APIStatusError):
        after = f" after {retries} retries" if error.status_code >= 500 else ""
        return LLMUnavailable(
            f"{where} failed with HTTP {error.status_code}{after}: {clip(error.message)}"
        )
    return LLMUnavailable(f"{where} failed: {clip(str(error)) or type(error).__name__}")


def said(error: openai.APIStatusError) -> str:
    """What an error response said: the SDK's message (which quotes the body) and the body."""
    body = error.body
    shown = body if isinstance(body, str) else json.dumps(body, default=str) if body else ""
    return f"{error.message} {shown}".strip()


def clip(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
