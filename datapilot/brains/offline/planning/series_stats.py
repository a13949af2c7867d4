"""Statistics of the series a measure produced: "the average 30-day volatility in 2020" is the
mean of that rolling volatility over the window's days, not the mean of the closes beside an
annualised volatility of the whole window.
"""

from __future__ import annotations

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.planning.base import ZH_STAT
from datapilot.brains.offline.planning.performance import PerformanceMeasures

# The statistics a rolling series can be summarised by.
SERIES_STATS = ("mean", "median")


def of_rolling_volatility(metrics: list[str], rolling: bool, window: int | None) -> list[str]:
    """The mean/median asked of a rolling volatility ("average 30-day volatility"), if any."""
    if "volatility" not in metrics or not (rolling or window):
        return []
    return [m for m in metrics if m in SERIES_STATS]


class SeriesStatistics(PerformanceMeasures):
    """A mean or median over the rolling series the question's measure names."""

    def _rolling_statistic(self, stats: list[str]) -> None:
        """The rolling volatility over the window (warmed up before it), then each statistic
        of its daily values, in one table."""
        r = self.r
        self._rolling_volatility()
        series = self.primary
        assert series is not None
        parts = [
            self.builder.add(
                stat,
                {"frame": frame(series)},
                name=f"volatility_{stat}",
                description=self._say(
                    f"Compute the {stat} of the rolling volatility",
                    f"计算滚动波动率的{ZH_STAT[stat]}",
                ),
                task="processing",
            )
            for stat in stats
        ]
        result = self._merged(
            parts, "statistics", self._say("Put the statistics side by side", "合并统计结果")
        )
        self.primary = result
        days = r.window or 30
        if r.zh:
            said = "、".join(ZH_STAT[s] for s in stats)
            self._table(result, f"{self._title('volatility')}的{said}")
            self.trace.append(f"{days}日滚动波动率（年化）在窗口内每日的{said} → 表格")
        else:
            said = " / ".join(stats)
            self._table(result, f"{said}: {self._title('volatility')}")
            self.trace.append(
                f"{said} of the {days}-day rolling volatility (annualised) over the window's days"
                " → a table"
            )
