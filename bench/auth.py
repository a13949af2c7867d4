"""What API keys cost a request: the same cheap route with no keys configured, with a key (a
cache hit, the usual case), and with a key looked up in the store every time (no cache).

Runs the real app in process (no network) on a throwaway SQLite store, or on PostgreSQL with
`--database-url`, and prints per-request p50/p95 for each case and the overhead over no keys.

    python bench/auth.py                  # 2,000 requests per case
    python bench/auth.py --requests 5000 --database-url postgresql://…
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from pydantic import SecretStr

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, open_store

TARGET_MS = 1.0  # p95 overhead of a cached key check per request


async def timed(settings: Settings, requests: int, key: str | None) -> list[float]:
    app = create_app(settings, warm_up=False)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = httpx.ASGITransport(app=app)
    samples: list[float] = []
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for number in range(requests + 50):
            start = time.perf_counter()
            response = await client.get("/openapi.json", headers=headers)
            elapsed = (time.perf_counter() - start) * 1000
            if response.status_code != 200:
                raise SystemExit(f"unexpected {response.status_code}: {response.text[:200]}")
            if number >= 50:  # the first requests build the schema and warm the pool
                samples.append(elapsed)
    return samples


def quantiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return statistics.median(samples), cuts[94]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        base = Settings(database_url=SecretStr(url), offline=True)
        open_store(base)
        results = {"no keys": await timed(base, args.requests, None)}
        with open_store(base).session() as session:
            key = Keys(session).create("bench", "chat").key.get_secret_value()
        results["key, cached"] = await timed(base, args.requests, key)
        uncached = base.model_copy(update={"auth_cache_s": 0.0})
        results["key, store lookup"] = await timed(uncached, args.requests, key)
        if args.database_url:
            with open_store(base).session() as session:
                Keys(session).revoke(key[:11])
    backend = url.split(":", 1)[0]
    floor_p50, floor_p95 = quantiles(results["no keys"])
    print(f"{args.requests} requests per case, GET /openapi.json, {backend} store")
    print(f"{'case':<20}{'p50 ms':>9}{'p95 ms':>9}{'overhead p50':>14}{'overhead p95':>14}")
    for name, samples in results.items():
        p50, p95 = quantiles(samples)
        print(f"{name:<20}{p50:9.3f}{p95:9.3f}{p50 - floor_p50:14.3f}{p95 - floor_p95:14.3f}")
    cached_p95 = quantiles(results["key, cached"])[1] - floor_p95
    verdict = "met" if cached_p95 < TARGET_MS else "MISSED"
    print(f"target: cached key check < {TARGET_MS} ms p95 overhead: {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
