"""The cost of one shared rate-limit check (a guest's message), per backend: the store's
`rate_counters` table on SQLite or PostgreSQL, or Redis.

    python bench/rates.py [--checks 500] [--database-url URL] [--redis-url URL]

Without URLs it measures SQLite in a temporary folder, and Redis when `redis-server` is on the
PATH (started on a free loopback port for the run). Target: p95 < 5 ms, so that the limit adds
nothing noticeable to a guest's message.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pydantic import SecretStr

from datapilot.settings import Settings
from datapilot.store import open_store
from datapilot.store.rates import RateLimiter, RedisRates, StoreRates


def measure(limiter: RateLimiter, checks: int) -> tuple[float, float]:
    timings = []
    for number in range(checks):
        started = time.perf_counter()
        limiter.allow(f"guest:bench-{number % 50}")
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return statistics.median(timings), timings[int(len(timings) * 0.95) - 1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=500)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="datapilot-rates-"))
    url = args.database_url or f"sqlite:///{folder / 'store.sqlite3'}"
    limiters: dict[str, RateLimiter] = {
        url.split(":")[0]: StoreRates(open_store(Settings(database_url=SecretStr(url))), 10**9)
    }
    server = None
    redis_url = args.redis_url
    if redis_url is None and shutil.which("redis-server"):
        port = free_port()
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        redis_url = f"redis://127.0.0.1:{port}/0"
    if redis_url:
        limiters["redis"] = RedisRates(redis_url, 10**9)
    try:
        for name, limiter in limiters.items():
            p50, p95 = measure(limiter, args.checks)
            verdict = "ok" if p95 < 5 else "over target"
            print(f"{name:12s} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  ({verdict})")
    finally:
        if server is not None:
            server.terminate()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
