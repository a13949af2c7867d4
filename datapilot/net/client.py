"""The one outbound HTTP client: http(s) only, pinned to a checked address, capped in size and time.

Each request resolves its host once, checks every address against the `OutboundPolicy`, and then
connects to the resolved address itself (the URL's host is replaced by the IP; the `Host` header
and, for https, the TLS server name stay the original name), so a DNS answer cannot change
between the check and the connection. Redirects are followed here, one hop at a time, and each hop
is checked again; a hop to another origin (scheme, host or port) carries none of the caller's
credentials. Bodies are streamed and stopped at the size cap.

Nothing here logs headers, query strings or bodies: URLs may carry keys.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import re
import socket
import ssl
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field

from datapilot import __version__
from datapilot.net.errors import (
    OutboundError,
    OutboundHTTPError,
    OutboundRefused,
    OutboundTimeout,
    OutboundTooLarge,
    OutboundUnreachable,
)
from datapilot.net.policy import IPAddress, OutboundPolicy
from datapilot.settings import get_settings

log = logging.getLogger(__name__)

Resolver = Callable[[str, int], list[str]]
_SCHEMES = ("http", "https")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# The only caller headers a hop to another origin keeps: an allow list, not a deny list, since
# any other header may be a credential (an API's `X-Api-Key`, a session cookie, a signature).
_CROSS_ORIGIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "content-type", "user-agent"}
)
# Query parameter names that are credentials when the caller sends them (`?api_key=…`).
_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.I)


class OutboundLimits(BaseModel):
    """Caps of one request (redirects included)."""

    model_config = ConfigDict(frozen=True)

    max_bytes: int = Field(default=20 * 1024 * 1024, gt=0, description="Body size cap.")
    connect_s: float = Field(default=10.0, gt=0)
    read_s: float = Field(default=20.0, gt=0, description="Longest wait for the next bytes.")
    total_s: float = Field(default=60.0, gt=0, description="Whole request, redirects included.")
    max_redirects: int = Field(default=5, ge=0)
    truncate: bool = Field(
        default=False,
        description="Past max_bytes, stop reading and return what came (marked truncated) "
        "instead of failing.",
    )
    content_types: frozenset[str] | None = Field(
        default=None,
        description="Media types (or `type/*` families) a response may have; None: any.",
    )


class OutboundResponse(BaseModel):
    """A complete response: the final URL after redirects, status, headers and body."""

    url: str
    status: int
    headers: dict[str, str]
    content: bytes
    truncated: bool = Field(default=False, description="The body was cut at the size cap.")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def text(self) -> str:
        return httpx.Response(self.status, headers=self.headers, content=self.content).text

    def raise_for_status(self) -> OutboundResponse:
        """Raise `OutboundHTTPError` for a 4xx/5xx answer; return self otherwise."""
        if self.status >= 400:
            raise OutboundHTTPError(
                f"{safe_url(self.url)} answered HTTP {self.status}; check the address, "
                "or try again later if the server is busy",
                url=safe_url(self.url),
                status=self.status,
            )
        return self


def safe_url(url: str | httpx.URL) -> str:
    """The URL without query, fragment or credentials: what may be shown and logged."""
    parsed = httpx.URL(str(url))
    port = f":{parsed.port}" if parsed.port else ""
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    return f"{parsed.scheme}://{host}{port}{parsed.path}"


def shown_address(url: str) -> str:
    """A configured address as answers, prompts and status lines show it: `safe_url` (no
    user:password, query or fragment: any of them may hold a key) without a trailing slash;
    "" for no address, and a placeholder for one that does not parse."""
    if not url.strip():
        return ""
    try:
        return safe_url(url).rstrip("/")
    except httpx.InvalidURL:
        return "(an address that is not a valid URL)"


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, through the operating system's resolver."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class _Pinner:
    """Resolves and checks one request's host, then points the request at the checked address."""

    def __init__(self, policy: OutboundPolicy, resolver: Resolver) -> None:
        self.policy = policy
        self.resolver = resolver

    def addresses(self, url: Any) -> list[IPAddress]:
        host = url.host
        problem = self.policy.offline_problem(host, _port(url))
        if problem:  # offline: not even a DNS query
            raise OutboundRefused(f"Refused: {problem}.", url=safe_url(url))
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        name = host.lower().rstrip(".")
        if name == "localhost" or name.endswith(".localhost"):
            # Loopback by definition (RFC 6761), whatever a resolver would say or fail to say.
            return [ipaddress.ip_address("127.0.0.1")]
        try:
            found = self.resolver(host, _port(url))
        except (OSError, UnicodeError) as error:
            raise OutboundUnreachable(
                f"cannot resolve {host} ({error}); check the address and the network",
                url=safe_url(url),
            ) from error
        if not found:
            raise OutboundUnreachable(f"{host} has no address", url=safe_url(url))
        return [ipaddress.ip_address(a.split("%")[0]) for a in found]

    def pin(self, request: Any, addresses: list[IPAddress]) -> Any:
        """The same request addressed to the first checked address (the caller's is untouched).

        Duck-typed: an `httpx.Request`, or the same shape from an httpx fork (the MCP SDK's).
        """
        url = request.url
        problem = self.policy.problem(url.host, _port(url), addresses)
        if problem:
            raise OutboundRefused(f"Refused: {problem}.", url=safe_url(url))
        extensions = dict(request.extensions)
        if url.scheme == "https":
            # Certificates are checked against this name, not the IP connected to.
            extensions["sni_hostname"] = url.host
        return type(request)(
            request.method,
            url.copy_with(host=str(addresses[0])),
            headers=request.headers,  # keeps Host: the original name
            stream=request.stream,
            extensions=extensions,
        )


