"""Per-key call budgets (e.g. one imported tool's calls per minute), kept in this process."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

from datapilot.net.errors import OutboundRefused


class RateLimiter:
    """At most `per_minute` calls per key in any sliding 60 s window."""

    def __init__(self, per_minute: int, window_s: float = 60.0) -> None:
        self.per_minute = per_minute
        self.window_s = window_s
        self._calls: defaultdict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """Count one call of `key`; raise `OutboundRefused` when its budget is spent."""
        now = time.monotonic()
        with self._lock:
            calls = self._calls[key]
            while calls and now - calls[0] > self.window_s:
                calls.popleft()
            if len(calls) >= self.per_minute:
                wait = self.window_s - (now - calls[0])
                raise OutboundRefused(
                    f"{key} was called {self.per_minute} times in the last minute, its limit "
                    f"(DATAPILOT_TOOL_CALLS_PER_MINUTE); try again in {wait:.0f} s"
                )
            calls.append(now)
