"""A user's knowledge libraries as MCP resources: each document at
`datapilot://libraries/LIBRARY_ID/documents/DOCUMENT_ID`, its text the document's chunks in
order. Only the caller's own libraries are listed or read (another user's answer as absent)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from sqlalchemy import select

from datapilot.data.display import counted
from datapilot.knowledge.library import Libraries, LibraryNotFound
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.models import LibraryChunk
from datapilot.tools.published.resources import ShelfItem

PREFIX = "datapilot://libraries/"
_URI = re.compile(r"^datapilot://libraries/([^/]+)/documents/([^/]+)$")


class LibraryShelf:
    """The documents of the user `user_of(caller)` names (the key's owner, or the local user)."""

    def __init__(
        self, store: Store, settings: Settings, user_of: Callable[[Any], Awaitable[str]]
    ) -> None:
        self.store = store
        self.settings = settings
        self.user_of = user_of

    async def items(self, caller: Any) -> list[ShelfItem]:
        user = await self.user_of(caller)
        return await anyio.to_thread.run_sync(self._items, user)

    async def read(self, caller: Any, uri: str) -> str | None:
        found = _URI.match(uri)
        if found is None:
            return None
        user = await self.user_of(caller)
        return await anyio.to_thread.run_sync(self._read, user, found[1], found[2])

    def _items(self, user: str) -> list[ShelfItem]:
        with self.store.session() as session:
            libraries = Libraries(session, user, self.settings)
            return [
                ShelfItem(
                    uri=f"{PREFIX}{library.id}/documents/{document.id}",
                    name=document.name,
                    description=f"{document.name}, in the knowledge library {library.name!r} "
                    f"({counted(document.pages, 'page')}); its text as extracted.",
                )
                for library in libraries.all()
                for document in libraries.documents(library.id)
            ]

    def _read(self, user: str, library_id: str, document_id: str) -> str | None:
        with self.store.session() as session:
            try:
                documents = Libraries(session, user, self.settings).documents(library_id)
            except LibraryNotFound:
                return None
            if document_id not in {document.id for document in documents}:
                return None
            chunks = session.scalars(
                select(LibraryChunk)
                .where(LibraryChunk.document_id == document_id)
                .order_by(LibraryChunk.position)
            )
            return "\n\n".join(chunk.text for chunk in chunks)