class PinnedTransport(httpx.BaseTransport):
    """A sync transport connecting only to checked, pinned addresses."""

    def __init__(self, pinner: _Pinner, inner: httpx.BaseTransport) -> None:
        self._pinner = pinner
        self._inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        pinned = self._pinner.pin(request, self._pinner.addresses(request.url))
        return self._inner.handle_request(pinned)

    def close(self) -> None:
        self._inner.close()


class AsyncPinnedTransport(httpx.AsyncBaseTransport):
    """The async twin of `PinnedTransport`; the resolver runs off the event loop."""

    def __init__(self, pinner: _Pinner, inner: httpx.AsyncBaseTransport) -> None:
        self._pinner = pinner
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        addresses = await asyncio.to_thread(self._pinner.addresses, request.url)
        pinned = self._pinner.pin(request, addresses)
        return await self._inner.handle_async_request(pinned)

    async def aclose(self) -> None:
        await self._inner.aclose()


@functools.lru_cache(maxsize=1)
def default_tls() -> ssl.SSLContext:
    """The verifying TLS context, built once: loading the CA bundle costs tens of ms (hundreds on
    a busy machine), and a context is safe to share between connections and threads."""
    return httpx.create_ssl_context()


def _tls(verify: bool | ssl.SSLContext) -> bool | ssl.SSLContext:
    return default_tls() if verify is True else verify


def _port(url: Any) -> int:
    return url.port or _DEFAULT_PORTS.get(url.scheme, 0)


def _checked_url(url: str | httpx.URL) -> httpx.URL:
    try:
        parsed = httpx.URL(str(url))
    except httpx.InvalidURL as error:
        raise OutboundRefused(f"{str(url)[:80]!r} is not a valid URL ({error}).") from error
    if parsed.scheme not in _SCHEMES:
        raise OutboundRefused(
            f"Refused: only http and https URLs may be fetched, not {parsed.scheme or 'this'}: "
            "URLs; give a web address instead",
            url=str(url)[:80],
        )
    if not parsed.host:
        raise OutboundRefused(f"{str(url)[:80]!r} has no host; give a full http(s) address.")
    return parsed


def _origin(url: httpx.URL) -> tuple[str, str, int]:
    return url.scheme, url.host.lower().rstrip("."), _port(url)


def secret_values(url: httpx.URL, secret_params: Collection[str] = ()) -> frozenset[str]:
    """The values of the query parameters of `url` that are credentials: those the caller named
    in `secret_params`, and those whose names say so (`api_key`, `access_token`, `sig`…)."""
    named = {name.lower() for name in secret_params}
    return frozenset(
        value
        for name, value in url.params.multi_items()
        if value and (name.lower() in named or _SECRET_PARAM.search(name))
    )


