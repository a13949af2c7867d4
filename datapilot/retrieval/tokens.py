"""Tokens for retrieval: English lowercased, stopwords dropped and stemmed; Chinese cut by jieba.

One pass handles mixed text: jieba segments Chinese and leaves Latin words whole, then each token
is treated by its script. Both documents and queries go through the same function.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"\w", re.UNICODE)
_LATIN = re.compile(r"^[a-z][a-z'\-]*$")
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN_PLUS

    # The longer English list: question words (what, how, were …) carry nothing for BM25.
    return frozenset(STOPWORDS_EN_PLUS) | frozenset(STOPWORDS_CHINESE)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # it announces building its dictionary at INFO
    with _lock:
        jieba.initialize()
    return jieba


def cut(text: str) -> list[str]:
    """The words of `text` as jieba cuts them (Chinese runs split into words, nothing lowered)."""
    return list(_jieba().lcut(text))


def word_frequency(word: str) -> int:
    """How often jieba's dictionary has seen a Chinese word (0 when it does not know it): which
    of several words for the same thing is the usual one."""
    return int(_jieba().dt.FREQ.get(word, 0))


# A chat tokenizes the same history blocks and lines for every message (ranking summary lines,
# finding the blocks a question recalls), so short texts keep their tokens: ~3 ms of jieba per
# block otherwise. Long texts (document passages, indexed once) are not kept.
_MEMO_CHARS = 2000


def tokenize(text: str) -> list[str]:
    """The retrieval tokens of `text` (possibly empty)."""
    if len(text) <= _MEMO_CHARS:
        return list(_memo_tokens(text))
    return _tokens(text)


@lru_cache(maxsize=8192)
def _memo_tokens(text: str) -> tuple[str, ...]:
    return tuple(_tokens(text))


# What jieba makes of text without Han characters (its finalseg's "skip" pattern: Latin words and
# numbers, a decimal part and a percent sign kept; every other character alone): text without
# Chinese skips jieba, ~30x faster, with the same tokens.
_HAN = re.compile("[\u4e00-\u9fd5]")
_NON_HAN = re.compile(r"[a-z0-9]+(?:\.\d+)?%?|[._%+#&\-]+|\S")


def _tokens(text: str) -> list[str]:
    stopwords = _stopwords()
    stemmer = _stemmer()
    tokens: list[str] = []
    lowered = text.lower()
    pieces = (
        _jieba().lcut_for_search(lowered) if _HAN.search(lowered) else _NON_HAN.findall(lowered)
    )
    for raw in pieces:
        token = raw.strip()
        if not token or not _WORD.search(token) or token in stopwords:
            continue
        if _LATIN.match(token):
            token = stemmer.stemWord(token.strip("'-"))
        tokens.append(token)
    return tokens
