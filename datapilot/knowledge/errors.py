"""The knowledge layer's errors, importable without the libraries, their readers and indexes
(the server maps them onto its API errors at start-up)."""

from __future__ import annotations


class KnowledgeError(ValueError):
    """A request on a library that cannot be done; the message says why and what to do."""


class LibraryNotFound(KnowledgeError):
    pass


class UploadRefused(KnowledgeError):
    """A document over a limit (`setting` names it), or unreadable; nothing of it was stored."""

    def __init__(self, message: str, setting: str | None = None) -> None:
        super().__init__(message)
        self.setting = setting


class EmbeddingsError(RuntimeError):
    """The embeddings or rerank endpoint failed; the message says which and why."""
