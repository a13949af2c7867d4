"""The shipped common-word list answers as wordfreq does, and it is wordfreq's current list."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import paths
from wordfreq import get_frequency_list, zipf_frequency

from datapilot.data import common_words
from datapilot.data.common_words import FLOOR_ZIPF, zipf
from datapilot.data.text import is_common_word

CORPUS = paths.CORPUS
# The shapes the offline brain passes to `is_common_word` (matcher and entity tokens).
_TOKENS = re.compile(r"[A-Za-z][A-Za-z0-9&.\-']*")


def _corpus_words() -> list[str]:
    words: set[str] = set()
    for path in CORPUS.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                words.update(_TOKENS.findall(json.loads(line)["query"]))
    return sorted(words)


TRICKY = [
    "s&p", "S&P", "at&t", "p&g", "t-bill", "e-mail", "m&", "s&p500", "q3", "b2b", "3m", "u.s",
    "don't", "o'neil", "apple's", "naïve", "Straße", "x", "Should", "Bitcoin", "micro", "Appel",
    "jpm", "being", "so", "low", "cat", "covid-19", "a-b-c", "nasdaq100",
]  # fmt: skip


def _same_side(word: str) -> None:
    ours, theirs = zipf(word), zipf_frequency(word, "en")
    if theirs >= FLOOR_ZIPF or ours >= FLOOR_ZIPF:
        assert ours == theirs, word
    # Below the floor the exact figure does not matter: no caller's threshold is that low.


@pytest.mark.parametrize("word", TRICKY)
def test_tricky_words_match_wordfreq(word: str) -> None:
    _same_side(word)


def test_every_corpus_word_matches_wordfreq() -> None:
    words = _corpus_words()
    assert len(words) > 500  # the corpora were read
    for word in words:
        _same_side(word)
        _same_side(word.lower())


def test_a_sample_of_wordfreq_list_matches() -> None:
    # Every 7th word of the list's top buckets (the common ones) and some just below the floor.
    words = [w for bucket in get_frequency_list("en", "best")[:560] for w in bucket][::7]
    assert len(words) > 1000
    for word in words:
        _same_side(word)


def test_shipped_list_is_wordfreqs_current_list() -> None:
    shipped = json.loads(
        (Path(common_words.__file__).with_name("common_words.json")).read_text(encoding="utf-8")
    )
    assert shipped["buckets"] == common_words.build()["buckets"], (
        "regenerate with: python -m datapilot.data.common_words"
    )


def test_everyday_words_are_no_names() -> None:
    assert is_common_word("should") and is_common_word("Should")
    assert is_common_word("micro") and not is_common_word("Micro")  # 4.08: a name when capital
    assert not is_common_word("Appel") and not is_common_word("rivian")
