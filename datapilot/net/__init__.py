"""The SSRF-safe outbound HTTP client every feature that reaches the network uses.

`fetch` / `afetch` take http(s) URLs only, resolve the host once, refuse private, loopback,
link-local, multicast, CGNAT and cloud metadata addresses unless `DATAPILOT_OUTBOUND_ALLOW` names
the `host:port`, connect to the checked address, re-check each redirect hop, and cap size and time.

The client's names (`client`, which brings httpx) load on first use: the errors, the policy
and the rate limiter are importable without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from datapilot.net.errors import (
    OutboundError,
    OutboundHTTPError,
    OutboundRefused,
    OutboundTimeout,
    OutboundTooLarge,
    OutboundUnreachable,
)
from datapilot.net.policy import OutboundPolicy, address_problem
from datapilot.net.rate import RateLimiter

if TYPE_CHECKING:
    from datapilot.net.client import (
        OutboundLimits,
        OutboundResponse,
        Resolver,
        afetch,
        fetch,
        safe_url,
        shown_address,
        system_resolver,
    )

__all__ = [
    "OutboundError",
    "OutboundHTTPError",
    "OutboundLimits",
    "OutboundPolicy",
    "OutboundRefused",
    "OutboundResponse",
    "OutboundTimeout",
    "OutboundTooLarge",
    "OutboundUnreachable",
    "RateLimiter",
    "Resolver",
    "address_problem",
    "afetch",
    "fetch",
    "safe_url",
    "shown_address",
    "system_resolver",
]

_FROM_CLIENT = frozenset(
    {
        "OutboundLimits",
        "OutboundResponse",
        "Resolver",
        "afetch",
        "fetch",
        "safe_url",
        "shown_address",
        "system_resolver",
    }
)


def __getattr__(name: str) -> Any:
    if name in _FROM_CLIENT:
        from datapilot.net import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
