"""The request worker pool: a request's CPU work runs off the server's event loop.

The brain, the pipeline and the summary of one request run as an async stream on their own
event loop in a thread of a bounded pool (`request_pool`: about one thread per core for the offline
brain, `settings.worker_threads` for requests that may wait on a model), and their events are
relayed to the server's loop. The server's loop only moves bytes, so one heavy request never
delays `/health` or another small question, and the request timeout can always fire. When the
consumer stops (timeout, client gone), the work is cancelled cooperatively: a flag checked
between events, and a cancellation of the worker's task at its next `await`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from datapilot.settings import Settings

T = TypeVar("T")

_pools: dict[tuple[str, int], ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()
_ITEM, _END = object(), object()
# Streams being produced on worker threads now, and when the last one ended (the warm-up waits
# while there are any, and for a quiet moment before its heavy stages).
_running = 0
_running_lock = threading.Lock()
_last_ended = time.monotonic()


def running_streams() -> int:
    """How many offloaded streams (requests' answers) are being produced right now."""
    return _running


def quiet_for() -> float:
    """Seconds since the last offloaded stream ended, 0 while one is being produced."""
    return 0.0 if _running else time.monotonic() - _last_ended


def worker_pool(size: int, name: str = "request") -> ThreadPoolExecutor:
    """The process's pool `name` of `size` request threads (one per name and size; requests
    beyond it queue)."""
    with _pools_lock:
        pool = _pools.get((name, size))
        if pool is None:
            pool = _pools[name, size] = ThreadPoolExecutor(
                max_workers=size, thread_name_prefix=f"datapilot-{name}"
            )
        return pool


def request_pool(settings: Settings, offline: bool) -> ThreadPoolExecutor:
    """The pool a request's work runs on. Requests the offline brain answers are CPU from start
    to end: they share `offline_threads` threads (about one per core), since more only make
    Python switch between them (under load, ~30% more CPU per request and fewer answers per
    second). Requests that may wait on a model keep `worker_threads`, so a slow model never
    holds up the others."""
    if offline:
        return worker_pool(min(settings.offline_threads, settings.worker_threads), "offline")
    return worker_pool(settings.worker_threads)


class _Job:
    """One offloaded stream: its worker loop and task, and the cancel flag."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    def drive(self, factory: Callable[[], AsyncIterator[T]], post: Callable[[T], None]) -> None:
        """Run in a pool thread: iterate the stream on a fresh loop, posting every item."""
        if self.cancelled.is_set():
            return  # the client left while the request waited for a thread

        async def main() -> None:
            with self._lock:
                self._loop = asyncio.get_running_loop()
                self._task = asyncio.current_task()
            if self.cancelled.is_set():
                return
            stream = factory()
            try:
                async for item in stream:
                    post(item)
                    if self.cancelled.is_set():  # checked between steps
                        break
            finally:
                await stream.aclose()  # type: ignore[attr-defined]

        global _running, _last_ended
        with _running_lock:
            _running += 1
        try:
            with contextlib.suppress(asyncio.CancelledError):  # cancelled: nobody waits for it
                asyncio.run(main())
        finally:
            with _running_lock:
                _running -= 1
                _last_ended = time.monotonic()

    def cancel(self) -> None:
        self.cancelled.set()
        with self._lock:
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            # A RuntimeError means the worker's loop already closed: the work is over.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)


async def offloaded(
    factory: Callable[[], AsyncIterator[T]], pool: ThreadPoolExecutor
) -> AsyncGenerator[T, None]:
    """The items of the async stream `factory()`, produced on a worker thread of `pool`.

    Exceptions of the stream are raised here. Closing this generator (or cancelling its
    consumer) cancels the worker's stream; a request still waiting for a thread never starts.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[object, Any]] = asyncio.Queue()
    job = _Job()

    def post(item: T) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, (_ITEM, item))
        except RuntimeError:
            job.cancelled.set()  # the server's loop is gone

    # The request's context variables travel with it, as they would with `asyncio.to_thread`.
    context = contextvars.copy_context()
    future = loop.run_in_executor(pool, context.run, job.drive, factory, post)
    future.add_done_callback(lambda done: queue.put_nowait((_END, done)))
    try:
        while True:
            kind, value = await queue.get()
            if kind is _END:
                value.result()
                return
            yield value
    finally:
        job.cancel()
        future.cancel()  # dequeues it if no thread has taken it yet
