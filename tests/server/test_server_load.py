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
from support.live_server import LOOPBACK, live_server

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


@pytest.mark.perf
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
    # Blocked, /health would wait for the whole heavy request; off the loop it waits a few GIL
    # turns: a fraction of the heavy request measured in this run.
    assert p95 < heavy_s / 4, f"/health p95 {p95:.3f} s beside a {heavy_s:.2f} s request"


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


async def _peak_concurrency(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> int:
    """How many of 6 simultaneous asks ran at once on `settings`' server."""
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
    with live_server(create_app(settings, warm_up=False)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            body = {"question": "anything", "today": "2021-06-30"}
            responses = await asyncio.gather(
                *(client.post("/api/v1/ask", json=body) for _ in range(6))
            )
    assert [r.status_code for r in responses] == [200] * 6
    assert [r.json()["status"] for r in responses] == ["ok"] * 6
    return peak


async def test_requests_beyond_the_pool_wait_and_still_answer(
    data, monkeypatch: pytest.MonkeyPatch
) -> None:
    # offline_threads above worker_threads: the pool is never larger than worker_threads.
    settings = Settings(worker_threads=2, offline_threads=8)
    assert await _peak_concurrency(monkeypatch, settings) == 2  # bounded by the worker threads


async def test_offline_answers_run_about_one_per_core_and_model_answers_keep_the_pool(
    data, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offline brain's work is all CPU: it runs on DATAPILOT_OFFLINE_THREADS threads. A
    request that may wait on a model keeps DATAPILOT_WORKER_THREADS, so a slow model never holds
    up the others."""
    offline = Settings(worker_threads=4, offline_threads=1)
    assert await _peak_concurrency(monkeypatch, offline) == 1
    model = Settings(
        worker_threads=3, offline_threads=1, llm_model="m", llm_base_url="http://127.0.0.1:9"
    )
    assert await _peak_concurrency(monkeypatch, model) == 3
    assert Settings().offline_threads >= 1


@pytest.mark.parametrize(
    ("brain", "asked", "own_key", "offline_flag", "expected"),
    [
        ("auto", "auto", None, False, False),  # a model is configured: it may be used
        ("auto", "offline", None, False, True),
        ("offline", "auto", None, False, True),
        ("llm", "auto", None, False, False),
        ("auto", "auto", None, True, True),  # the request says offline
        ("auto", "auto", "own-key", False, False),  # the request brings its own model key
    ],
)
def test_which_requests_count_as_offline(
    brain: str, asked: str, own_key: str | None, offline_flag: bool, expected: bool
) -> None:
    from datapilot.brains import answers_offline
    from datapilot.core.context import QuestionContext

    settings = Settings(brain=brain, llm_model="m", llm_base_url="http://127.0.0.1:9")
    question = QuestionContext(
        today=date(2021, 6, 30), brain=asked, offline=offline_flag, llm_api_key=own_key
    )
    assert answers_offline(question, settings) is expected
    unconfigured = Settings(brain="auto", llm_model=None, llm_base_url=None, llm_api_key=None)
    assert answers_offline(QuestionContext(today=date(2021, 6, 30)), unconfigured)
    with_own_key = QuestionContext(today=date(2021, 6, 30), llm_api_key="k", llm_model="m")
    assert not answers_offline(with_own_key, unconfigured)
