"""Which endpoints are up: a short memory of failures and pings, so `auto` skips a dead endpoint.

After an endpoint fails (unreachable, timing out, rejecting the key) it is treated as down for
`DOWN_FOR_S`; a successful ping is trusted for `UP_FOR_S`. Both are per process.
"""

from __future__ import annotations

import time

from datapilot.model_client.client import LLMClient

DOWN_FOR_S = 60.0
UP_FOR_S = 300.0

_down_until: dict[str, float] = {}
_up_until: dict[str, float] = {}


def mark_down(endpoint_key: str, seconds: float = DOWN_FOR_S) -> None:
    _down_until[endpoint_key] = time.monotonic() + seconds
    _up_until.pop(endpoint_key, None)


def mark_up(endpoint_key: str, seconds: float = UP_FOR_S) -> None:
    _up_until[endpoint_key] = time.monotonic() + seconds
    _down_until.pop(endpoint_key, None)


def is_down(endpoint_key: str) -> bool:
    return _down_until.get(endpoint_key, 0.0) > time.monotonic()


async def reachable(client: LLMClient, timeout_s: float = 3.0) -> bool:
    """True when the client's endpoint answered recently or answers a ping now."""
    key = client.config.endpoint_key
    if is_down(key):
        return False
    if _up_until.get(key, 0.0) > time.monotonic():
        return True
    if await client.ping(timeout_s=timeout_s):
        mark_up(key)
        return True
    mark_down(key)
    return False


def forget_health() -> None:
    """Forget every endpoint's state (tests, reconfiguration)."""
    _down_until.clear()
    _up_until.clear()
