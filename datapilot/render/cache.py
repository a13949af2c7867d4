"""Rendered charts by content: the same chart spec is drawn once per process.

A PNG costs a few hundred ms of CPU and a Plotly figure tens of ms, while many requests show
the same chart (a dashboard asked again, several users asking the same thing). Entries are keyed
by a hash of the chart's JSON and the renderer's name, kept in least-recently-used order within
a byte budget; a renderer's output is a string (PNG as base64, Plotly as JSON text), so a hit
hands out a value nobody can change under another request.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from datapilot.core.outputs import ChartOutput

BUDGET_BYTES = 32 * 2**20  # a few hundred PNGs; well under a server's other memory


class RenderCache:
    """A thread-safe LRU of rendered strings within a byte budget."""

    def __init__(self, budget_bytes: int = BUDGET_BYTES) -> None:
        self.budget = budget_bytes
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: str, value: str) -> None:
        if len(value) > self.budget:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.size -= len(old)
            self._items[key] = value
            self.size += len(value)
            while self.size > self.budget:
                _, dropped = self._items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.size = self.hits = self.misses = 0


_cache = RenderCache()


def render_cache() -> RenderCache:
    """The process's cache of rendered charts."""
    return _cache


def chart_key(renderer: str, chart: ChartOutput) -> str:
    """The cache key of `chart` drawn by `renderer`: everything the drawing depends on."""
    digest = hashlib.sha256(chart.model_dump_json().encode()).hexdigest()
    return f"{renderer}:{digest}"


def cached(renderer: str, chart: ChartOutput, render: Callable[[ChartOutput], str]) -> str:
    """`render(chart)`, or the string it returned for the same chart before."""
    key = chart_key(renderer, chart)
    value = _cache.get(key)
    if value is None:
        value = render(chart)
        _cache.put(key, value)
    return value
