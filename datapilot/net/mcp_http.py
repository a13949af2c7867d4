"""The SSRF-safe transport for the MCP SDK's HTTP client (an httpx fork, `httpx2`).

The SDK opens its own connections; handing it a client whose transport is pinned like
`fetch`'s means an MCP server's address is checked, resolved once and connected to as checked,
and every redirect the SDK follows goes through the same check.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2

from datapilot.net.client import Resolver, _Pinner, default_tls, system_resolver
from datapilot.net.policy import OutboundPolicy


class _AsyncPinned2(httpx2.AsyncBaseTransport):
    def __init__(self, pinner: _Pinner, inner: httpx2.AsyncBaseTransport) -> None:
        self._pinner = pinner
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        addresses = await asyncio.to_thread(self._pinner.addresses, request.url)
        pinned = self._pinner.pin(request, addresses)
        return await self._inner.handle_async_request(pinned)

    async def aclose(self) -> None:
        await self._inner.aclose()


def mcp_http_client(
    policy: OutboundPolicy,
    *,
    headers: dict[str, str] | None = None,
    timeout_s: float = 30.0,
    resolver: Resolver = system_resolver,
) -> Any:
    """An `httpx2.AsyncClient` for `mcp`'s Streamable HTTP client, connecting only as checked."""
    transport = _AsyncPinned2(
        _Pinner(policy, resolver), httpx2.AsyncHTTPTransport(verify=default_tls())
    )
    return httpx2.AsyncClient(
        transport=transport,
        headers=headers or {},
        timeout=httpx2.Timeout(timeout_s, read=max(timeout_s, 60.0)),
        trust_env=False,  # a proxy from the environment would connect in our place, unchecked
    )
