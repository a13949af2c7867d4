"""Helpers of the platform tests: an app on a given store, keys, and the skfolio figures."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from pydantic import SecretStr

from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import ScriptedEndpoint
from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, Store, Users

TODAY = "2022-12-28"
QUESTION = "How much did Apple return in 2021?"


def apple_2021_return_pct() -> float:
    """Apple's 2021 return from skfolio's shipped prices: last 2021 close over last 2020 close."""
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()["AAPL"]
    return float((prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100)


def platform_settings(store_url: str, endpoint: ScriptedEndpoint | None = None) -> Settings:
    """Offline without a model; with `endpoint`, that scripted model (and the offline brain for
    the data workflow, so plans never depend on the script)."""
    extra: dict[str, Any] = {}
    if endpoint is not None:
        forget_endpoint_modes()
        extra = {
            "llm_base_url": endpoint.base_url,
            "llm_model": "scripted",
            "llm_timeout_s": 60,  # generous: a loaded test machine is slow, not broken
            "llm_max_retries": 0,
        }
    return Settings(
        brain="offline",
        offline=endpoint is None,
        auth_cache_s=0,
        database_url=SecretStr(store_url),
        **extra,
    )


@asynccontextmanager
async def client_of(app: FastAPI, key: str | None = None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers=headers, timeout=60
    ) as client:
        yield client


def app_for(settings: Settings) -> FastAPI:
    return create_app(settings, warm_up=False)


def key_for(store: Store, user: str, scopes: str = "chat,manage") -> str:
    """A new key of `user` (created when missing)."""
    with store.session() as session:
        if Users(session).by_name(user) is None:
            Users(session).create(user)
        new = Keys(session).create(f"{user} {scopes}", scopes, user=user)
        return new.key.get_secret_value()


def lmc_events(text: str) -> list[dict[str, Any]]:
    """The JSON chunks of a server-sent event stream."""
    import json

    return [
        json.loads(line[len("data:") :].strip())
        for line in text.splitlines()
        if line.startswith("data:") and line[len("data:") :].strip() not in ("", "[DONE]")
    ]
