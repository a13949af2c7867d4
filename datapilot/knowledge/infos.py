"""What the knowledge libraries answer with: a library, a document, a search's passages. The
shapes alone, so the routes that return them need not load the libraries' readers, indexes and
embeddings client before a request uses them (`library` does the work)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.quotes import Citation


class LibraryInfo(BaseModel):
    id: str
    name: str
    description: str
    documents: int
    created_at: datetime


class DocumentInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    mime: str
    size: int
    pages: int
    chunks: int
    created_at: datetime


class Found(BaseModel):
    """A passage retrieval found: its citation, and what else it carries."""

    citation: Citation
    document_id: str
    heading: str = ""
    table: dict[str, Any] | None = None
    score: float
    bm25_rank: int | None = None
    dense_rank: int | None = None
    holds: bool = Field(
        default=False, description="The passage itself holds the query's terms and years."
    )


class SearchResult(BaseModel):
    query: str
    library: str = Field(default="", description="The library's name.")
    answered: bool = Field(description="False when nothing in the library answers the query.")
    passages: list[Found]
    retrieval: str = Field(description="bm25, or bm25+vectors (fused), +rerank when used.")
    notice: str | None = Field(
        default=None,
        description="Set when some passages could only be searched by words: their vectors "
        "came from another embeddings model (another dimension).",
    )
