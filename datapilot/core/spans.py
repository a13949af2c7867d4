"""Disjoint spans of a text, kept sorted: the overlap check of a greedy "longest match wins"
selection is a binary search, so that reading a long question stays near-linear in its length."""

from __future__ import annotations

import bisect


class DisjointSpans:
    """Half-open spans [start, end) that never overlap one another."""

    def __init__(self, spans: list[tuple[int, int]] | None = None) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in spans or []:
            if self.free(start, end):
                self.add(start, end)

    def free(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps no span (only its two neighbours can)."""
        at = bisect.bisect_right(self._starts, start)
        if at and self._ends[at - 1] > start:
            return False
        return at == len(self._starts) or self._starts[at] >= end

    def add(self, start: int, end: int) -> None:
        """Add a span that is `free`."""
        at = bisect.bisect_right(self._starts, start)
        self._starts.insert(at, start)
        self._ends.insert(at, end)
