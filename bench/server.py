"""Latency of the OpenBB agent endpoint: time to first SSE event and to the last, p50/p95.

Starts the real server (`datapilot serve` on 127.0.0.1, a free port, offline brain, no
network), sends the corpus questions through `POST /v1/query` sequentially and then from
concurrent clients, and prints a table. Every request is bounded (a fixed number of rounds, a
client timeout).

    python bench/server.py                      # corpus beside the repo, 2 rounds, 20 clients
    python bench/server.py --rounds 3 --clients 20 --corpus path/to/queries.jsonl
    python bench/server.py --workers 2          # uvicorn worker processes
    python bench/server.py --url http://127.0.0.1:7777   # an already running server
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / "tests/fixtures/corpus/queries.jsonl"


@dataclass
class Sample:
    question: str
    first_ms: float
    last_ms: float
    events: int
    error: str | None = None
    forecast: bool = False


def load_corpus(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        sys.exit(f"No corpus at {path}; pass --corpus with a queries.jsonl file.")
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        {
            "query": case["query"],
            "today": case["today"],
            "forecast": "yes" if case.get("expect", {}).get("horizon") else "",
        }
        for case in cases
    ]


async def ask(client: httpx.AsyncClient, case: dict[str, str]) -> Sample:
    """One question through /v1/query, timed from sending to the first and the last event."""
    body = {"messages": [{"role": "human", "content": case["query"]}], "today": case["today"]}
    started = time.perf_counter()
    first: float | None = None
    events = 0
    error: str | None = None
    try:
        async with client.stream("POST", "/v1/query", json=body) as response:
            if response.status_code != 200:
                await response.aread()
                error = f"HTTP {response.status_code}"
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    events += 1
                    if first is None:
                        first = time.perf_counter()
                elif line.startswith("data:") and '"eventType":"ERROR"' in line:
                    error = error or "stream reported an ERROR step"
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
    ended = time.perf_counter()
    if events == 0 and error is None:
        error = "no event"
    first_ms = ((first or ended) - started) * 1000
    last_ms = (ended - started) * 1000
    return Sample(case["query"], first_ms, last_ms, events, error, bool(case["forecast"]))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


async def sequential(client: httpx.AsyncClient, cases: list[dict[str, str]], rounds: int):
    return [await ask(client, case) for _ in range(rounds) for case in cases]


async def concurrent(
    client: httpx.AsyncClient, cases: list[dict[str, str]], clients: int, rounds: int
) -> tuple[list[Sample], float]:
    async def one_client(seed: int) -> list[Sample]:
        order = cases * rounds
        random.Random(seed).shuffle(order)
        return [await ask(client, case) for case in order]

    started = time.perf_counter()
    results = await asyncio.gather(*(one_client(seed) for seed in range(clients)))
    return [sample for result in results for sample in result], time.perf_counter() - started


def row(label: str, samples: list[Sample]) -> str:
    firsts = [s.first_ms for s in samples]
    lasts = [s.last_ms for s in samples]
    errors = sum(1 for s in samples if s.error)
    return (
        f"| {label:<24} | {len(samples):>5} | {percentile(firsts, 50):>8.1f} | "
        f"{percentile(firsts, 95):>8.1f} | {percentile(lasts, 50):>8.1f} | "
        f"{percentile(lasts, 95):>8.1f} | {max(lasts):>8.1f} | {errors:>6} |"
    )


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of a process and its descendants, from /proc (Linux only)."""
    proc = Path("/proc")
    if not (proc / str(pid)).exists():
        return None
    total, pending = 0.0, [pid]
    ticks = os.sysconf("SC_CLK_TCK")
    while pending:
        current = pending.pop()
        try:
            fields = (proc / str(current) / "stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            for task in (proc / str(current) / "task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue  # a worker that just exited
    return total


def cpu_note(pid: int | None, before: float | None, wall_s: float, answers: int) -> str:
    after = cpu_seconds(pid) if pid is not None else None
    if before is None or after is None or not answers:
        return ""
    used = after - before
    return (
        f"server CPU {used:.1f} s over {wall_s:.1f} s wall = {used / wall_s:.2f} cores busy "
        f"(of {os.cpu_count()}), {used / answers * 1000:.0f} ms CPU per answer"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, workers: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DATAPILOT_BRAIN="offline", DATAPILOT_OFFLINE="true")
    command = [
        sys.executable,
        "-m",
        "datapilot.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
    ]
    return subprocess.Popen(command, env=env)


async def wait_healthy(client: httpx.AsyncClient, timeout_s: float = 60) -> None:
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        try:
            if (await client.get("/health")).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(0.2)
    sys.exit("The server did not become healthy in time.")


async def run(args: argparse.Namespace) -> None:
    cases = load_corpus(args.corpus)
    server = None
    url = args.url
    launched = time.perf_counter()
    if url is None:
        port = free_port()
        server = start_server(port, args.workers)
        url = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=args.clients + 5, max_keepalive_connections=args.clients)
    timeout = httpx.Timeout(args.timeout)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
            await wait_healthy(client)
            healthy_s = time.perf_counter() - launched
            warm = await sequential(client, cases, 1)  # imports, data loading, caches
            pid = server.pid if server is not None else None
            before, started = cpu_seconds(pid) if pid else None, time.perf_counter()
            seq = await sequential(client, cases, args.rounds)
            seq_cpu = cpu_note(pid, before, time.perf_counter() - started, len(seq))
            before = cpu_seconds(pid) if pid else None
            conc, wall = await concurrent(client, cases, args.clients, args.concurrent_rounds)
            conc_cpu = cpu_note(pid, before, wall, len(conc))
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)

    header = (
        "| run                      |     n | first50 | first95  |  last50  |  last95  |   max    "
        "| errors |"
    )
    print(f"\n{len(cases)} corpus questions via POST {url}/v1/query (offline brain); times in ms\n")
    if server is not None:
        print(f"start to healthy: {healthy_s:.1f} s (process start, imports, warm-up)")
    first = warm[0]
    print(f"first request: {first.last_ms:.0f} ms ({first.question[:50]!r})\n")
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|")
    print(row("warm-up (first pass)", warm))
    print(row(f"sequential x{args.rounds}", seq))
    # Model fitting (ARIMA/GARCH forecasts) dominates the tail; show the rest on its own too.
    print(row("  of which forecasts", [s for s in seq if s.forecast]))
    print(row("  of which the others", [s for s in seq if not s.forecast]))
    print(row(f"{args.clients} concurrent clients", conc))
    print(f"\nconcurrent throughput: {len(conc) / wall:.1f} answers/s over {wall:.1f} s")
    for label, note in (("sequential", seq_cpu), ("concurrent", conc_cpu)):
        if note:
            print(f"{label}: {note}")
    slow = sorted(seq, key=lambda s: s.last_ms, reverse=True)[:5]
    print("slowest sequential: " + "; ".join(f"{s.question[:40]!r} {s.last_ms:.0f}" for s in slow))
    failures = [s for s in [*seq, *conc] if s.error]
    for sample in failures[:10]:
        print(f"error: {sample.question!r}: {sample.error}")
    if args.json:
        summary = {
            name: {
                "n": len(samples),
                "first_p50": percentile([s.first_ms for s in samples], 50),
                "first_p95": percentile([s.first_ms for s in samples], 95),
                "last_p50": percentile([s.last_ms for s in samples], 50),
                "last_p95": percentile([s.last_ms for s in samples], 95),
                "errors": sum(1 for s in samples if s.error),
                "median_events": statistics.median(s.events for s in samples),
            }
            for name, samples in (("warm", warm), ("sequential", seq), ("concurrent", conc))
        }
        print(json.dumps(summary, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=2, help="Sequential passes over the corpus.")
    parser.add_argument("--clients", type=int, default=20, help="Concurrent clients.")
    parser.add_argument(
        "--concurrent-rounds", type=int, default=1, help="Corpus passes per concurrent client."
    )
    parser.add_argument("--timeout", type=float, default=120, help="Client timeout, seconds.")
    parser.add_argument("--workers", type=int, default=1, help="Uvicorn worker processes.")
    parser.add_argument("--url", help="Bench this running server instead of starting one.")
    parser.add_argument("--json", action="store_true", help="Also print a JSON summary.")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