def _next_request(
    request: httpx.Request,
    response: httpx.Response,
    hops: int,
    limits: OutboundLimits,
    secrets: frozenset[str] = frozenset(),
) -> httpx.Request | None:
    """The request a redirect asks for (checked like the first one), or None when it is final.

    A hop to another origin keeps only harmless headers (`_CROSS_ORIGIN_HEADERS`), and drops any
    query parameter carrying one of `secrets` (a redirector may echo the caller's query)."""
    location = response.headers.get("location")
    if response.status_code not in _REDIRECTS or not location:
        return None
    if hops >= limits.max_redirects:
        raise OutboundRefused(
            f"{safe_url(request.url)} redirected more than {limits.max_redirects} times; "
            "give the final address instead",
            url=safe_url(request.url),
        )
    original = request.url
    try:
        joined = original.join(location)
    except httpx.InvalidURL:
        raise _broken_redirect(original) from None
    target = _checked_url(joined)
    method = request.method
    content: bytes | None = request.content
    if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
        method, content = "GET", None
    headers = {
        k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")
    }
    if _origin(target) != _origin(original):
        # Credentials are for the origin that was asked, never for the one redirected to.
        headers = {k: v for k, v in headers.items() if k.lower() in _CROSS_ORIGIN_HEADERS}
        kept = [(k, v) for k, v in target.params.multi_items() if v not in secrets]
        if len(kept) < len(target.params.multi_items()):
            target = target.copy_with(params=kept)
    return httpx.Request(method, target, headers=headers, content=content)


def _broken_redirect(url: httpx.URL) -> OutboundRefused:
    """A redirect whose `Location` is not a URL (e.g. `http:host/path`): the server's fault."""
    return OutboundRefused(
        f"{safe_url(url)} redirected to an address that is not a valid URL; the server "
        "answered wrongly: try again later or tell its owner",
        url=safe_url(url),
    )


def _timeouts(limits: OutboundLimits) -> httpx.Timeout:
    return httpx.Timeout(limits.read_s, connect=limits.connect_s, pool=limits.connect_s)


def _too_large(url: httpx.URL, limits: OutboundLimits) -> OutboundTooLarge:
    return OutboundTooLarge(
        f"{safe_url(url)} sent more than {limits.max_bytes:,} bytes, the size cap; "
        "use a smaller file or raise the cap",
        url=safe_url(url),
    )


def _total_timeout(url: httpx.URL, limits: OutboundLimits) -> OutboundTimeout:
    return OutboundTimeout(
        f"{safe_url(url)} took longer than {limits.total_s:g} s in all and was stopped; "
        "try again later or use a faster source",
        url=safe_url(url),
    )


def _translate(error: httpx.HTTPError, url: httpx.URL, limits: OutboundLimits) -> OutboundError:
    shown = safe_url(url)
    if isinstance(error, httpx.ConnectTimeout):
        return OutboundTimeout(
            f"connecting to {shown} took longer than {limits.connect_s:g} s; "
            "check the address or try again later",
            url=shown,
        )
    if isinstance(error, httpx.TimeoutException):
        return OutboundTimeout(
            f"{shown} sent nothing for {limits.read_s:g} s and was stopped; try again later",
            url=shown,
        )
    if "certificate" in str(error).lower() or isinstance(error.__cause__, ssl.SSLError):
        return OutboundUnreachable(
            f"the TLS certificate of {shown} could not be verified ({error}); check the address",
            url=shown,
        )
    return OutboundUnreachable(
        f"cannot reach {shown} ({type(error).__name__}); check the address and the network",
        url=shown,
    )


def _check_length(response: httpx.Response, url: httpx.URL, limits: OutboundLimits) -> None:
    if limits.content_types is not None and response.status_code < 400:
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        family = media.split("/")[0] + "/*"
        if media not in limits.content_types and family not in limits.content_types:
            raise OutboundRefused(
                f"{safe_url(url)} answered with content type {media or 'none'}, which is not "
                f"accepted here ({', '.join(sorted(limits.content_types))})",
                url=safe_url(url),
            )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limits.max_bytes and not limits.truncate:
        raise _too_large(url, limits)


def _done(
    request_url: httpx.URL, response: httpx.Response, body: bytes, truncated: bool = False
) -> OutboundResponse:
    log.debug("%s → HTTP %s, %d bytes", safe_url(request_url), response.status_code, len(body))
    # The body is decoded already; headers describing the encoded form no longer apply.
    headers = {
        k: v
        for k, v in response.headers.items()
        if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
    }
    return OutboundResponse(
        url=str(request_url),
        status=response.status_code,
        headers=headers,
        content=body,
        truncated=truncated,
    )


def _start(
    method: str,
    url: str | httpx.URL,
    headers: Mapping[str, str] | None,
    params: Mapping[str, Any] | None,
    content: bytes | None,
) -> httpx.Request:
    target = _checked_url(url)
    merged = {"User-Agent": f"Datapilot/{__version__}", **(headers or {})}
    return httpx.Request(method, target, headers=merged, params=params, content=content)


