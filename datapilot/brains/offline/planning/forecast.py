"""Forecasts: history plus a forecast band (or a GARCH volatility path) and a table."""

from __future__ import annotations

from datetime import date

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.horizons import DEFAULT_STEPS, HISTORY, periods_between, steps_in
from datapilot.brains.offline.measures import CHANGE_KINDS
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.planning.base import MAX_CHARTED, PlannerBase, iso
from datapilot.data.catalog import Entity
from datapilot.interfaces.prices import exchange_calendar


class Forecasts(PlannerBase):
    """A forecast per entity, fitted on the question's window or a default history."""

    def _forecast(self) -> None:
        """Per entity: a level (ARIMA/ETS/naive) or volatility (GARCH) forecast, chart and table."""
        r = self.r
        for entity in r.entities[:MAX_CHARTED]:
            steps = self._steps(entity)
            self.horizon = self.horizon or steps
            start, end = (r.start, r.end) if r.explicit_window else self._history(entity)
            if not r.explicit_window and start and end and self.history is None:
                self.history = (start, end)
            change = next((m for m in r.metrics if m in CHANGE_KINDS), None)
            if change is not None and "volatility" not in r.metrics:
                history = self._growth_history(entity, change, start, end)
            else:
                history = self.levels([entity], start=start, end=end, freq=None)
            if "volatility" in r.metrics:
                forecast = self.builder.add(
                    "forecast_volatility",
                    {"frame": frame(self.returns(history)), "horizon": steps},
                    name="forecast",
                    description=self._say(
                        f"Forecast {entity.id}'s volatility {steps} steps ahead (GARCH)",
                        f"用GARCH预测{entity.id}未来{steps}期的波动率",
                    ),
                    task="prediction",
                )
                self._chart("plot_line", forecast, self._title("forecast", [entity], window=False))
            else:
                interface = {"ets": "forecast_ets", "naive": "forecast_naive"}.get(
                    r.model, "forecast_arima"
                )
                model = interface.removeprefix("forecast_").upper()
                forecast = self.builder.add(
                    interface,
                    {"frame": frame(history), "horizon": steps},
                    name="forecast",
                    description=self._say(
                        f"Forecast {entity.id} {steps} {entity.frequency} steps ahead ({model})",
                        f"用{model}预测{entity.id}未来{steps}期",
                    ),
                    task="prediction",
                )
                self.builder.add(
                    "plot_forecast",
                    {
                        "history": frame(history),
                        "forecast": frame(forecast),
                        "title": self._title("forecast", [entity], window=False),
                    },
                    name="chart",
                    description=self._say(
                        f"Draw the history of {entity.id} and its forecast",
                        f"绘制{entity.id}的历史与预测",
                    ),
                    task="visualization",
                )
            self.primary = self.primary or forecast
            self._table(forecast, self._title("forecast", [entity], window=False))
            self.trace.append(
                f"forecast of {entity.id}: {steps} {entity.frequency} steps from data "
                f"{iso(start) or 'start'}..{iso(end) or 'end'} → chart and table"
            )

    def _growth_history(
        self, entity: Entity, kind: str, start: date | None, end: date | None
    ) -> str:
        """The growth rate's own history (a year of data earlier, so it is defined from the
        start): "forecast GDP growth" forecasts the growth rate, not the level."""
        early = Duration(1, "year").back(start) if start else None
        data = self.levels([entity], start=early, end=end, freq=None)
        change = self.builder.add(
            "pct_change",
            {"frame": frame(data), "kind": kind},
            name=f"{kind}_history",
            description=self._say(
                f"Compute {entity.id}'s growth rate in % ({kind})", f"计算{entity.id}的增长率（%）"
            ),
            task="processing",
        )
        self.trace.append(
            self._say(
                f"forecast of a growth rate: {kind} change in % first, then the model",
                "预测增长率：先算变化率（%），再建模预测",
            )
        )
        return self.builder.add(
            "filter_dates",
            {"frame": frame(change), "start": iso(start), "end": iso(end)},
            name=f"{kind}_window",
            description=self._say("Keep the fitting window", "保留拟合区间"),
            task="processing",
        )

    def _steps(self, entity: Entity) -> int:
        """Periods to forecast: the asked horizon, up to the asked future date, or a default."""
        r = self.r
        if r.horizon is not None:
            return steps_in(r.horizon, entity.frequency)
        if r.future is not None:
            last = min(entity.last or r.today, r.today)
            calendar = exchange_calendar(entity)
            return max(1, periods_between(last, r.future[1], entity.frequency, calendar))
        return DEFAULT_STEPS[entity.frequency]

    def _history(self, entity: Entity) -> tuple[date | None, date | None]:
        """The default data to fit on: a span by frequency, up to the last data or today."""
        end = min(entity.last or self.r.today, self.r.today)
        return HISTORY[entity.frequency].back(end), end
