"""Seed time, warehouse size and window-query latency of the bundled warehouse.

    python bench/seed.py [--repeat 50]

Seeds a fresh warehouse in a temporary directory (your own data dir is not touched), then times
`Warehouse.prices` for one entity and for 20 entities over a one-year window, and
`Warehouse.series` for one series. Targets: seed < 20 s; one entity a few ms; 20 entities < 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from datapilot.data.seeding import seed
from datapilot.data.warehouse import Warehouse

TWENTY = [
    "AAPL", "AMD", "BAC", "BBY", "CVX", "GE", "HD", "JNJ", "JPM", "KO",
    "LLY", "MRK", "MSFT", "PEP", "PFE", "PG", "RRC", "UNH", "WMT", "XOM",
]  # fmt: skip
WINDOW = (date(2018, 1, 1), date(2018, 12, 31))


def timings_ms(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and 95th percentile of `repeat` warm calls, in milliseconds."""
    call()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="datapilot-bench-") as folder:
        path = Path(folder) / "warehouse.duckdb"
        report = seed(path, show_progress=False)
        print(
            f"seed: {report.seconds:.2f} s, {report.rows:,} rows, {report.size_bytes / 1e6:.1f} MB"
        )
        warehouse = Warehouse(path)
        cases = {
            "prices, 1 entity, 1 year": lambda: warehouse.prices(["AAPL"], *WINDOW),
            "prices, 20 entities, 1 year": lambda: warehouse.prices(TWENTY, *WINDOW),
            "prices, 20 entities, 1 year, monthly": lambda: warehouse.prices(
                TWENTY, *WINDOW, freq="monthly"
            ),
            "series, 1 series, all": lambda: warehouse.series(["UNRATE"]),
        }
        for label, call in cases.items():
            median, p95 = timings_ms(call, args.repeat)
            print(f"{label}: median {median:.1f} ms, p95 {p95:.1f} ms")
        warehouse.close()


if __name__ == "__main__":
    main()
