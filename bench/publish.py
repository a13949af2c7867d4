"""The published plugin's three ways in, side by side: `POST /run…`, MCP over Streamable HTTP
at `/mcp`, and MCP over stdio (`datapilot mcp`), for a direct data call and a question.

Starts the real app with uvicorn on 127.0.0.1 (offline brain, no keys) and a `datapilot mcp`
subprocess; prints the time to the first tool list over stdio, then warm p50/p95 per face and
operation. Target: MCP adds < 20 ms p50 over `/run` for the same operation.

    python bench/publish.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters

PRICES = {"ids": ["AAPL", "MSFT"], "start": "2021-01-01", "end": "2021-12-31"}
QUESTION = {
    "query": "Compare the cumulative returns of JPMorgan and Bank of America in 2021",
    "today": "2022-12-28",
}


def _serve() -> str:
    import uvicorn

    from datapilot.server.app import create_app
    from datapilot.settings import Settings

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = create_app(Settings(brain="offline", offline=True), warm_up=True)
    config = uvicorn.Config(app, log_level="critical", lifespan="on")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


async def _timed(call: Callable[[], Awaitable[Any]], repeat: int) -> tuple[float, float, float]:
    started = time.perf_counter()
    await call()  # cold
    cold = (time.perf_counter() - started) * 1000
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return cold, statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


async def main(repeat: int) -> None:
    base = _serve()
    rows: list[tuple[str, str, tuple[float, float, float]]] = []
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:

        async def run_prices() -> None:
            (await http.post("/run/get_prices", json=PRICES)).raise_for_status()

        async def run_ask() -> None:
            (await http.post("/run", json=QUESTION)).raise_for_status()

        rows.append(("/run", "get_prices", await _timed(run_prices, repeat)))
        rows.append(("/run", "ask", await _timed(run_ask, repeat)))

    async def through(client: Client, face: str) -> None:
        for name, arguments in (("get_prices", PRICES), ("ask", QUESTION)):

            async def call(name: str = name, arguments: dict[str, Any] = arguments) -> None:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content

            rows.append((face, name, await _timed(call, repeat)))

    async with Client(f"{base}/mcp") as client:
        await through(client, "MCP /mcp")

    env = {k: v for k, v in os.environ.items() if k.startswith("DATAPILOT_")}
    command = "from datapilot.cli import app; app()"
    params = StdioServerParameters(
        command=sys.executable, args=["-c", command, "mcp", "--offline"], env=env
    )
    started = time.perf_counter()
    async with Client(params) as client:
        await client.list_tools()
        first_list = (time.perf_counter() - started) * 1000
        await through(client, "MCP stdio")

    print(f"stdio: process start to first tools/list {first_list:.0f} ms")
    print(f"{'face':<10} {'operation':<11} {'cold':>8} {'p50':>8} {'p95':>8}")
    for face, name, (cold, p50, p95) in rows:
        print(f"{face:<10} {name:<11} {cold:>6.0f}ms {p50:>6.1f}ms {p95:>6.1f}ms")
    base_p50 = {name: p50 for face, name, (_, p50, _) in rows if face == "/run"}
    for face, name, (_, p50, _) in rows:
        if face != "/run":
            extra = p50 - base_p50[name]
            verdict = "ok" if extra < 20 else "MISSED"
            print(f"{face} {name}: +{extra:.1f} ms p50 over /run (target < 20 ms) {verdict}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    asyncio.run(main(parser.parse_args().repeat))
