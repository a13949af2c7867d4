"""Compose a Plan from a Reading, metric by metric, out of the interface library.

There is no table of canned plans: each measure adds its own small chain (data → processing →
chart/table) on top of shared data calls, so "price and RSI", "rank by volatility" or "forecast
with a table" come out of the same pieces. Forms follow the question: K-line → candlestick,
rankings and cross-sections → bars, correlation → scatter, forecasts → history + forecast band
and a table, statistics → tables.

The shared machinery (builder state, data calls, charts, tables, titles) is `planning.base`;
each family of measures is a mixin in its own `planning` module, and `_Planner` joins them.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.honour import GAP
from datapilot.brains.offline.measures import CHANGE_KINDS, PER_MEMBER
from datapilot.brains.offline.planning.anchored import AnchoredExtremes
from datapilot.brains.offline.planning.asked import AskedMeasures
from datapilot.brains.offline.planning.base import MAX_CHARTED, STATS
from datapilot.brains.offline.planning.families import AnalystFamilies
from datapilot.brains.offline.planning.forecast import Forecasts
from datapilot.brains.offline.planning.levels import LevelCharts
from datapilot.brains.offline.planning.ratios import Ratios
from datapilot.brains.offline.planning.reference import ReferenceTables
from datapilot.brains.offline.planning.series_stats import rolling_statistic
from datapilot.brains.offline.planning.technical import TechnicalCharts
from datapilot.brains.offline.reading import Reading
from datapilot.brains.offline.vocab import INDICATORS
from datapilot.core.plan import Plan

__all__ = ["MAX_CHARTED", "Planned", "build_plan"]


# The analyst families' measures and the planner method of each.
_FAMILIES = {
    "period_extremes": "_period_extremes",
    "count_days": "_count_days",
    "distance": "_distance",
    "streak": "_streak",
    "conditional": "_conditional",
    "first_close": "_first_close",
    "ma_cross": "_ma_cross",
    "extreme_from_day": "_extreme_from_day",
    "periodic_investment": "_periodic_investment",
}


class Planned(BaseModel):
    """A plan and what it decided about the answer's form."""

    plan: Plan
    chart: str | None = None
    table: bool = False
    horizon: int | None = None
    history: tuple[date, date] | None = Field(
        default=None, description="The data a forecast is fitted on, when the question gave none."
    )
    trace: list[str] = Field(default_factory=list)
    problem: str | None = Field(default=None, description="Why no plan could be made.")


def build_plan(reading: Reading) -> Planned:
    """The plan answering `reading` (which must have status ok)."""
    if reading.parts:
        planner = _plan_parts(reading)
    else:
        planner = _Planner(reading)
        planner.plan()
    builder = planner.builder
    charts = builder.charts()
    return Planned(
        plan=builder.build(),
        chart=charts[0] if charts else None,
        table=builder.has("show_table"),
        horizon=planner.horizon,
        history=planner.history,
        trace=planner.trace,
        # A measure asked that no step computes leaves the answer resting on a word nothing
        # honours, however much else was planned: never `ok` ("the difference between its
        # highest and lowest close" answered with the statistics alone).
        problem=planner.problem,
    )


def _plan_parts(reading: Reading) -> _Planner:
    """Each part of a multi-part question over its own window, into one plan."""
    first: _Planner | None = None
    primaries: list[str] = []
    for part in reading.parts:
        update = {
            "metrics": part.part.metrics,
            "start": part.part.start,
            "end": part.part.end,
            "base": part.base,
            "parts": [],
            "in_part": True,
        }
        planner = _Planner(reading.model_copy(update=update))
        if first is None:
            first = planner
        else:
            planner.builder = first.builder
        planner.plan()
        if (planner.figure or planner.primary) is not None:
            primaries.append(planner.figure or planner.primary or "")
        if first is not planner:
            first.trace += planner.trace
            first.problem = first.problem or planner.problem
    assert first is not None
    _gap_between_parts(reading, first, primaries)
    return first


def _gap_between_parts(reading: Reading, planner: _Planner, primaries: list[str]) -> None:
    """Two parts of one measure and a gap asked between them (比2018年1月扩大了多少): the first
    part's figure minus the second's, stated beside both."""
    if len(primaries) != 2 or GAP.search(reading.text) is None:
        return
    if len({_measured(p.part.metrics) for p in reading.parts}) != 1:
        return
    gap = planner.builder.add(
        "figure_difference",
        {"frame": frame(primaries[0]), "minus": frame(primaries[1])},
        name="figure_difference",
        description=planner._say(
            "Compute the difference between the two figures", "计算两个数值之差"
        ),
        task="processing",
    )
    planner._table(gap, planner._title("差值" if reading.zh else "difference"))


