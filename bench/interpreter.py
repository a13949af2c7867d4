"""The sandboxed interpreter: kernel start, a pandas groupby over 1M rows, and the round trip of
a small cell (warm), each through the same kernel class the server uses.

    python bench/interpreter.py [--starts 3] [--repeat 50]

Targets: small-cell round trip < 100 ms warm (p95).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from datapilot.interpreter.kernel import SandboxKernel
from datapilot.settings import Settings

GROUPBY = (
    "import numpy as np, pandas as pd\n"
    "rng = np.random.default_rng(0)\n"
    "frame = pd.DataFrame({'key': rng.integers(0, 1000, 1_000_000), "
    "'value': rng.random(1_000_000)})\n"
    "result = frame.groupby('key')['value'].agg(['mean', 'sum', 'count'])\n"
    "print(len(result))"
)


def timed(kernel: SandboxKernel, code: str) -> tuple[float, str]:
    started = time.perf_counter()
    chunks = list(kernel.run(code))
    elapsed = (time.perf_counter() - started) * 1000
    status = chunks[-1].content["status"]
    return elapsed, status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    settings = Settings()
    starts = []
    for _ in range(args.starts):
        started = time.perf_counter()
        kernel = SandboxKernel(settings).start()
        starts.append((time.perf_counter() - started) * 1000)
        kernel.close()
    kernel = SandboxKernel(settings).start()
    print(f"isolation: {kernel.isolation.level}, {kernel.isolation.user}")
    print(f"kernel start: p50 {statistics.median(starts):.0f} ms, max {max(starts):.0f} ms")
    first, status = timed(kernel, GROUPBY)
    again = [timed(kernel, GROUPBY)[0] for _ in range(3)]
    print(
        f"1M-row groupby (generate + group): first {first:.0f} ms ({status}), "
        f"warm p50 {statistics.median(again):.0f} ms"
    )
    timed(kernel, "x = 1")
    rounds = sorted(timed(kernel, "x = x + 1\nprint(x)")[0] for _ in range(args.repeat))
    p50 = statistics.median(rounds)
    p95 = rounds[int(0.95 * (len(rounds) - 1))]
    verdict = "met" if p95 < 100 else "MISSED"
    print(f"small cell round trip: p50 {p50:.1f} ms, p95 {p95:.1f} ms (target < 100 ms: {verdict})")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    kernel.close()


if __name__ == "__main__":
    main()
