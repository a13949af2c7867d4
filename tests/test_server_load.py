"""One heavy request never stalls the server: its work runs off the event loop, in a bounded
pool, and stops when its client goes away. Measured on a real server on loopback."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import AsyncIterator
from datetime import date

import httpx
import pytest
from live_server import LOOPBACK, live_server

from datapilot.core.answer import Answer
from datapilot.core.events import Done, Event, StatusEvent
from datapilot.server import runner
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = LOOPBACK

BUSY_S = 1.5


def _busy(seconds: float) -> int:
    """Pure-Python work that holds the interpreter, as a brain or a renderer does."""
    end, count = time.perf_counter() + seconds, 0
    while time.perf_counter() < end:
        count += sum(range(200))
    return count


async def _health_times(client: httpx.AsyncClient, until: asyncio.Task[object]) -> list[float]:
    times = []
    while not until.done():
        started = time.perf_counter()
        assert (await client.get("/health")).status_code == 200
        times.append(time.perf_counter() - started)
        await asyncio.sleep(0.05)
    return times


async def test_a_heavy_request_never_delays_health(data, monkeypatch: pytest.MonkeyPatch) -> None:
    async def heavy(question, context, settings) -> AsyncIterator[Event]:
        yield StatusEvent(message="thinking hard")
        _busy(BUSY_S)  # no await inside: on the server's loop this would freeze every route
        yield Done(answer=Answer(query=question, today=context.today, status="ok"))

    monkeypatch.setattr(runner, "pipeline_events", heavy)
    app = create_app(Settings(), warm_up=False)
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            for _ in range(3):  # warm: catalog, store, first connection
                await client.get("/health")
            body = {"question": "anything", "today": "2021-06-30"}
            started = time.perf_counter()
            ask = asyncio.create_task(client.post("/api/v1/ask", json=body))
            await asyncio.sleep(0.1)
            times = await _health_times(client, ask)
            response = await ask
            heavy_s = time.perf_counter() - started
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert heavy_s >= BUSY_S  # the heavy work really ran while /health was measured
    assert len(times) >= 5
    p95 = statistics.quantiles(times, n=20)[-1]
    # Blocked, /health would wait for the whole 1.5 s; off the loop it waits a few GIL turns.
    assert p95 < 0.4, f"/health p95 {p95:.3f} s beside a {BUSY_S} s request"


async def test_a_client_that_leaves_cancels_its_work(data, monkeypatch: pytest.MonkeyPatch) -> None:
    stopped = threading.Event()
    steps: list[int] = []

    async def endless(question, context, settings) -> AsyncIterator[Event]:
        try:
            for step in range(10_000):
                steps.append(step)
                yield StatusEvent(message=f"step {step}")
                await asyncio.sleep(0.01)
        finally:
            stopped.set()

    monkeypatch.setattr(runner, "pipeline_events", endless)
    app = create_app(Settings(), warm_up=False)
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            body = {"question": "anything", "today": "2021-06-30", "stream": True}
            async with client.stream("POST", "/api/v1/ask", json=body) as response:
                async for line in response.aiter_lines():
                    if line.startswith("data:"):
                        break  # the client goes away after the first event
            assert await asyncio.to_thread(stopped.wait, 5), "the work went on without a client"
            seen = len(steps)
            await asyncio.sleep(0.3)
            assert len(steps) == seen  # and it stays stopped


async def test_requests_beyond_the_pool_wait_and_still_answer(
    data, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = 0
    peak = 0
    lock = threading.Lock()

    async def counted(question, context, settings) -> AsyncIterator[Event]:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.2)  # blocking on purpose: each request holds its thread
        with lock:
            running -= 1
        yield Done(answer=Answer(query=question, today=date(2021, 6, 30), status="ok"))

    monkeypatch.setattr(runner, "pipeline_events", counted)
    app = create_app(Settings(worker_threads=2), warm_up=False)
    with live_server(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            body = {"question": "anything", "today": "2021-06-30"}
            responses = await asyncio.gather(
                *(client.post("/api/v1/ask", json=body) for _ in range(6))
            )
    assert [r.status_code for r in responses] == [200] * 6
    assert all(r.json()["status"] == "ok" for r in responses)
    assert peak == 2  # bounded by DATAPILOT_WORKER_THREADS
