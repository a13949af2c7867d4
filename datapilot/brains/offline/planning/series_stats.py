"""Rolling series between or of entities, and statistics of them: "the average 30-day
volatility in 2020" is the mean of that rolling volatility over the window's days, not the mean
of the closes beside an annualised volatility of the whole window; "the 20-day rolling
correlation" is a series of correlations, not the window's one figure.
"""

from __future__ import annotations

from typing import Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.planning.base import ZH_STAT
from datapilot.brains.offline.planning.performance import PerformanceMeasures

# The statistics a rolling series can be summarised by.
SERIES_STATS = ("mean", "median")


_ZH = {"volatility": "波动率", "correlation": "相关系数"}

# The measures that have a rolling series.
ROLLING = ("volatility", "correlation")


def rolling_statistic(
    metrics: list[str], rolling: bool, window: int | None
) -> tuple[str, list[str]] | None:
    """The rolling measure and the mean/median asked of it ("average 30-day volatility"), if
    any."""
    if not (rolling or window):
        return None
    stats = [m for m in metrics if m in SERIES_STATS]
    measures = [m for m in metrics if m in ROLLING]
    return (measures[0], stats) if stats and measures else None


class SeriesStatistics(PerformanceMeasures):
    """A mean or median over the rolling series the question's measure names."""

    def _rolling_correlation(self) -> None:
        """The rolling correlation of each entity with the first (of returns for prices),
        warmed up before the window, and its line chart."""
        r = self.r
        days = r.window or 20
        warm_up = Duration(days * 1.5 + 5, "day")
        of_returns = bool(r.price_entities)
        data = self.levels(for_returns=of_returns, start=self._lookback(warm_up), freq="daily")
        args: dict[str, Any] = {"frame": frame(data), "window": days, "of_returns": of_returns}
        series = self.builder.add(
            "rolling_correlation",
            args,
            name="rolling_correlation",
            description=self._say(
                f"Compute the {days}-day rolling correlation", f"计算{days}日滚动相关系数"
            ),
            task="processing",
        )
        series = self._trim(series)
        self.primary = series
        if not r.table_only:
            self._chart("plot_line", series, self._title("rolling correlation"))
        self.trace.append(
            self._say(
                f"{days}-day rolling correlation of daily returns with {r.entities[0].id} → a line",
                f"与{r.entities[0].id}的{days}日滚动相关系数 → 折线图",
            )
        )

    def _rolling_statistic(self, measure: str, stats: list[str]) -> None:
        """The rolling series over the window (warmed up before it), then each statistic of
        its daily values, in one table."""
        r = self.r
        if measure == "correlation":
            self._rolling_correlation()
        else:
            self._rolling_volatility()
        series = self.primary
        assert series is not None
        parts = [
            self.builder.add(
                stat,
                {"frame": frame(series)},
                name=f"{measure}_{stat}",
                description=self._say(
                    f"Compute the {stat} of the rolling {measure}",
                    f"计算滚动{_ZH[measure]}的{ZH_STAT[stat]}",
                ),
                task="processing",
            )
            for stat in stats
        ]
        result = self._merged(
            parts, "statistics", self._say("Put the statistics side by side", "合并统计结果")
        )
        self.primary = result
        days = r.window or (20 if measure == "correlation" else 30)
        if r.zh:
            said = "、".join(ZH_STAT[s] for s in stats)
            self._table(result, f"{self._title(measure)}的{said}")
            self.trace.append(f"{days}日滚动{_ZH[measure]}在窗口内每日的{said} → 表格")
        else:
            said = " / ".join(stats)
            self._table(result, f"{said}: {self._title(measure)}")
            self.trace.append(
                f"{said} of the {days}-day rolling {measure} over the window's days → a table"
            )
