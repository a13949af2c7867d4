"""A watch's sentence refused, importable without the reader that refuses it (the server's
routes answer it; the reader loads with the first sentence read)."""

from __future__ import annotations


class WatchRefused(ValueError):
    """A sentence not read whole: the message names the `words` not read, or what is missing."""

    def __init__(self, message: str, words: list[str] | None = None) -> None:
        super().__init__(message)
        self.words = list(words or [])
