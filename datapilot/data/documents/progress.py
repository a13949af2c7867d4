"""Reading progress: whoever reads a long document (the terminal's progress bar, an upload
job) hears of each page read, without the readers passing a callback through every layer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

PageProgress = Callable[[int, int], None]  # (pages read, pages to read)
_LISTENER: ContextVar[PageProgress | None] = ContextVar("datapilot_page_progress", default=None)


@contextmanager
def reporting_pages(listener: PageProgress | None) -> Iterator[None]:
    """`listener` hears of every page read in this context (this thread, or a task's copy)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def page_read(done: int, total: int) -> None:
    listener = _LISTENER.get()
    if listener is not None:
        listener(done, total)
