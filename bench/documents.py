"""The first document question of a server process against the second: start the real app
(its warm-up included), then ask about a Chinese PDF sent as base64, twice with different PDFs.

    python bench/documents.py [--rounds 3]

Each round is a fresh process, so the first question pays whatever the warm-up left to load
(jieba's dictionary, bm25s, the PDF extractor)."""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _one_process() -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests"))
    from fastapi.testclient import TestClient
    from support.pdf_maker import make_pdf

    from datapilot.server.app import create_app
    from datapilot.settings import Settings

    def body(pdf: bytes, question: str) -> dict[str, object]:
        item = {
            "content": base64.b64encode(pdf).decode(),
            "data_format": {"data_type": "pdf", "filename": "report.pdf"},
        }
        context = {
            "uuid": "6a1f0c2e-1111-4222-8333-944455556666",
            "name": "年报",
            "description": "公司年报",
            "data": {"items": [item]},
        }
        return {"messages": [{"role": "human", "content": question}], "context": [context]}

    first = make_pdf([["公司研发投入达到299亿元，占营业收入的7.8%。"]], chinese=True)
    second = make_pdf([["报告期内公司实现营业收入383亿元，同比下降2.8%。"]], chinese=True)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    app = create_app(Settings(brain="offline", offline=True))
    with TestClient(app, client=("127.0.0.1", 50000)) as client:  # a local user needs no key
        timings["start"] = (time.perf_counter() - started) * 1000
        for name, pdf, question in (
            ("first", first, "公司的研发投入是多少？"),
            ("second", second, "公司的营业收入是多少？"),
        ):
            began = time.perf_counter()
            response = client.post("/v1/query", json=body(pdf, question))
            assert response.status_code == 200 and "亿元" in response.text, response.text[:300]
            timings[name] = (time.perf_counter() - began) * 1000
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_one_process()))
        return
    runs = []
    for _ in range(args.rounds):
        out = subprocess.run(
            [sys.executable, __file__, "--child"], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    for key in ("start", "first", "second"):
        values = [run[key] for run in runs]
        print(f"{key:>7}: median {statistics.median(values):,.0f} ms  (runs {values})")


if __name__ == "__main__":
    main()
