"""The server pays its one-time costs in the background once it serves, what a first answer
needs first, and a failing step never stops start-up."""

from __future__ import annotations

import logging
import sys
import threading
import time

import pytest
from fastapi.testclient import TestClient

from datapilot.engine import pipeline
from datapilot.interfaces import prediction
from datapilot.server.app import create_app
from datapilot.settings import Settings, get_settings

# "documents" was added: the first document question paid for jieba, bm25s, pdfplumber and
# the model client's import (2.7 s) while later ones took 20-50 ms.
# What a first data answer needs comes first: the server already serves while it warms up.
STAGES = ["data", "library", "answer", "models", "documents"]


def test_warm_up_runs_every_step_without_a_warning(data, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        timings = pipeline.warm_up(get_settings())
    assert list(timings) == STAGES
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "statsmodels.tsa.arima.model" in sys.modules and "arch" in sys.modules
    assert {"jieba", "bm25s", "pdfplumber", "openai"} <= set(sys.modules)


def test_a_warm_up_question_that_fails_is_reported(
    data, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pipeline, "_WARM_UP_QUESTION", "What is the weather in Paris?")
    with caplog.at_level(logging.WARNING, logger="datapilot.engine.pipeline"):
        pipeline.warm_up(get_settings())
    assert any("answer failed" in r.getMessage() for r in caplog.records)


def test_a_failing_step_is_logged_and_the_rest_still_run(
    data, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise ImportError("no module named arch")

    monkeypatch.setattr(prediction, "preload", broken)
    with caplog.at_level(logging.WARNING, logger="datapilot.engine.pipeline"):
        timings = pipeline.warm_up(get_settings())
    assert list(timings) == STAGES
    assert any(
        "models failed" in r.getMessage() and "arch" in r.getMessage() for r in caplog.records
    )


def test_a_stopped_warm_up_ends_after_its_current_stage(data) -> None:
    stop = threading.Event()
    stop.set()
    assert pipeline.warm_up(get_settings(), stop) == {}


@pytest.mark.parametrize("warm", [True, False])
def test_the_app_serves_at_once_and_warms_up_in_the_background(
    data, monkeypatch: pytest.MonkeyPatch, warm: bool
) -> None:
    started, release = threading.Event(), threading.Event()
    stopped: list[bool] = []

    def slow_warm_up(
        settings: Settings, stop: threading.Event | None = None, pause: object = None
    ) -> dict[str, float]:
        started.set()
        release.wait(timeout=10)
        stopped.append(stop is not None and stop.is_set())
        return {"data": 0.0}

    monkeypatch.setattr(pipeline, "warm_up", slow_warm_up)
    app = create_app(Settings(brain="offline", offline=True), warm_up=warm)
    with TestClient(app) as client:
        # Answered while the warm-up is still under way: start-up did not wait for it.
        assert client.get("/health").status_code == 200
        assert started.wait(timeout=10) is warm
        assert stopped == []
        release.set()
        deadline = time.monotonic() + 10
        while warm and not stopped and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client.get("/health").status_code == 200
    assert stopped == ([False] if warm else [])


def test_the_warm_up_asks_to_pause_before_each_stage(data) -> None:
    # The server's pause waits while requests are answered; this one stops after the first stage.
    stop, pauses = threading.Event(), []

    def pause(stage: str) -> None:
        pauses.append(stage)
        if len(pauses) == 2:
            stop.set()

    assert list(pipeline.warm_up(get_settings(), stop, pause)) == ["data"]
    assert pauses == ["data", "library"]


def test_answers_being_produced_are_counted_for_the_warm_up() -> None:
    import asyncio

    from datapilot.server.workers import offloaded, quiet_for, running_streams, worker_pool

    seen: list[tuple[int, float]] = []

    async def stream():  # type: ignore[no-untyped-def]
        seen.append((running_streams(), quiet_for()))
        yield 1

    async def main() -> list[int]:
        return [item async for item in offloaded(stream, worker_pool(1, "count"))]

    assert asyncio.run(main()) == [1]
    assert seen == [(1, 0.0)] and running_streams() == 0
    assert 0 < quiet_for() < 10  # quiet since that answer ended
