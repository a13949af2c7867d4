"""Engine latency per stage for typical plans, on the real library and the local warehouse.

    python bench/engine.py [--repeat 20] [--png] [--only NAME]

Stages: plan validation, data fetch (acquisition calls), compute (processing, prediction and
frame calls), chart/table specs (visualization calls), the whole execution (wall clock), and
optionally PNG rendering. The first run of each plan is reported separately as cold; p50/p95
are over the warm runs. Targets: a single-chart plan executes in < 150 ms warm (PNG excluded);
a 20-entity cross-section rank in < 100 ms; a daily forecast (5 days of the Nasdaq) in < 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import ChartOutput
from datapilot.core.plan import Call, Plan, Step, ref
from datapilot.engine.check import check_plan
from datapilot.engine.context import RequestContext
from datapilot.engine.executor import default_registry, execute
from datapilot.interfaces.registry import Registry
from datapilot.settings import get_settings

TWENTY = [
    "AAPL",
    "AMD",
    "BAC",
    "BBY",
    "CVX",
    "GE",
    "HD",
    "JNJ",
    "JPM",
    "KO",
    "LLY",
    "MRK",
    "MSFT",
    "PEP",
    "PFE",
    "PG",
    "RRC",
    "UNH",
    "WMT",
    "XOM",
]
TARGETS_MS = {"single_chart": 150.0, "rank_20": 100.0, "forecast_daily": 150.0}


def _plan(*steps: list[Call]) -> Plan:
    return Plan(steps=[Step(calls=list(calls)) for calls in steps])


def plans() -> dict[str, Plan]:
    """Plans of the kinds the planners produce most often."""
    return {
        "single_chart": _plan(
            [
                Call(
                    interface="get_prices",
                    args={"ids": ["AAPL"], "start": "2018-01-23", "end": "2019-03-13"},
                    output="prices",
                )
            ],
            [
                Call(
                    interface="plot_line",
                    args={"frame": ref("prices"), "title": "Apple close"},
                    output="chart",
                )
            ],
        ),
        "cumulative_2": _plan(
            [
                Call(
                    interface="get_prices",
                    args={"ids": ["JPM", "BAC"], "start": "2020-01-01", "end": "2021-06-30"},
                    output="prices",
                )
            ],
            [Call(interface="cumulative_returns", args={"frame": ref("prices")}, output="cum")],
            [
                Call(
                    interface="plot_line",
                    args={"frame": ref("cum"), "title": "Cumulative return"},
                    output="chart",
                )
            ],
        ),
        "rank_20": _plan(
            [
                Call(
                    interface="cross_section_returns",
                    args={"ids": TWENTY, "start": "2021-01-01", "end": "2021-12-31"},
                    output="returns",
                )
            ],
            [Call(interface="rank", args={"frame": ref("returns")}, output="ranked")],
            [
                Call(
                    interface="plot_bar",
                    args={
                        "frame": ref("ranked"),
                        "title": "Return in 2021",
                        "column": "return_pct",
                    },
                    output="bars",
                ),
                Call(
                    interface="show_table",
                    args={"frame": ref("ranked"), "title": "Return in 2021"},
                    output="table",
                ),
            ],
        ),
        "candlestick_macd": _plan(
            [
                Call(
                    interface="get_ohlcv",
                    args={"entity": "IBM", "start": "2011-12-30", "end": "2012-06-30"},
                    output="ohlcv",
                ),
                Call(
                    interface="get_macd",
                    args={"entity": "IBM", "start": "2011-12-30", "end": "2012-06-30"},
                    output="macd",
                ),
            ],
            [
                Call(
                    interface="plot_candlestick",
                    args={"ohlcv": ref("ohlcv"), "indicators": [ref("macd")], "title": "IBM"},
                    output="chart",
                )
            ],
        ),
        "correlation": _plan(
            [
                Call(
                    interface="get_prices",
                    args={"ids": ["XOM", "CVX"], "start": "2020-01-01", "end": "2020-12-31"},
                    output="prices",
                )
            ],
            [Call(interface="compute_returns", args={"frame": ref("prices")}, output="returns")],
            [Call(interface="correlation", args={"frame": ref("returns")}, output="corr")],
            [
                Call(
                    interface="show_table",
                    args={"frame": ref("corr"), "title": "Correlation"},
                    output="table",
                )
            ],
        ),
        "forecast_daily": _plan(
            [
                Call(
                    interface="get_index_levels",
                    args={"ids": ["^IXIC"], "start": "2016-12-31", "end": "2018-12-31"},
                    output="levels",
                )
            ],
            [
                Call(
                    interface="forecast_arima",
                    args={"frame": ref("levels"), "horizon": 5},
                    output="forecast",
                )
            ],
            [
                Call(
                    interface="plot_forecast",
                    args={
                        "history": ref("levels"),
                        "forecast": ref("forecast"),
                        "title": "Nasdaq Composite forecast",
                    },
                    output="chart",
                ),
                Call(
                    interface="show_table",
                    args={"frame": ref("forecast"), "title": "Forecast"},
                    output="table",
                ),
            ],
        ),
        "forecast_gdp": _plan(
            [Call(interface="get_series", args={"ids": ["GDPC1"]}, output="gdp")],
            [
                Call(
                    interface="forecast_arima",
                    args={"frame": ref("gdp"), "horizon": 8},
                    output="forecast",
                )
            ],
            [
                Call(
                    interface="plot_forecast",
                    args={
                        "history": ref("gdp"),
                        "forecast": ref("forecast"),
                        "title": "US real GDP forecast",
                    },
                    output="chart",
                ),
                Call(
                    interface="show_table",
                    args={"frame": ref("forecast"), "title": "Forecast"},
                    output="table",
                ),
            ],
        ),
    }


STAGES = ("validate", "fetch", "compute", "specs", "execute", "png")
_STAGE_OF = {
    "acquisition": "fetch",
    "processing": "compute",
    "prediction": "compute",
    "frame": "compute",
    "visualization": "specs",
}


@dataclass
class Timings:
    cold: dict[str, float] = field(default_factory=dict)
    warm: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    failures: list[str] = field(default_factory=list)


async def measure(plan: Plan, registry: Registry, today: date, png_dir: Path | None) -> dict:
    """One run of `plan`: milliseconds per stage."""
    stages = dict.fromkeys(STAGES, 0.0)
    started = time.perf_counter()
    check_plan(plan, registry).raise_for_problems()
    stages["validate"] = (time.perf_counter() - started) * 1000
    ctx = RequestContext.for_request(
        QuestionContext(today=today), get_settings()
    ).interface_context()
    started = time.perf_counter()
    run = await execute(plan, ctx, registry=registry, call_timeout_s=60)
    stages["execute"] = (time.perf_counter() - started) * 1000
    for record in run.calls:
        stages[_STAGE_OF[registry.get(record.interface).category]] += record.elapsed_ms
    if png_dir is not None:
        from datapilot.render.charts import to_png

        started = time.perf_counter()
        for number, output in enumerate(run.outputs):
            if isinstance(output, ChartOutput):
                await asyncio.to_thread(to_png, output, png_dir / f"chart{number}.png")
        stages["png"] = (time.perf_counter() - started) * 1000
    stages["failed"] = [f"{r.interface}: {r.error}" for r in run.failed]  # type: ignore[assignment]
    return stages


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="Warm runs per plan.")
    parser.add_argument("--png", action="store_true", help="Also time PNG rendering.")
    parser.add_argument("--only", help="Run only the plan with this name.")
    options = parser.parse_args()

    started = time.perf_counter()
    registry = default_registry()
    RequestContext.for_request(
        QuestionContext(today=date(2023, 1, 1)), get_settings()
    ).interface_context()
    print(f"setup (imports, registry, warehouse): {(time.perf_counter() - started) * 1000:,.0f} ms")

    results: dict[str, Timings] = {}
    with tempfile.TemporaryDirectory() as folder:
        png_dir = Path(folder) if options.png else None
        for name, plan in plans().items():
            if options.only and name != options.only:
                continue
            timings = results[name] = Timings()
            for attempt in range(options.repeat + 1):
                stages = await measure(plan, registry, date(2023, 1, 1), png_dir)
                timings.failures = stages.pop("failed")  # type: ignore[assignment]
                if attempt == 0:
                    timings.cold = stages
                else:
                    for stage in STAGES:
                        timings.warm[stage].append(stages[stage])

    header = f"{'plan':<18}{'stage':<10}{'cold':>10}{'p50':>10}{'p95':>10}   (ms)"
    print(header)
    print("-" * len(header))
    missed = 0
    for name, timings in results.items():
        for stage in STAGES:
            if stage == "png" and not options.png:
                continue
            warm = timings.warm[stage]
            print(
                f"{name:<18}{stage:<10}{timings.cold[stage]:>10.1f}"
                f"{percentile(warm, 50):>10.1f}{percentile(warm, 95):>10.1f}"
            )
        target = TARGETS_MS.get(name)
        if target is not None:
            p50 = percentile(timings.warm["execute"], 50)
            verdict = "met" if p50 < target else "MISSED"
            missed += verdict == "MISSED"
            print(f"{'':<18}target: execute p50 < {target:.0f} ms — {verdict}")
        for failure in timings.failures:
            print(f"{'':<18}call failed: {failure}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
