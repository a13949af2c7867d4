"""The SSRF-safe outbound HTTP client every feature that reaches the network uses.

`fetch` / `afetch` take http(s) URLs only, resolve the host once, refuse private, loopback,
link-local, multicast, CGNAT and cloud metadata addresses unless `DATAPILOT_OUTBOUND_ALLOW` names
the `host:port`, connect to the checked address, re-check each redirect hop, and cap size and time.
"""

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
