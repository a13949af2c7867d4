"""Helpers of the OpenAI-compatible face's tests: the `openai` SDK on the ASGI app, an offline
app with a key, and the skfolio figures the answers must carry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai

from support.live_server import live_server
from support.platform_app import app_for, key_for, platform_settings

CHART_QUESTION = "Plot Apple's closing price in 2021"


async def sdk_for(app: Any, key: str) -> AsyncIterator[openai.AsyncOpenAI]:
    """The async `openai` SDK talking to `app` in-process, with no retries."""
    transport = httpx.ASGITransport(app=app)
    http = httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120)
    client = openai.AsyncOpenAI(
        base_url="http://testserver/v1", api_key=key, http_client=http, max_retries=0
    )
    try:
        yield client
    finally:
        await client.close()


def offline_app(folder: Path, **settings: Any) -> tuple[Any, str]:
    """An app without a model on a fresh SQLite store, and a key of it."""
    base = platform_settings(f"sqlite:///{folder / 'store.sqlite3'}")
    app = app_for(base.model_copy(update=settings) if settings else base)
    return app, key_for(app.state.store, "ana")


def apple_2021_closes() -> tuple[float, float]:
    """Apple's last adjusted closes of 2020 and 2021 in skfolio's shipped prices."""
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()["AAPL"]
    return float(prices.loc["2020"].iloc[-1]), float(prices.loc["2021"].iloc[-1])


@contextmanager
def live_offline(folder: Path) -> Iterator[tuple[str, str]]:
    """The app without a model served on a loopback port; yields its URL and a key."""
    app, key = offline_app(folder)
    with live_server(app) as url:
        yield url, key
