"""Documents that arrive with a question (the Workspace's PDFs and text files) kept in a
library: each stored once by content hash, so a document sent with every request is read and
indexed the first time only."""

from __future__ import annotations

import hashlib

from datapilot.knowledge.infos import DocumentInfo
from datapilot.knowledge.library import _MIMES, Libraries, read_upload
from datapilot.settings import Settings
from datapilot.store import Store


def add_once(
    store: Store,
    settings: Settings,
    owner_id: str,
    library: str,
    name: str,
    data: bytes,
    mime: str | None = None,
) -> tuple[DocumentInfo, bool]:
    """The library's document with these bytes, added when it holds none yet; True when added.
    Raises `UploadRefused` (over a limit, unreadable) or `LibraryNotFound`; nothing is half
    written."""
    digest = hashlib.sha256(data).hexdigest()
    with store.session() as session:
        found = Libraries(session, owner_id, settings).with_content(library, digest)
    if found is not None:
        return found, False
    upload = read_upload(settings, name, data, mime)  # outside the write lock: parse, embed
    with store.session(write=True) as session:
        libraries = Libraries(session, owner_id, settings)
        found = libraries.with_content(library, digest)  # a concurrent request may have won
        if found is not None:
            return found, False
        return libraries.add(library, upload), True


def mime_of(kind: str | None) -> str | None:
    """The media type of a document kind (pdf, text, markdown, html, csv); None: unknown."""
    return _MIMES.get(kind or "")