def _policy(policy: OutboundPolicy | None) -> OutboundPolicy:
    return policy if policy is not None else OutboundPolicy.from_settings(get_settings())


async def afetch(
    url: str | httpx.URL,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    content: bytes | None = None,
    policy: OutboundPolicy | None = None,
    limits: OutboundLimits | None = None,
    resolver: Resolver = system_resolver,
    verify: bool | ssl.SSLContext = True,
    secret_params: Collection[str] = (),
) -> OutboundResponse:
    """Fetch `url` under `policy` (default: the process settings) and `limits`; follow redirects.

    `secret_params` names query parameters that carry credentials, besides those whose names say
    so: like every header but the harmless ones, they never follow a redirect to another origin.
    Raises an `OutboundError` subclass; an error status is returned (see `raise_for_status`).
    """
    limits = limits or OutboundLimits()
    request = _start(method, url, headers, params, content)
    original = request.url
    secrets = secret_values(original, secret_params)
    pinner = _Pinner(_policy(policy), resolver)
    transport = AsyncPinnedTransport(pinner, httpx.AsyncHTTPTransport(verify=_tls(verify)))
    # trust_env=False: a proxy from the environment would connect in our place, unchecked.
    client = httpx.AsyncClient(transport=transport, timeout=_timeouts(limits), trust_env=False)
    async with client:
        try:
            async with asyncio.timeout(limits.total_s):
                for hops in range(limits.max_redirects + 1):
                    shown = request.url
                    try:
                        response = await client.send(request, stream=True)
                    except httpx.HTTPError as error:
                        raise _translate(error, shown, limits) from error
                    except httpx.InvalidURL:  # httpx reads a redirect's Location as it answers
                        raise _broken_redirect(shown) from None
                    try:
                        following = _next_request(request, response, hops, limits, secrets)
                        if following is not None:
                            request = following
                            continue
                        _check_length(response, shown, limits)
                        body = bytearray()
                        try:
                            async for chunk in response.aiter_bytes():
                                body.extend(chunk)
                                if len(body) > limits.max_bytes:
                                    if not limits.truncate:
                                        raise _too_large(shown, limits)
                                    cut = bytes(body[: limits.max_bytes])
                                    return _done(request.url, response, cut, truncated=True)
                        except httpx.HTTPError as error:
                            raise _translate(error, shown, limits) from error
                        return _done(request.url, response, bytes(body))
                    finally:
                        await response.aclose()
        except TimeoutError as error:
            raise _total_timeout(original, limits) from error
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def fetch(
    url: str | httpx.URL,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    content: bytes | None = None,
    policy: OutboundPolicy | None = None,
    limits: OutboundLimits | None = None,
    resolver: Resolver = system_resolver,
    verify: bool | ssl.SSLContext = True,
    secret_params: Collection[str] = (),
) -> OutboundResponse:
    """The blocking twin of `afetch`, with the same checks and caps."""
    limits = limits or OutboundLimits()
    request = _start(method, url, headers, params, content)
    original = request.url
    secrets = secret_values(original, secret_params)
    deadline = time.monotonic() + limits.total_s
    pinner = _Pinner(_policy(policy), resolver)
    transport = PinnedTransport(pinner, httpx.HTTPTransport(verify=_tls(verify)))
    with httpx.Client(transport=transport, timeout=_timeouts(limits), trust_env=False) as client:
        for hops in range(limits.max_redirects + 1):
            shown = request.url
            try:
                response = client.send(request, stream=True)
            except httpx.HTTPError as error:
                raise _translate(error, shown, limits) from error
            except httpx.InvalidURL:  # httpx reads a redirect's Location as it answers
                raise _broken_redirect(shown) from None
            try:
                following = _next_request(request, response, hops, limits, secrets)
                if following is not None:
                    request = following
                    continue
                _check_length(response, shown, limits)
                body = bytearray()
                try:
                    for chunk in response.iter_bytes():
                        body.extend(chunk)
                        if len(body) > limits.max_bytes:
                            if not limits.truncate:
                                raise _too_large(shown, limits)
                            cut = bytes(body[: limits.max_bytes])
                            return _done(request.url, response, cut, truncated=True)
                        if time.monotonic() > deadline:
                            raise _total_timeout(original, limits)
                except httpx.HTTPError as error:
                    raise _translate(error, shown, limits) from error
                return _done(request.url, response, bytes(body))
            finally:
                response.close()
            if time.monotonic() > deadline:
                raise _total_timeout(original, limits)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
