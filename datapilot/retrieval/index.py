"""BM25 over passages (bm25s), shared by documents and, later, knowledge libraries."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from datapilot.core.quotes import BoundingBox
from datapilot.retrieval.tokens import tokenize


class Passage(BaseModel):
    """A retrievable piece of text and where it came from."""

    text: str
    heading: str = Field(
        default="",
        description="The heading the passage is under, shown apart from its text (the text of "
        "a PDF passage opens with it, so that search reads it too).",
    )
    source: str = Field(description="The document's name or address.")
    page: int | None = Field(default=None, description="1-based page number, for paged documents.")
    bbox: BoundingBox | None = Field(default=None, description="Where the passage is on its page.")
    lines: list[BoundingBox] = Field(
        default_factory=list, description="One box per line of the passage, for highlights."
    )
    index: int = Field(default=0, description="Position of the passage in its document.")


class Hit(BaseModel):
    passage: Passage
    score: float


class Index:
    """A BM25 index over passages; build once, search many times."""

    def __init__(self, passages: Sequence[Passage], retriever: object | None) -> None:
        self.passages = list(passages)
        self._retriever = retriever

    @classmethod
    def build(cls, passages: Sequence[Passage]) -> Index:
        import bm25s

        tokens = [tokenize(p.text) for p in passages]
        if not any(tokens):
            # No searchable word at all (empty text, only symbols): bm25s cannot index that,
            # and nothing could match anyway.
            return cls(passages, None)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        return cls(passages, retriever)

    def __len__(self) -> int:
        return len(self.passages)

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The up to `k` best passages for `query`, best first; passages sharing no term with the
        query are left out, so an unrelated question finds nothing rather than noise."""
        tokens = tokenize(query)
        if self._retriever is None or not tokens or k <= 0:
            return []
        count = min(k, len(self.passages))
        # n_threads=0 scores in this thread; 1 starts a thread pool per query (~1.6x slower).
        documents, scores = self._retriever.retrieve(  # type: ignore[attr-defined]
            [tokens], k=count, show_progress=False, n_threads=0
        )
        return [
            Hit(passage=self.passages[int(doc)], score=float(score))
            for doc, score in zip(documents[0], scores[0], strict=True)
            if score > 0
        ]
