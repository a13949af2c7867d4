"""BM25 scores of a question by its words, each word counted once.

The index is built with jieba's search mode, which also cuts a long Chinese word into its
pieces (第三季度 → 第三, 三季, 季度, 第三季, 三季度, 第三季度): summing every token weighed such a
word five or six times over an English word, and a glossary group's many words (in both
languages) added up in passages holding several of them, so cross-language questions ranked
passages that merely shared a long word above the answer. A question is read here as concepts:
each of its whole words, and each run of words the glossary, the dictionary or a number in words
says otherwise (`expansion.alternatives`). A concept scores a passage by the better of

- its own words: a word by itself, or, where the passage lacks it, its best piece at
  `PART_WEIGHT` (前三季度's 三季度 for 第三季度); a run of words the passage holds only in part
  at `PART_WEIGHT` ("gross" of "gross margin");
- its best other word the passage holds whole (every word of "ongoing charges"), scaled to the
  number of the question's words it stands for ("third quarter" is two words, 第三季度 one).

The sum is then weighed by the share of the question's concepts the passage holds (to the power
`COVERAGE`): a passage saying every part of the question beats one saying one part often.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from datapilot.data.text import is_chinese
from datapilot.knowledge.expansion import Alternative

PART_WEIGHT = 0.5
# Chosen among 0.5, 0.75 and 1 on the held-out bench (`bench/results.md`, 2026-12-03; 1 ranked
# the first file lower, 0.5 the third).
COVERAGE = 0.75


def whole_words(tokens: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each whole word of `tokens` → its pieces: a Chinese token inside a longer one is a
    piece of it (jieba's search mode gives both)."""
    terms = list(dict.fromkeys(tokens))
    pieces: dict[str, frozenset[str]] = {}
    for term in terms:
        if is_chinese(term) and any(term != other and term in other for other in terms):
            continue
        pieces[term] = frozenset(t for t in terms if t != term and is_chinese(t) and t in term)
    return pieces


class Scorer:
    """Per-passage BM25 scores of words and concepts, from one retriever's token scores."""

    def __init__(self, retriever: object) -> None:
        self._retriever = retriever
        self._vocabulary: dict[str, int] = retriever.vocab_dict  # type: ignore[attr-defined]
        self._size = int(retriever.scores["num_docs"])  # type: ignore[attr-defined]
        self._tokens: dict[str, np.ndarray] = {}

    def token(self, term: str) -> np.ndarray:
        found = self._tokens.get(term)
        if found is None:
            found = np.zeros(self._size)
            if term in self._vocabulary:
                scores = self._retriever.get_scores([term])  # type: ignore[attr-defined]
                found = np.asarray(scores, dtype=float)
            self._tokens[term] = found
        return found

    def word(self, word: str, pieces: frozenset[str]) -> np.ndarray:
        """The word's score, or its best piece's at `PART_WEIGHT` where the passage lacks it."""
        score = self.token(word)
        if pieces:
            best = np.max([self.token(p) for p in pieces], axis=0)
            score = np.where(score > 0, score, PART_WEIGHT * best)
        return score

    def phrase(self, tokens: Iterable[str]) -> tuple[np.ndarray, int]:
        """A phrase's score where a passage holds each of its words (0 elsewhere), and how many
        words it has."""
        words = whole_words(tokens)
        if not words:
            return np.zeros(self._size), 0
        scores = [self.token(w) for w in words]
        whole = np.all([s > 0 for s in scores], axis=0)
        return np.where(whole, np.sum(scores, axis=0), 0.0), len(words)

    def question(self, tokens: list[str], alternatives: Iterable[Alternative]) -> np.ndarray:
        """The question's score in every passage."""
        own = whole_words(tokens)
        total = np.zeros(self._size)
        held = np.zeros(self._size)
        concepts = _concepts(own, alternatives)
        grouped = set().union(*(words for words, _ in concepts))
        scores = [self.word(w, pieces) for w, pieces in own.items() if w not in grouped]
        for words, others in concepts:
            scores.append(self._concept(own, words, others))
        for score in scores:
            total += score
            held += score > 0
        if not scores:
            return total
        return total * (held / len(scores)) ** COVERAGE

    def _concept(
        self, own: dict[str, frozenset[str]], words: set[str], others: list[Alternative]
    ) -> np.ndarray:
        best = np.zeros(self._size)
        if words:
            parts = [self.word(w, own[w]) for w in words]
            whole = np.all([p > 0 for p in parts], axis=0)
            best = np.sum(parts, axis=0) * np.where(whole, 1.0, PART_WEIGHT)
        for alternative in others:
            for phrase in alternative.phrases:
                score, size = self.phrase(phrase)
                if size:
                    best = np.maximum(best, score * max(len(words), 1) / size)
        return best


def _concepts(
    own: dict[str, frozenset[str]], alternatives: Iterable[Alternative]
) -> list[tuple[set[str], list[Alternative]]]:
    """The question's runs of words said otherwise: (its whole words, their alternatives),
    alternatives sharing a word joined. An alternative for a piece (收入 of 业务收入) stands
    for the whole word."""
    concepts: list[tuple[set[str], list[Alternative]]] = []
    for alternative in alternatives:
        asked = {w for w in own if w in alternative.asked}
        asked = asked or {w for w, pieces in own.items() if pieces & alternative.asked}
        for words, grouped in concepts:
            if words & asked:
                words |= asked
                grouped.append(alternative)
                break
        else:
            concepts.append((asked, [alternative]))
    return concepts
