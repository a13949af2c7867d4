"""Kernels by session: one per (owner, session), started on first use, stopped when idle.

A process has one pool per kernel configuration (`pool_for`): every front end and every tenant
draws on it, so `DATAPILOT_INTERPRETER_MAX_SESSIONS` and idle reaping hold across them all, and
a request that only brought its own model key (a settings copy) adds no pool. At most that many
kernels live at once; a new one first stops the longest-idle kernel that is not running. Each
kernel's data channel is the one its caller passes: the channel reads *that* request's data and
interfaces, so one tenant's kernel never answers through another's. `arun` drives a kernel's
blocking run from async code in a worker thread; closing its iterator (a client that went away)
interrupts the run.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from datapilot.core.messages import LmcChunk
from datapilot.interpreter.kernel import DataChannel, KernelError, SandboxKernel
from datapilot.settings import Settings

_END = object()
ChannelFactory = Callable[[], DataChannel | None]
# The settings a kernel is made from: requests whose settings differ only elsewhere (a model,
# a key) share one pool.
_KERNEL_FIELDS = frozenset(
    {"data_dir", *(name for name in Settings.model_fields if name.startswith("interpreter_"))}
)
_pools: dict[str, Sessions] = {}
_pools_lock = threading.Lock()


def pool_for(settings: Settings) -> Sessions:
    """The process's kernel pool for these kernel settings, made on first use and closed when
    the process exits."""
    key = settings.model_dump_json(include=set(_KERNEL_FIELDS))
    with _pools_lock:
        found = _pools.get(key)
        if found is None:
            found = _pools[key] = Sessions(settings)
        return found


@atexit.register
def close_pools() -> None:
    """Stop every kernel of every pool (a server's shutdown, and the process's exit)."""
    with _pools_lock:
        pools = list(_pools.values())
    for pool in pools:
        pool.close()


class Sessions:
    """The kernels of one server (or one terminal)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._kernels: dict[tuple[str, str], SandboxKernel] = {}
        self._starting: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None

    def kernel(
        self, owner: str, session: str, channel: ChannelFactory | None = None
    ) -> SandboxKernel:
        """The session's kernel, started if it has none (or lost it), answering `dp` through
        `channel` (the caller's request; a kept kernel is given the newer caller's). Requests of
        one session wait for each other's start instead of starting two."""
        self.reap()
        make_channel: ChannelFactory = channel or (lambda: None)
        key = (owner, session)
        with self._lock:
            starting = self._starting.setdefault(key, threading.Lock())
        with starting:
            with self._lock:
                found = self._kernels.get(key)
                if found is not None and found.alive:
                    found.last_used = time.monotonic()
                    found.channel = make_channel()
                    return found
                if found is not None:
                    found.close()
                    del self._kernels[key]
                if len(self._kernels) >= self.settings.interpreter_max_sessions:
                    self._evict()
            kernel = SandboxKernel(self.settings, make_channel()).start()
            with self._lock:
                self._kernels[key] = kernel
                if self._reaper is None:
                    self._reaper = threading.Thread(
                        target=self._reap_while_any, name="kernel-reaper", daemon=True
                    )
                    self._reaper.start()
            return kernel

    def _reap_while_any(self) -> None:
        """Stop idle kernels in the background while any live: a server that goes quiet
        stops them too, not only when the next kernel is asked for."""
        interval = max(0.5, min(30.0, self.settings.interpreter_idle_s / 2))
        while True:
            time.sleep(interval)
            self.reap()
            with self._lock:
                if not self._kernels:
                    self._reaper = None
                    return

    def _evict(self) -> None:
        idle = [(k.last_used, key) for key, k in self._kernels.items() if not k._lock.locked()]
        if not idle:
            raise KernelError(
                "Every interpreter session is busy; try again shortly, or raise "
                "DATAPILOT_INTERPRETER_MAX_SESSIONS."
            )
        _, key = min(idle)
        self._kernels.pop(key).close()

    def reap(self) -> int:
        """Stop kernels idle longer than the setting; how many were stopped."""
        limit = time.monotonic() - self.settings.interpreter_idle_s
        with self._lock:
            stale = [
                key
                for key, k in self._kernels.items()
                if k.last_used < limit and not k._lock.locked()
            ]
            for key in stale:
                self._kernels.pop(key).close()
        return len(stale)

    def close(self) -> None:
        with self._lock:
            kernels, self._kernels = list(self._kernels.values()), {}
        for kernel in kernels:
            kernel.close()

    def __len__(self) -> int:
        return len(self._kernels)


async def arun(kernel: SandboxKernel, code: str) -> AsyncIterator[LmcChunk]:
    """`kernel.run(code)` from async code: the kernel is driven in a worker thread."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    stop = threading.Event()

    def produce() -> None:
        try:
            for chunk in kernel.run(code):
                loop.call_soon_threadsafe(queue.put_nowait, chunk)
                if stop.is_set():
                    kernel._interrupt()
        except Exception as error:  # reported in the stream, never lost
            loop.call_soon_threadsafe(queue.put_nowait, error)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, _END)

    worker = loop.run_in_executor(None, produce)
    finished = False
    try:
        while (item := await queue.get()) is not _END:
            if isinstance(item, Exception):
                text = f"{type(item).__name__}: {item}"
                yield LmcChunk(role="server", type="error", content=text)
                continue
            yield item
        finished = True
    finally:
        stop.set()
        if not finished:
            kernel._interrupt()  # the client went away mid-run: stop the code too
        with contextlib.suppress(Exception):
            await asyncio.shield(worker)
