"""Network plumbing shared by live providers: rate limit, retries, offline guard, deadlines."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import respx

from datapilot.data.providers.http import (
    HttpClient,
    OfflineError,
    ProviderError,
    RateLimiter,
    call_library,
    call_with_timeout,
)
from datapilot.data.providers.sec import SecProvider

URL = "https://example.test/data.csv"


class FakeClock:
    """A monotonic clock that only moves when the limiter sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_25_calls_at_10_per_second_over_2_seconds() -> None:
    clock = FakeClock()
    limiter = RateLimiter(10, 1.0, clock=clock, sleep=clock.sleep)
    stamps = []
    for _ in range(25):
        limiter.acquire()
        stamps.append(clock.now)
    assert clock.now >= 2.0
    # No sliding one-second window ever holds more than 10 calls.
    for i, stamp in enumerate(stamps):
        in_window = [s for s in stamps[i:] if s - stamp < 1.0]
        assert len(in_window) <= 10


def test_sec_client_rate_limit_holds_in_real_time() -> None:
    """25 SEC requests through the real client and clock take at least 2 seconds."""
    provider = SecProvider(user_agent="Test Suite test@example.com")
    calls: list[float] = []
    with respx.mock(assert_all_called=False) as mock:
        mock.get(url__regex=r"https://data\.sec\.gov/.*").mock(
            side_effect=lambda request: calls.append(time.monotonic()) or httpx.Response(200)
        )
        started = time.monotonic()
        for index in range(25):
            provider.client.get(f"https://data.sec.gov/api/xbrl/companyfacts/CIK{index:010d}.json")
        elapsed = time.monotonic() - started
        user_agents = {call.request.headers["User-Agent"] for call in mock.calls}
    assert len(calls) == 25
    assert elapsed >= 1.95
    assert user_agents == {"Test Suite test@example.com"}


def test_retries_server_errors_then_succeeds() -> None:
    client = HttpClient("t", rate=RateLimiter(100), backoff=0, attempts=3)
    with respx.mock() as mock:
        route = mock.get(URL).mock(
            side_effect=[
                httpx.Response(503),
                httpx.ConnectError("boom"),
                httpx.Response(200, text="ok"),
            ]
        )
        assert client.get_text(URL) == "ok"
    assert route.call_count == 3


def test_gives_up_after_attempts_with_a_readable_reason() -> None:
    client = HttpClient("t", rate=RateLimiter(100), backoff=0, attempts=2)
    with respx.mock() as mock:
        route = mock.get(URL).mock(return_value=httpx.Response(502))
        with pytest.raises(ProviderError, match="HTTP 502") as caught:
            client.get(URL)
    assert route.call_count == 2
    assert caught.value.status == 502


def test_client_errors_are_not_retried_and_carry_the_server_reason() -> None:
    client = HttpClient("t", rate=RateLimiter(100), backoff=0, attempts=3)
    body = {"error_code": 400, "error_message": "Bad Request. The series does not exist."}
    with respx.mock() as mock:
        route = mock.get(URL).mock(return_value=httpx.Response(400, json=body))
        with pytest.raises(ProviderError, match="series does not exist"):
            client.get(URL)
    assert route.call_count == 1


def test_timeouts_are_reported_not_hung() -> None:
    client = HttpClient("t", rate=RateLimiter(100), backoff=0, attempts=1)
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=httpx.ReadTimeout("slow"))
        with pytest.raises(ProviderError, match="timed out"):
            client.get(URL)


def test_offline_refuses_before_any_request() -> None:
    client = HttpClient("t", rate=RateLimiter(100), offline=lambda: True)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).mock(return_value=httpx.Response(200))
        with pytest.raises(OfflineError, match="offline"):
            client.get(URL)
    assert route.call_count == 0


def test_offline_setting_is_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from datapilot.settings import get_settings

    client = HttpClient("t", rate=RateLimiter(100))
    monkeypatch.setattr(get_settings(), "offline", True)
    with pytest.raises(OfflineError):
        client.get(URL)


def test_blocking_library_calls_get_a_deadline() -> None:
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(ProviderError, match="took longer than"):
        call_with_timeout("lib", "a slow call", lambda: release.wait(5), timeout=0.2)
    assert time.monotonic() - started < 2
    release.set()
    assert call_with_timeout("lib", "a quick call", lambda: 42, timeout=1) == 42


def test_library_calls_are_rate_limited_and_their_errors_name_the_call() -> None:
    clock = FakeClock()
    limiter = RateLimiter(2, 1.0, clock=clock, sleep=clock.sleep)
    results = [call_library("lib", "quote", lambda: 7, rate=limiter, timeout=1) for _ in range(3)]
    assert results == [7, 7, 7] and clock.sleeps == [1.0]  # the third call waited its turn

    def broken() -> None:
        raise KeyError("chart")

    with pytest.raises(ProviderError, match=r"^lib: AAPL news failed: 'chart'$"):
        call_library("lib", "AAPL news", broken, rate=limiter, timeout=1)

    def refused() -> None:
        raise ProviderError("lib: already explained")

    with pytest.raises(ProviderError, match=r"^lib: already explained$"):
        call_library("lib", "AAPL news", refused, rate=limiter, timeout=1)
