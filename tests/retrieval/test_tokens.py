"""Retrieval tokens: text without Chinese skips jieba but gets the tokens jieba would give."""

from __future__ import annotations

import jieba
import pytest

from datapilot.retrieval import tokenize

TEXTS = [
    "The CET1 ratio rose to 14.2% at year-end; risk-weighted assets grew (Q3 revenue $1,234.5m).",
    "Diluted EPS of 2021 was 5.61, café naïve e-mail O'Neil v1.2 12,5 100%.",
]


@pytest.mark.parametrize("text", TEXTS)
def test_english_tokens_are_those_of_jieba(text: str) -> None:
    by_jieba = tokenize("中 " + text)  # a Chinese character sends the text through jieba
    assert by_jieba[0] == "中" and tokenize(text) == by_jieba[1:]
    assert jieba.lcut_for_search("中") == ["中"]
