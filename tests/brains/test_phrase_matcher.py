"""The vocabulary matcher finds, hit for hit, what one big alternation regex of its phrases finds.

The matcher compares phrases literally (no ~1,000-phrase regex compiled at every start); the
regex it replaced — every phrase joined longest first, word boundaries on ASCII ends, spaces and
hyphens interchangeable — is rebuilt here as the reference and both run over every question of
the corpora plus hand-written edge cases.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from support import paths

from datapilot.brains.offline.phrases import (
    PhraseMatcher,
    alternation,
    lower_in_place,
    mask,
    phrase_pattern,
)
from datapilot.brains.offline.vocab import load_vocab

CORPORA = paths.CORPUS

EDGE_CASES = [
    "peak-to-trough drawdown",
    "peak  to -  trough",
    "peak - to - trough",
    "PEAK TO TROUGH and Closing-Price",
    "max drawdown vs ma",  # `ma` never inside `max`
    "moving average,moving-average;moving\taverage",
    "收盘价和成交量的走势图",
    "close\u00a0price",  # a non-breaking space is whitespace for both
    "closeprice close price- close price-- closing prices",
    "",
    "-",
    "a- b - c",
    "İstanbul closing price",  # lower-casing changes its length
]


def _reference(matcher: PhraseMatcher, text: str, blocked: list[tuple[int, int]]) -> list[tuple]:
    keys = list(matcher._labels)  # the phrases as the matcher stores them
    regex = re.compile(alternation(keys, ignorecase=False))
    searched = mask(text, blocked)
    hits = []
    for match in regex.finditer(lower_in_place(searched)):
        labels = matcher.labels_of(match.group(0))
        if labels:
            hits.append((tuple(labels), match.start(), match.end(), searched[slice(*match.span())]))
    return hits


def _found(matcher: PhraseMatcher, text: str, blocked: list[tuple[int, int]]) -> list[tuple]:
    return [(h.labels, h.start, h.end, h.text) for h in matcher.find(text, blocked)]


def _questions() -> list[str]:
    questions = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                questions.append(json.loads(line)["query"])
    return questions


@pytest.fixture(scope="module")
def matcher() -> PhraseMatcher:
    return load_vocab(None).matcher


@pytest.mark.slow
def test_corpus_questions_give_the_same_hits_as_the_alternation_regex(matcher) -> None:  # type: ignore[no-untyped-def]
    questions = _questions() + EDGE_CASES
    assert len(questions) > 600
    found_any = 0
    for question in questions:
        expected = _reference(matcher, question, [])
        assert _found(matcher, question, []) == expected, question
        found_any += bool(expected)
    assert found_any > 400  # the comparison is not between two empty lists


def test_masked_spans_and_shuffled_phrases_give_the_same_hits(matcher) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    phrases = sorted(matcher._labels)
    glue = [" ", "  ", "-", " - ", "", ",", "x", "\t", "的"]
    for _ in range(300):
        words = []
        for _ in range(rng.randint(1, 6)):
            phrase = rng.choice(phrases)
            words.append(phrase.upper() if rng.random() < 0.2 else phrase)
            words.append(rng.choice(glue))
        text = "".join(words)
        blocked = []
        if text and rng.random() < 0.5:
            start = rng.randrange(len(text))
            blocked = [(start, min(len(text), start + rng.randint(1, 8)))]
        assert _found(matcher, text, blocked) == _reference(matcher, text, blocked), text


def _alternation_per_branch(phrases, ignorecase=True):  # type: ignore[no-untyped-def]
    """The alternation as it was written before: every branch with its own word boundaries."""
    unique = sorted({p.strip() for p in phrases if p.strip()}, key=lambda p: (-len(p), p))
    if not unique:
        return r"(?!x)x"
    return "(?:" + "|".join(phrase_pattern(p, ignorecase) for p in unique) + ")"


def test_time_grammar_reads_the_same_with_shared_word_boundaries(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from datetime import date

    from datapilot.brains.offline import windows

    words = load_vocab(None).time
    shared = windows.Grammar(words)
    monkeypatch.setattr(windows, "alternation", _alternation_per_branch)
    per_branch = windows.Grammar(words)
    patterns = [rule[1].pattern for rule in shared.rules]
    assert patterns != [rule[1].pattern for rule in per_branch.rules]  # two different grammars
    today = date(2022, 6, 15)
    read = 0
    for question in _questions() + EDGE_CASES + ["past 3 months", "the last  two-weeks", "去年"]:
        expected = per_branch.read(question, today)
        assert shared.read(question, today) == expected, question
        read += bool(expected.spans)
    assert read > 300
