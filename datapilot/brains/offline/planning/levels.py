"""Charts of the levels themselves and of simple transforms of them: yoy, spread, volume."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.honour import in_percent
from datapilot.brains.offline.level_changes import asks_level_change, asks_rate_change
from datapilot.brains.offline.planning.base import PlannerBase, iso


class LevelCharts(PlannerBase):
    """Levels over the window, and simple transforms of them, each drawn as a chart."""

    if TYPE_CHECKING:  # the planner's other mixin (`performance.PerformanceMeasures`) provides it

        def _window_change(self, data: str) -> None: ...

    def _levels_chart(self) -> None:
        """The levels (rebased to 100 when asked) as the chart the user named, a table if asked."""
        r = self.r
        data = self.levels()
        if r.normalize:
            data = self._rebased(data)
        metric = "close" if r.price_entities else "value"
        metric = "normalized" if r.normalize else metric
        self.primary = data
        self._line_or(data, self._title(metric))
        if r.table:
            self._table(data, self._title(metric))
        percent = in_percent(r)
        if len(r.entities) == 1 and (
            (asks_level_change(r.text) and not percent)
            or (percent and asks_rate_change(r.text) and not r.in_part)  # a gap between parts
        ):
            # "收盘价比一年前高多少美元": the difference between the window's ends, in dollars;
            # "how many points did unemployment rise in 2008": a rate's, in percentage points.
            self._window_change(data)

    def _spread(self, metric: str = "spread") -> None:
        """The first series minus the second (over it, for a ratio); a problem unless there are
        exactly two."""
        r = self.r
        ratio = metric == "ratio"
        if len(r.entities) != 2:
            self.problem = (
                ("比值" if ratio else "利差")
                + "需要恰好两个序列，例如："
                + ("纳斯达克指数与标普500的收盘比值。" if ratio else "AAA和BAA公司债收益率的利差。")
                if r.zh
                else f"A {metric} needs exactly two series, e.g. "
                + (
                    "the Nasdaq's close divided by the S&P 500's."
                    if ratio
                    else "the BAA minus AAA yield spread."
                )
            )
            return
        a, b = r.entities[0].id, r.entities[1].id
        args: dict[str, Any] = {"frame": frame(self.levels()), "a": a, "b": b}
        if ratio:
            args["how"] = "ratio"
        gap = self.builder.add(
            "spread",
            args,
            name=metric,
            description=self._say(
                f"Compute {a} divided by {b}" if ratio else f"Compute {a} minus {b}",
                f"计算{a}除以{b}的比值" if ratio else f"计算{a}减{b}的差值",
            ),
            task="processing",
        )
        self.primary = gap
        self._line_or(gap, self._title(metric))

    def _volume(self) -> None:
        """Trading volume of the priced entities, as bars."""
        r = self.r
        prices = r.price_entities
        if not prices:
            return
        volume = self.builder.add(
            "get_prices",
            {
                "ids": [e.id for e in prices],
                "start": iso(r.start),
                "end": iso(r.end),
                "freq": r.frequency if r.frequency in ("daily", "weekly", "monthly") else "daily",
                "field": "volume",
            },
            name="volume",
            description=self._say("Get the trading volume", "获取成交量"),
            task="data",
        )
        self.primary = self.primary or volume
        self.volume = volume
        if not r.table_only:
            interface, options = self._form("plot_bar")
            self._chart(interface, volume, self._title("volume", prices), **options)
