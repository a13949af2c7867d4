"""Polite network access for live providers: offline guard, rate limit, timeouts, retries.

Every live provider goes through this module, so `settings.offline` is enforced in one place
(before any socket is opened) and every call is bounded in time.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, TypeVar

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from datapilot import __version__

T = TypeVar("T")

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class ProviderError(Exception):
    """A provider could not deliver; the message says what happened and what to do."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class OfflineError(ProviderError):
    """Network use is forbidden (`--offline` / `DATAPILOT_OFFLINE`)."""


class MissingExtraError(ProviderError):
    """An optional library a provider needs is not installed."""


def import_extra(provider: str, module: str, extra: str) -> ModuleType:
    """Import an optional library on first use; say which extra installs it when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(
            f"{provider}: {module} is not installed; run `pip install 'datapilot[{extra}]'`"
        ) from error


def is_offline() -> bool:
    """Whether the settings forbid network use right now (read at call time, not import time)."""
    from datapilot.settings import get_settings

    return get_settings().offline


def refuse_if_offline(provider: str, offline: Callable[[], bool] = is_offline) -> None:
    """Raise `OfflineError` when network use is forbidden; call before touching the network."""
    if offline():
        raise OfflineError(
            f"{provider}: network access is disabled (offline mode); "
            "unset DATAPILOT_OFFLINE or drop --offline to fetch live data"
        )


class RateLimiter:
    """At most `calls` acquisitions in any sliding window of `period` seconds (thread-safe).

    Hand-written rather than a library because the providers are synchronous (aiolimiter is
    asyncio-only) and tests need to inject a clock.
    """

    def __init__(
        self,
        calls: int,
        period: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if calls < 1 or period <= 0:
            raise ValueError("a rate limit needs calls >= 1 and period > 0")
        self.calls = calls
        self.period = period
        self._clock = clock
        self._sleep = sleep
        self._stamps: deque[float] = deque()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        """Block until one more call fits in the window, then record it."""
        with self._lock:
            while True:
                now = self._clock()
                while self._stamps and now - self._stamps[0] >= self.period:
                    self._stamps.popleft()
                if len(self._stamps) < self.calls:
                    self._stamps.append(now)
                    return
                self._sleep(self._stamps[0] + self.period - now)


def _retryable(error: BaseException) -> bool:
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code in RETRY_STATUS
    return isinstance(error, httpx.TransportError)


def _detail(response: httpx.Response) -> str:
    """A short server-side reason from a JSON error body, if there is one."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if isinstance(body, dict):
        for key in ("error_message", "message", "error"):
            if isinstance(body.get(key), str):
                return f" ({body[key][:200]})"
    return ""


class HttpClient:
    """A rate-limited, retrying, offline-aware `httpx.Client` for one provider."""

    def __init__(
        self,
        provider: str,
        *,
        rate: RateLimiter,
        timeout: float = 20.0,
        attempts: int = 3,
        backoff: float = 0.5,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        offline: Callable[[], bool] = is_offline,
    ) -> None:
        self.provider = provider
        self.rate = rate
        self.attempts = attempts
        self.backoff = backoff
        self._offline = offline
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            headers={"User-Agent": f"Datapilot/{__version__}", **(headers or {})},
            follow_redirects=True,
            transport=transport,
        )

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> httpx.Response:
        """GET with the provider's limits; raises `ProviderError` with a readable reason."""
        refuse_if_offline(self.provider, self._offline)
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(_retryable),
            reraise=True,
        )
        try:
            return retrying(self._get_once, url, params)
        except httpx.HTTPStatusError as error:
            status = error.response.status_code
            detail = _detail(error.response)
            raise ProviderError(
                f"{self.provider}: {url} answered HTTP {status}{detail}", status=status
            ) from error
        except httpx.TimeoutException as error:
            raise ProviderError(f"{self.provider}: {url} timed out; try again later") from error
        except httpx.TransportError as error:
            raise ProviderError(
                f"{self.provider}: cannot reach {httpx.URL(url).host} ({error}); "
                "check the network or use --offline"
            ) from error

    def get_json(self, url: str, params: Mapping[str, Any] | None = None) -> Any:
        response = self.get(url, params)
        try:
            return response.json()
        except ValueError as error:
            raise ProviderError(f"{self.provider}: {url} did not return JSON") from error

    def get_text(self, url: str, params: Mapping[str, Any] | None = None) -> str:
        return self.get(url, params).text

    def close(self) -> None:
        self._client.close()

    def _get_once(self, url: str, params: Mapping[str, Any] | None) -> httpx.Response:
        self.rate.acquire()
        response = self._client.get(url, params=params)
        response.raise_for_status()
        return response

    def _wait(self, state: RetryCallState) -> float:
        if self.backoff <= 0:
            return 0.0
        pause = wait_exponential(multiplier=self.backoff, max=8.0)(state)
        # A 429 with Retry-After names the pause the server wants; honour it, capped.
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, httpx.HTTPStatusError) and error.response.status_code == 429:
            retry_after = error.response.headers.get("Retry-After", "")
            if retry_after.isdigit():
                pause = max(pause, min(float(retry_after), 10.0))
        return pause


def call_with_timeout(provider: str, what: str, func: Callable[[], T], timeout: float) -> T:
    """Run a blocking library call (yfinance, akshare) with a deadline instead of hanging.

    A call past its deadline keeps running in a daemon thread (so it cannot block exit); its
    result is discarded.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(func())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name=f"{provider}-call", daemon=True).start()
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise ProviderError(
            f"{provider}: {what} took longer than {timeout:.0f}s; try again later"
        ) from None


def call_library(
    provider: str, what: str, func: Callable[[], T], *, rate: RateLimiter, timeout: float
) -> T:
    """One rate-limited call into a scraping library (yfinance, akshare) under a deadline.

    Whatever the library raises becomes a `ProviderError` naming the call, so a failure is
    reported per entity instead of escaping the provider.
    """
    rate.acquire()
    try:
        return call_with_timeout(provider, what, func, timeout)
    except ProviderError:
        raise
    except Exception as error:  # such libraries raise whatever the scraped site provokes
        raise ProviderError(f"{provider}: {what} failed: {error}") from error
