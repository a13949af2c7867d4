"""Frames read from the warehouse, kept until the next write: popular reads cost one lookup.

Many users ask about the same tickers and windows; each answer otherwise runs the same DuckDB
query and converts its result to pandas again (under load, about a fifth of an offline answer's
CPU). The warehouse clears the cache whenever its contents may change (a write, a reseeded file),
so a cached frame is always what the query would return now.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the warehouse's file layer loads without pandas (`seeding.is_seeded`)
    import pandas as pd

DEFAULT_BUDGET_BYTES = 64 * 2**20


class FrameCache:
    """A least-recently-used map of query results, bounded by their size in bytes.

    Frames come back as shallow copies: pandas' copy-on-write keeps the cached frame intact
    whatever the caller does to its copy, at no cost until it writes.
    """

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._lock = threading.Lock()
        self._frames: OrderedDict[Hashable, tuple[pd.DataFrame, int]] = OrderedDict()
        self._bytes = 0

    def get(self, key: Hashable) -> pd.DataFrame | None:
        with self._lock:
            held = self._frames.get(key)
            if held is None:
                return None
            self._frames.move_to_end(key)
        return held[0].copy(deep=False)

    def put(self, key: Hashable, frame: pd.DataFrame) -> None:
        size = int(frame.memory_usage(index=True, deep=True).sum())
        if size > self.budget_bytes:
            return  # larger than the whole budget: it would only push out everything else
        with self._lock:
            if key in self._frames:
                self._bytes -= self._frames.pop(key)[1]
            self._frames[key] = (frame.copy(deep=False), size)
            self._bytes += size
            while self._bytes > self.budget_bytes:
                self._bytes -= self._frames.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self._lock:
            self._frames.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._frames)
