"""What an imported tool adds around its API: reading a spec into tools, and one call's own
overhead (argument check, SSRF check and pinned connection, response framing) against a local
API that answers at once, compared with a plain httpx request to the same route.

    python bench/tools.py                # 200 calls
    python bench/tools.py --calls 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from datapilot.net import OutboundPolicy
from datapilot.settings import Settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.openapi import import_document

ROWS = [{"date": f"2022-12-{d:02d}", "close": 100.0 + d} for d in range(1, 29)]
SPEC = {
    "openapi": "3.0.1",
    "info": {"title": "Bench", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:PORT"}],
    "paths": {
        "/prices/{symbol}": {
            "get": {
                "operationId": "prices",
                "parameters": [
                    {
                        "name": "symbol",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": {"200": {"description": "rows"}},
            }
        }
    },
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps({"rows": ROWS}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


async def main(calls: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    spec = json.loads(json.dumps(SPEC).replace("PORT", str(port)))
    started = time.perf_counter()
    for _ in range(100):
        imported = import_document(spec, fallback_name="Bench")
    read_ms = (time.perf_counter() - started) * 10
    settings = Settings(outbound_allow=[f"127.0.0.1:{port}"], tool_calls_per_minute=10**6)
    tool = OpenAPITool(spec=imported.operations[0], settings=settings)
    tool.policy = OutboundPolicy.from_entries([f"127.0.0.1:{port}"])
    ours, plain = [], []
    async with httpx.AsyncClient() as client:
        for _ in range(calls):
            t = time.perf_counter()
            await tool.call({"symbol": "ACME", "limit": 5})
            ours.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            (await client.get(f"http://127.0.0.1:{port}/prices/ACME", params={"limit": 5})).json()
            plain.append((time.perf_counter() - t) * 1000)
    server.shutdown()
    print(f"import a spec (validate + flatten): {read_ms:.2f} ms")
    for name, values in (("imported tool call", ours), ("plain httpx call (pooled)", plain)):
        print(f"{name}: p50 {statistics.median(values):.2f} ms, p95 {pct(values, 0.95):.2f} ms")
    print(f"{calls} calls each")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    asyncio.run(main(parser.parse_args().calls))