def _measured(metrics: list[str]) -> tuple[str, ...]:
    """A part's measures, a level word beside a statistic of it dropped ("the average rate")."""
    kept = tuple(m for m in metrics if m not in ("value", "close"))
    return kept or tuple(metrics)


class _Planner(
    AnalystFamilies,
    LevelCharts,
    AskedMeasures,
    TechnicalCharts,
    Forecasts,
    ReferenceTables,
    Ratios,
    AnchoredExtremes,
):
    """Every metric family over the shared machinery; `plan` picks the measures to add."""

    def plan(self) -> None:
        """Add each measure the reading asks for; the levels chart when none added a call."""
        r = self.r
        if r.tables:
            self._client_table()
            return
        if "forecast" in r.metrics:
            self._forecast()
            return
        metrics = r.metrics
        indicators = [m for m in metrics if m in INDICATORS]
        stats = [m for m in metrics if m in STATS]
        if indicators or r.chart == "candlestick":
            self._technical(indicators)
        across = self._across(stats)
        of_series = rolling_statistic(metrics, r.rolling, r.window) if not across else None
        if of_series:  # "average 30-day volatility": a statistic of the rolling series
            self._rolling_statistic(*of_series)
            metrics = [m for m in metrics if m != of_series[0] and m not in STATS]
            stats = []
        if across is not None:
            self._list_statistic(stats, across)
            metrics = [m for m in metrics if m != across and m not in STATS]
            stats = []
        for metric in dict.fromkeys(metrics):
            if metric in _FAMILIES:
                getattr(self, _FAMILIES[metric])()
            elif metric in CHANGE_KINDS:
                self._change(metric)
            elif metric == "annualized_return":
                self._annualized_return()
            elif metric in ("worst_day", "best_day"):
                if not self.builder.has("extreme_days"):
                    self._extreme_days()
            elif metric == "investment_growth":
                self._investment()
            elif metric == "news":
                self._news()
            elif metric == "correlation" and r.rolling and len(r.entities) > 1:
                self._rolling_correlation()
            elif metric == "correlation":
                self._correlation()
            elif metric in ("max_drawdown", "drawdown"):
                self._drawdown(metric)
            elif metric == "volatility":
                self._volatility()
            elif metric == "cumulative_return" or (
                metric == "return" and (not stats or r.stats_of_levels)
            ):
                # "the mean daily return" is a statistic of returns; "compounded for the year"
                # beside an average is a figure of its own
                self._returns(metric)
            elif metric in ("spread", "ratio"):
                self._spread(metric)
            elif metric in ("close", "value") and (not stats or r.plot_asked):
                # Highs and lows come as a table; a chart too when one was asked for.
                if not (indicators or r.chart == "candlestick"):
                    self._levels_chart()
            elif metric == "volume" and r.chart != "candlestick":
                self._volume()  # a K-line already has its volume panel
            elif metric == "company_info":
                self._profile()
            elif metric == "fundamentals":
                self._fundamentals()
            elif metric == "constituents":
                self._constituents()
            elif metric == "sharpe":
                self._sharpe()
            elif metric == "beta":
                self._beta()
        if stats:
            self._statistics(stats)
        self._tally()
        self._ratio()
        if not self.builder.calls() and self.problem is None:
            self._levels_chart()
        if r.table and not self.builder.has("show_table") and self.builder.calls():
            # A table was asked for: the main result, else the data the answer was drawn from.
            self._table(self.primary or self.levels(), self._title(""))

    def _across(self, stats: list[str]) -> str | None:
        """The measure a mean/median is taken across a list of entities of, if it is one:
        "median return of the factor ETFs", "average volatility of the 20 stocks"."""
        r = self.r
        listed = r.members_of or r.universe or len(r.entities) >= 3
        if not listed or r.frequency or not any(s in ("mean", "median") for s in stats):
            return None
        measures = [m for m in r.metrics if m in PER_MEMBER]
        if not measures or not r.price_entities or r.series_entities:
            return None
        return "return" if measures[0] == "cumulative_return" else measures[0]
