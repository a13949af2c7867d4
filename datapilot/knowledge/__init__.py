"""Knowledge libraries: a user's documents, cut by structure into chunks that keep their pages
and offsets (`chunking`), searched with persisted BM25, vectors when an embeddings endpoint is
set, reciprocal-rank fusion and an optional rerank (`index`, `embeddings`), stored per user
(`library`), and answers that quote and cite them (`answering`)."""

from datapilot.knowledge.library import (
    DocumentInfo,
    Found,
    KnowledgeError,
    Libraries,
    LibraryInfo,
    LibraryNotFound,
    SearchResult,
    Upload,
    UploadRefused,
    read_upload,
)

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
