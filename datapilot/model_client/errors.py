"""Errors of a model call, each with a message a user can act on."""

from __future__ import annotations


class LLMError(Exception):
    """A model call failed; the message says what happened and what to do."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached, rejected the request, or kept failing after retries."""


class LLMTimeout(LLMError):
    """The endpoint did not answer (or stopped streaming) within the configured timeout."""


class LLMRefused(LLMError):
    """The model declined to answer or answered with nothing."""


class LLMTruncated(LLMError):
    """The reply was cut off (token limit or a dropped stream)."""


class LLMStreamBroken(LLMTruncated):
    """The reply's stream broke off or ended before the model finished (the connection, not
    the model's length)."""


class UnreadableToolCalls(LLMError):
    """The model wrote something like a tool call as text that cannot be read as one."""


class LLMPromptTooLong(LLMError):
    """The prompt and the reply's token limit do not fit the model's context window."""
