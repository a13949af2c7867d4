"""Technical indicators (MA, RSI, MACD, ...) and K-line candlesticks, one chart per entity."""

from __future__ import annotations

from typing import Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.planning.base import MAX_CHARTED, ZH_FREQ, PlannerBase, iso
from datapilot.data.catalog import Entity


class TechnicalCharts(PlannerBase):
    """Indicators drawn beside the price, or as panels under a candlestick chart."""

    def _technical(self, indicators: list[str]) -> None:
        """Per priced entity: each indicator as a line chart, or a K-line with indicator panels."""
        r = self.r
        entities = r.price_entities[:MAX_CHARTED]
        if not entities:
            self.problem = (
                "技术指标和K线只适用于股票、ETF和指数。"
                if r.zh
                else "Technical indicators and K-lines need prices of a stock, ETF or index."
            )
            return
        candle = r.chart == "candlestick"
        freq = r.frequency if r.frequency in ("daily", "weekly", "monthly") else "daily"
        for entity in entities:
            made = [self._indicator(entity, name) for name in indicators]
            if candle:
                ohlcv = self.builder.add(
                    "get_ohlcv",
                    {
                        "entity": entity.id,
                        "start": iso(r.start),
                        "end": iso(r.end),
                        "freq": freq,
                        **self.base_arg(),
                    },
                    name="ohlcv",
                    description=self._say(
                        f"Get {freq} open/high/low/close/volume of {entity.id}",
                        f"获取{entity.id}的{ZH_FREQ[freq]}开高低收和成交量",
                    ),
                    task="data",
                )
                self.primary = self.primary or ohlcv
                title = self._title("kline", [entity])
                if indicators:
                    title += " + " + " / ".join(i.upper() for i in indicators)
                self.builder.add(
                    "plot_candlestick",
                    {
                        "ohlcv": frame(ohlcv),
                        "title": title,
                        "indicators": [frame(m) for m in made],
                        "volume": True,
                    },
                    name="chart",
                    description=self._say(f"Draw: {title}", f"绘制：{title}"),
                    task="visualization",
                )
                continue
            for name, output in zip(indicators, made, strict=True):
                self.primary = self.primary or output
                shown = output
                if name in ("ma", "ema"):
                    shown = self.builder.add(
                        "merge_frames",
                        {"frames": [frame(self.levels([entity])), frame(output)]},
                        name=f"price_{name}",
                        description=self._say(
                            f"Put {entity.id}'s price beside its moving averages",
                            f"合并{entity.id}的价格和均线",
                        ),
                        task="processing",
                    )
                self._chart("plot_line", shown, self._title(name.upper(), [entity]))
                if r.table:
                    self._table(output, self._title(name.upper(), [entity]))
        if candle:
            self.trace.append(
                "K-line → candlestick chart" + (" with indicator panels" if indicators else "")
            )

    def _indicator(self, entity: Entity, name: str) -> str:
        """The indicator's data call for one entity, with any window the question gave."""
        r = self.r
        args: dict[str, Any] = {"entity": entity.id, "start": iso(r.start), "end": iso(r.end)}
        if name in ("ma", "ema") and r.ma_windows:
            args["windows"] = r.ma_windows
        elif name in ("rsi", "kdj", "boll", "cci") and r.window:
            args["window"] = r.window
        return self.builder.add(
            f"get_{name}",
            args,
            name=name,
            description=self._say(
                f"Compute {name.upper()} of {entity.id}", f"计算{entity.id}的{name.upper()}指标"
            ),
            task="data",
        )
