"""The warehouse's read cache stays within its byte budget, dropping the least recently used."""

from __future__ import annotations

import numpy as np
import pandas as pd

from datapilot.data.frame_cache import FrameCache


def frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"value": np.arange(rows, dtype="float64")})


def test_the_budget_holds_and_the_least_recently_used_goes_first() -> None:
    one = int(frame(1000).memory_usage(index=True, deep=True).sum())
    cache = FrameCache(budget_bytes=3 * one)
    for key in "abc":
        cache.put(key, frame(1000))
    assert cache.get("a") is not None  # "a" is now the most recently used
    cache.put("d", frame(1000))
    assert cache.get("b") is None
    assert all(cache.get(key) is not None for key in "acd")
    cache.put("huge", frame(10_000))  # beyond the whole budget: not kept, nothing evicted
    assert cache.get("huge") is None and len(cache) == 3
    cache.clear()
    assert cache.get("a") is None and len(cache) == 0
