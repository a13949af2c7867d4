"""Blocking work of a request, run off the event loop: `off_loop(work)` on a worker thread,
`InStore`, one store transaction per call, and `OwnedCalls`, one user's repository (libraries,
tool sources) the same way.

Errors pass through as raised: the API family's exception handler answers them (`errors`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import anyio
from sqlalchemy.orm import Session

from datapilot.settings import Settings
from datapilot.store import Store

T = TypeVar("T")
R = TypeVar("R")


async def off_loop(work: Callable[[], T]) -> T:
    """Run blocking `work` in a worker thread; its result, or its error."""
    return await anyio.to_thread.run_sync(work)


class InStore:
    """One request's way into the store: `await in_store(work)` runs `work(session)` in one
    transaction on a worker thread, a write transaction unless the request is a GET."""

    def __init__(self, store: Store, *, write: bool) -> None:
        self.store = store
        self.write = write

    async def __call__(self, work: Callable[[Session], T], *, write: bool | None = None) -> T:
        """`work(session)` in one transaction; `write` overrides the request's default."""
        store = self.store
        writes = self.write if write is None else write

        def run() -> T:
            with store.session(write=writes) as session:
                return work(session)

        return await off_loop(run)


class OwnedCalls(Generic[R]):
    """One user's repository (`repo(session, owner, settings)`, e.g. `Libraries`, `Sources`),
    one store transaction per call off the event loop."""

    def __init__(
        self,
        repo: Callable[[Session, str, Settings], R],
        owner: str,
        settings: Settings,
        in_store: InStore,
    ) -> None:
        self.repo, self.owner, self.settings, self.in_store = repo, owner, settings, in_store

    async def __call__(self, act: Callable[[R], T], *, write: bool | None = None) -> T:
        """`act(repo(...))` in one transaction; `write` overrides the request's default."""
        repo, owner, settings = self.repo, self.owner, self.settings
        return await self.in_store(lambda s: act(repo(s, owner, settings)), write=write)
