"""A served app keeps what start-up built out of the collector's full passes.

Without it, a full pass under load walked every module, model and catalog entry again (~0.3 s,
every few seconds), and every request in flight waited for it.
"""

from __future__ import annotations

import asyncio
import gc
import time

import httpx
import pytest

from datapilot.server.app import create_app
from datapilot.settings import Settings


@pytest.mark.perf
async def test_start_up_objects_are_frozen_while_serving_and_released_at_shutdown(data) -> None:
    app = create_app(Settings(brain="offline", offline=True))
    async with app.router.lifespan_context(app):
        # The server warms up in the background once it serves, and freezes when it is done.
        deadline = time.monotonic() + 120
        while not gc.get_freeze_count() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        frozen = gc.get_freeze_count()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            body = {"question": "Apple's closing price in 2021", "today": "2022-12-28"}
            assert (await client.post("/api/v1/ask", json=body)).status_code == 200
        started = time.perf_counter()
        gc.collect()
        full_pass_s = time.perf_counter() - started
    # Hundreds of thousands of objects: the imports, the warehouse catalog, the vocabulary.
    assert frozen > 100_000
    assert gc.get_freeze_count() == 0  # collectable again when the server stops
    started = time.perf_counter()
    gc.collect()
    thawed_pass_s = time.perf_counter() - started
    # The same full pass over everything, frozen objects included, takes longer.
    assert full_pass_s < thawed_pass_s
