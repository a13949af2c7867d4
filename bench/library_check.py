"""What each request pays to follow the design packages accepted while a server runs: the
interface library is asked for with an unchanged `<data dir>/plugins/` (a `stat` stamp compared,
the built library reused), with no plugins folder, and with N accepted packages; beside it, what
reading the accepted packages (hashing their code) and building the library cost, which only a
change pays.

    python bench/library_check.py                 # 5 packages, 20,000 calls
    python bench/library_check.py --packages 20 --calls 5000
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from datapilot.design import library
from datapilot.design.sandbox import SandboxResult
from datapilot.design.specs import InterfaceDesign
from datapilot.interfaces.library import _build, default_registry
from datapilot.plugins import accepted_packages

TARGET_US = 1000.0  # p95 per request with a handful of packages: well under a millisecond

CODE = '''
import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import interface


@interface("processing", "frame")
def {name}(ctx: InterfaceContext, factor: float = 2.0) -> pd.DataFrame:
    """A designed interface for the bench: one row scaled by `factor`."""
    return pd.DataFrame({{"value": [factor]}})
'''


def _spec(name: str) -> InterfaceDesign:
    call = {"interface": name, "args": {}, "output": "result"}
    return InterfaceDesign.model_validate(
        {
            "name": name,
            "category": "processing",
            "description": "A designed interface for the bench.",
            "inputs": {"type": "object", "properties": {"factor": {"type": "number"}}},
            "outputs": {"type": "object", "properties": {"value": {"type": "number"}}},
            "plan": {
                "tasks": [{"kind": "processing", "instruction": "Scale"}],
                "steps": [{"calls": [call]}],
            },
        }
    )


def _timed(action: Callable[[], object], calls: int) -> tuple[float, float]:
    """p50 and p95 in microseconds, over `calls` calls after one untimed call."""
    action()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1e6)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare, full = Path(tmp, "bare"), Path(tmp, "full")
        bare.mkdir()
        for number in range(args.packages):
            name = f"bench_scaled_{number}"
            code = CODE.replace("{name}", name)
            library.write_package(full, _spec(name), code, "", SandboxResult(ok=True), "bench")
        library.accept(full, [], everything=True)
        assert f"bench_scaled_{args.packages - 1}" in default_registry(full)

        rows = [
            ("no plugins folder", _timed(lambda: default_registry(bare), args.calls)),
            (
                f"{args.packages} accepted packages, unchanged",
                _timed(lambda: default_registry(full), args.calls),
            ),
            (
                f"reading the {args.packages} packages (hashing their code)",
                _timed(lambda: accepted_packages(full), max(args.calls // 20, 50)),
            ),
            (
                "building the library (after a change)",
                _timed(lambda: _build(accepted_packages(full)), max(args.calls // 100, 20)),
            ),
        ]
    for what, (p50, p95) in rows:
        print(f"{what:<48} p50 {p50:8.1f} µs   p95 {p95:8.1f} µs")
    worst = max(rows[0][1][1], rows[1][1][1])
    verdict = "met" if worst < TARGET_US else "MISSED"
    print(f"per-request check p95 {worst:.1f} µs (target < {TARGET_US:.0f} µs): {verdict}")


if __name__ == "__main__":
    main()
