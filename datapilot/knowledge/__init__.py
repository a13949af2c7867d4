"""Knowledge libraries: a user's documents, cut by structure into chunks that keep their pages
and offsets (`chunking`), searched with persisted BM25, vectors when an embeddings endpoint is
set, reciprocal-rank fusion and an optional rerank (`index`, `embeddings`), stored per user
(`library`), and answers that quote and cite them (`answering`).

The names below load on first use: the errors (`errors`) are importable without the
libraries' readers, indexes and store models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from datapilot.knowledge.errors import KnowledgeError, LibraryNotFound, UploadRefused
from datapilot.knowledge.infos import DocumentInfo, Found, LibraryInfo, SearchResult

if TYPE_CHECKING:
    from datapilot.knowledge.library import Libraries, Upload, read_upload

__all__ = [
    "DocumentInfo",
    "Found",
    "KnowledgeError",
    "Libraries",
    "LibraryInfo",
    "LibraryNotFound",
    "SearchResult",
    "Upload",
    "UploadRefused",
    "read_upload",
]
_FROM_LIBRARY = frozenset({"Libraries", "Upload", "read_upload"})


def __getattr__(name: str) -> Any:
    if name in _FROM_LIBRARY:
        from datapilot.knowledge import library

        return getattr(library, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
