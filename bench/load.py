"""Mixed load against a server: N clients × M requests, and `/health` beside a heavy request.

Starts the real `datapilot serve` (offline brain, no network) unless given `--url`. Each client
sends M requests drawn in turn from three kinds — OpenBB SSE (`POST /v1/query`), ask JSON
(`POST /api/v1/ask`) and ask stream (`stream: true`; with `--images` also PNG charts) — with
corpus questions. Reports failures, p50/p95/p99, requests/s and the server's peak memory (RSS of the
process tree). With `--heavy`, it then sends one very long question (60,000 characters) and
measures `/health` every 50 ms while it runs: a server that blocks its event loop shows it here.

    python bench/load.py                              # 20 clients × 5 requests, 1 worker
    python bench/load.py --clients 100 --requests 5 --workers 2
    python bench/load.py --clients 0 --heavy          # only /health beside the heavy request
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).parent))
from server import (  # the sibling bench script's helpers
    DEFAULT_CORPUS,
    free_port,
    load_corpus,
    percentile,
    start_server,
    wait_healthy,
)

KINDS = ("openbb_sse", "ask_json", "ask_stream")
IMAGES = False  # --images: the streamed asks ask for PNG charts too


@dataclass
class Result:
    kind: str
    ms: float
    error: str | None = None


async def one(client: httpx.AsyncClient, kind: str, case: dict[str, str]) -> Result:
    started = time.perf_counter()
    error: str | None = None
    try:
        if kind == "openbb_sse":
            body = {
                "messages": [{"role": "human", "content": case["query"]}],
                "today": case["today"],
            }
            error = await _stream(client, "/v1/query", body)
        elif kind == "ask_json":
            body = {"question": case["query"], "today": case["today"]}
            response = await client.post("/api/v1/ask", json=body)
            if response.status_code != 200:
                error = f"HTTP {response.status_code}"
            elif response.json().get("status") == "error":
                error = "answer status error"
        else:
            body = {"question": case["query"], "today": case["today"], "stream": True}
            if IMAGES:
                body["images"] = True
            error = await _stream(client, "/api/v1/ask", body)
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
    return Result(kind, (time.perf_counter() - started) * 1000, error)


async def _stream(client: httpx.AsyncClient, path: str, body: dict[str, object]) -> str | None:
    async with client.stream("POST", path, json=body) as response:
        if response.status_code != 200:
            await response.aread()
            return f"HTTP {response.status_code}"
        lines = 0
        async for line in response.aiter_lines():
            lines += 1 if line.startswith("data:") else 0
        return None if lines else "no event"


class MemoryPeak:
    """The peak RSS of a process and its children, sampled in a thread, and the CPU seconds
    they have used (per request, a figure the machine's other load barely moves)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> MemoryPeak:
        if self.pid is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def cpu_now(self) -> float:
        """CPU seconds (user + system) the server's processes have used so far."""
        if self.pid is None:
            return 0.0
        process = psutil.Process(self.pid)
        total = 0.0
        for member in [process, *process.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                times = member.cpu_times()
                total += times.user + times.system
        return total

    def _sample(self) -> None:
        assert self.pid is not None
        while not self._stop.wait(0.1):
            try:
                process = psutil.Process(self.pid)
                tree = [process, *process.children(recursive=True)]
                self.peak = max(self.peak, sum(p.memory_info().rss for p in tree))
            except psutil.Error:
                continue


async def load(
    client: httpx.AsyncClient, cases: list[dict[str, str]], clients: int, requests: int
) -> tuple[list[Result], float]:
    kinds = itertools.cycle(KINDS)
    plans = [
        [(next(kinds), random.Random(c * 1000 + r).choice(cases)) for r in range(requests)]
        for c in range(clients)
    ]

    async def run_client(plan: list[tuple[str, dict[str, str]]]) -> list[Result]:
        return [await one(client, kind, case) for kind, case in plan]

    started = time.perf_counter()
    results = await asyncio.gather(*(run_client(plan) for plan in plans))
    return [r for rs in results for r in rs], time.perf_counter() - started


async def health_beside_heavy(client: httpx.AsyncClient, chars: int) -> dict[str, float]:
    """/health latencies every 50 ms while one `chars`-long question is answered."""
    words = "Apple Microsoft 苹果 revenue chart compare returns 2021 "
    question = (words * (chars // len(words) + 1))[:chars]
    body = {"messages": [{"role": "human", "content": question}], "today": "2022-12-28"}
    heavy = asyncio.create_task(_timed_stream(client, body))
    latencies: list[float] = []
    while not heavy.done():
        started = time.perf_counter()
        await client.get("/health")
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)
    heavy_ms, status = await heavy
    return {
        "heavy_ms": heavy_ms,
        "heavy_status": status,
        "health_n": len(latencies),
        "health_p50_ms": percentile(latencies, 50),
        "health_p95_ms": percentile(latencies, 95),
        "health_max_ms": max(latencies, default=float("nan")),
    }


async def _timed_stream(client: httpx.AsyncClient, body: dict[str, object]) -> tuple[float, int]:
    started = time.perf_counter()
    async with client.stream("POST", "/v1/query", json=body) as response:
        async for _ in response.aiter_bytes():
            pass
    return (time.perf_counter() - started) * 1000, response.status_code


def report(
    results: list[Result], wall: float, peak: int, label: str, cpu_s: float = 0.0
) -> dict[str, object]:
    rows: dict[str, object] = {}
    print(
        f"\n{label}: {len(results)} requests in {wall:.1f} s = {len(results) / wall:.1f} req/s; "
        f"peak server memory {peak / 2**20:.0f} MB; server CPU "
        f"{cpu_s / max(len(results), 1) * 1000:.0f} ms per request"
    )
    print("| kind       |    n | errors |    p50 |    p95 |    p99 |")
    print("|------------|------|--------|--------|--------|--------|")
    for kind in (*KINDS, "all"):
        group = [r for r in results if kind in (r.kind, "all")]
        if not group:
            continue
        ms = [r.ms for r in group]
        errors = sum(1 for r in group if r.error)
        p50, p95, p99 = (percentile(ms, q) for q in (50, 95, 99))
        print(
            f"| {kind:<10} | {len(group):>4} | {errors:>6} | {p50:>6.0f} | {p95:>6.0f} | "
            f"{p99:>6.0f} |"
        )
        rows[kind] = {"n": len(group), "errors": errors, "p50": p50, "p95": p95, "p99": p99}
    for result in [r for r in results if r.error][:5]:
        print(f"error: {result.kind}: {result.error}")
    rows["requests_per_s"] = len(results) / wall
    rows["peak_mb"] = peak / 2**20
    rows["cpu_ms_per_request"] = cpu_s / max(len(results), 1) * 1000
    return rows


async def run(args: argparse.Namespace) -> None:
    cases = load_corpus(args.corpus)
    server = None
    url = args.url
    if url is None:
        port = free_port()
        server = start_server(port, args.workers)
        url = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=args.clients + 10, max_keepalive_connections=args.clients)
    summary: dict[str, object] = {
        "clients": args.clients,
        "requests": args.requests,
        "workers": args.workers,
    }
    try:
        async with httpx.AsyncClient(
            base_url=url, timeout=httpx.Timeout(args.timeout), limits=limits
        ) as client:
            await wait_healthy(client)
            await load(client, cases, 1, len(KINDS))  # warm every path once
            with MemoryPeak(server.pid if server else None) as memory:
                if args.clients:
                    cpu = memory.cpu_now()
                    results, wall = await load(client, cases, args.clients, args.requests)
                    cpu = memory.cpu_now() - cpu
                    label = f"{args.clients} clients × {args.requests} mixed requests"
                    summary["load"] = report(results, wall, memory.peak, label, cpu)
                if args.heavy:
                    heavy = await health_beside_heavy(client, args.heavy_chars)
                    print(
                        f"\n/health beside a {args.heavy_chars:,}-character question: "
                        + ", ".join(f"{k} {v:.0f}" for k, v in heavy.items())
                    )
                    summary["heavy"] = heavy
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:  # workers still finishing: leave none behind
                server.kill()
                server.wait(timeout=15)
    if args.json:
        print(json.dumps(summary, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--clients", type=int, default=20, help="Concurrent clients (0: none).")
    parser.add_argument("--requests", type=int, default=5, help="Requests per client.")
    parser.add_argument("--workers", type=int, default=1, help="Uvicorn worker processes.")
    parser.add_argument("--heavy", action="store_true", help="Measure /health beside a heavy one.")
    parser.add_argument("--heavy-chars", type=int, default=60_000)
    parser.add_argument("--timeout", type=float, default=300, help="Client timeout, seconds.")
    parser.add_argument("--url", help="Load this running server instead of starting one.")
    parser.add_argument("--json", action="store_true", help="Also print a JSON summary.")
    parser.add_argument(
        "--images", action="store_true", help="Streamed asks ask for PNG charts (images: true)."
    )
    args = parser.parse_args()
    global IMAGES
    IMAGES = args.images
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
