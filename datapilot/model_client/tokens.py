"""Offline token counting (o200k_base, as GPT-4o and later use).

`bpe-openai` ships its tables inside the wheel, so counting never downloads anything. It is an
optional dependency (the `test` extra); without it counts are estimated from the text length.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

# Per-message framing tokens of the chat format (role markers), as OpenAI documents for gpt-4o.
_PER_MESSAGE = 3
_PER_REPLY = 3


@lru_cache(maxsize=1)
def _encoding() -> Any | None:
    with warnings.catch_warnings():
        # bpe-openai reads its tables with a deprecated importlib.resources call.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            return None
        encoding = bpe_openai.get_encoding("o200k_base")
        encoding.encode_ordinary("warm up")  # the tables load lazily, on first use
    return encoding


# A chat counts the same earlier messages for every new one: short texts keep their count.
_MEMO_CHARS = 2000


def count_tokens(text: str) -> int:
    """Tokens of `text` in o200k_base (estimated when the tokenizer is not installed)."""
    if len(text) <= _MEMO_CHARS:
        return _memo_count(text)
    return _count(text)


@lru_cache(maxsize=8192)
def _memo_count(text: str) -> int:
    return _count(text)


def _count(text: str) -> int:
    encoding = _encoding()
    if encoding is not None:
        return len(encoding.encode_ordinary(text))
    # CJK characters are about one token each; other text about four characters per token.
    wide = sum(1 for char in text if ord(char) > 0x2E80)
    return wide + (len(text) - wide + 3) // 4


def count_chat(messages: Iterable[Mapping[str, Any]]) -> int:
    """Prompt tokens of a chat request: every message's content plus the chat framing."""
    total = _PER_REPLY
    for message in messages:
        total += _PER_MESSAGE + count_tokens(str(message.get("content") or ""))
    return total
