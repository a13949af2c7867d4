"""Passage retrieval: BM25 with English stemming and Chinese word segmentation.

`Index.build(passages).search(query, k)` returns `Hit`s, best first. Knowledge libraries will add
vector search beside it; documents use it to find the passages that answer a question.
"""

from datapilot.retrieval.index import BoundingBox, Hit, Index, Passage
from datapilot.retrieval.tokens import tokenize, word_frequency

__all__ = ["BoundingBox", "Hit", "Index", "Passage", "tokenize", "word_frequency"]
