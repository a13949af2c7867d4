"""Offline brain latency: intent + plan per question (no data is read, nothing is run).

    python bench/brain.py [CORPUS.jsonl ...] [--repeat 20]

Defaults to the acceptance corpus (tests/fixtures/corpus) and tests/corpus/offline.jsonl.
The catalog and vocabulary are loaded once before timing (a process does that once). Reports
p50/p95/max over every (question, repeat). Target: p95 < 20 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from datapilot.brains.offline import OfflineBrain
from datapilot.core.context import QuestionContext
from datapilot.evaluation import Case, load_corpus

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [
    ROOT / "tests" / "fixtures" / "corpus" / "queries.jsonl",
    ROOT / "tests" / "fixtures" / "corpus" / "windows.jsonl",
    ROOT / "tests" / "corpus" / "offline.jsonl",
]
TARGET_P95_MS = 20.0


def measure(brain: OfflineBrain, cases: list[Case], repeat: int) -> list[tuple[float, Case]]:
    timings = []
    for case in cases:
        context = QuestionContext(today=case.today, history=case.history)
        for _ in range(repeat):
            started = time.perf_counter()
            brain.understand_sync(case.query, context)
            timings.append(((time.perf_counter() - started) * 1000, case))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    paths = args.corpus or [p for p in DEFAULTS if p.exists()]
    cases = [case for path in paths for case in load_corpus(path)]

    started = time.perf_counter()
    brain = OfflineBrain()
    brain.understand_sync("warm up: Apple in 2020", QuestionContext(today=cases[0].today))
    loaded = (time.perf_counter() - started) * 1000
    print(f"first question (catalog + vocabulary load): {loaded:.0f} ms")

    timings = measure(brain, cases, args.repeat)
    values = sorted(t for t, _ in timings)
    p50 = statistics.median(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    print(
        f"{len(cases)} questions x {args.repeat}: "
        f"p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {values[-1]:.2f} ms"
    )
    slowest = sorted(timings, key=lambda item: -item[0])[:3]
    for elapsed, case in slowest:
        print(f"  slowest: {elapsed:.2f} ms  {case.id}  {case.query}")
    verdict = "meets" if p95 < TARGET_P95_MS else "MISSES"
    print(f"{verdict} the target p95 < {TARGET_P95_MS:.0f} ms")


if __name__ == "__main__":
    main()
