"""Compose a Plan from a Reading, metric by metric, out of the interface library.

There is no table of canned plans: each measure adds its own small chain (data → processing →
chart/table) on top of shared data calls, so "price and RSI", "rank by volatility" or "forecast
with a table" come out of the same pieces. Forms follow the question: K-line → candlestick,
rankings and cross-sections → bars, correlation → scatter, forecasts → history + forecast band
and a table, statistics → tables.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from datapilot.brains.offline.builder import PlanBuilder, frame
from datapilot.brains.offline.client_tables import has_dates, numeric_columns
from datapilot.brains.offline.horizons import DEFAULT_STEPS, HISTORY, periods_between, steps_in
from datapilot.brains.offline.names import chinese_name
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.reading import PRICE_KINDS, SERIES_KINDS, Reading
from datapilot.brains.offline.vocab import INDICATORS
from datapilot.core.intent import Frequency
from datapilot.core.plan import Plan
from datapilot.data.catalog import Entity

MAX_CHARTED = 4  # K-lines, indicators and forecasts: one chart per entity, at most this many
_STATS = ("mean", "median", "stats")
_ZH_FREQ = {"daily": "日", "weekly": "周", "monthly": "月度", "quarterly": "季度", "annual": "年度"}
_ZH_STAT = {"mean": "均值", "median": "中位数", "stats": "描述性统计"}
_LABELS: dict[str, tuple[str, str]] = {
    "close": ("closing price", "收盘价"),
    "value": ("", ""),
    "return": ("return", "收益率"),
    "cumulative_return": ("cumulative return", "累计收益率"),
    "volatility": ("rolling volatility", "滚动波动率"),
    "max_drawdown": ("maximum drawdown", "最大回撤"),
    "drawdown": ("drawdown", "回撤"),
    "correlation": ("correlation", "相关性"),
    "returns": ("returns", "收益率"),
    "yoy": ("year-over-year change", "同比变化"),
    "spread": ("spread", "利差"),
    "forecast": ("forecast", "预测"),
    "stats": ("statistics", "统计"),
    "volume": ("trading volume", "成交量"),
    "kline": ("K-line", "K线图"),
    "profile": ("profile", "简介"),
    "fundamentals": ("financial figures", "财务数据"),
    "constituents": ("constituents", "成分股"),
    "ranking": ("ranked by", "排名："),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "beta": ("beta", "贝塔系数"),
}


# The column a ranking sorts by, as said in each language.
_RANK_WORDS = {
    "return_pct": ("return over the window", "区间收益率"),
    "std": ("volatility (standard deviation of daily returns)", "波动率（日收益率标准差）"),
    "max_drawdown_pct": ("maximum drawdown", "最大回撤"),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "beta": ("beta", "贝塔系数"),
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
        problem=planner.problem if not builder.calls() else None,
    )


class _Planner:
    def __init__(self, reading: Reading) -> None:
        self.r = reading
        self.builder = PlanBuilder()
        self.trace: list[str] = []
        self.problem: str | None = None
        self.horizon: int | None = None
        self.history: tuple[date, date] | None = None
        self.primary: str | None = None

    # --- composition -----------------------------------------------------------------------

    def plan(self) -> None:
        r = self.r
        if r.tables:
            self._client_table()
            return
        if "forecast" in r.metrics:
            self._forecast()
            return
        metrics = r.metrics
        indicators = [m for m in metrics if m in INDICATORS]
        stats = [m for m in metrics if m in _STATS]
        if indicators or r.chart == "candlestick":
            self._technical(indicators)
        for metric in dict.fromkeys(metrics):
            if metric == "correlation":
                self._correlation()
            elif metric in ("max_drawdown", "drawdown"):
                self._drawdown(metric)
            elif metric == "volatility":
                self._volatility()
            elif metric in ("return", "cumulative_return") and not stats:
                self._returns(metric)
            elif metric == "yoy":
                self._yoy()
            elif metric == "spread":
                self._spread()
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
        if not self.builder.calls() and self.problem is None:
            self._levels_chart()
        if r.table and not self.builder.has("show_table") and self.primary:
            self._table(self.primary, self._title(""))

    # --- data ------------------------------------------------------------------------------

    def levels(
        self,
        entities: list[Entity] | None = None,
        *,
        for_returns: bool = False,
        start: date | None = None,
        end: date | None = None,
        freq: Frequency | None = None,
    ) -> str:
        """Prices and/or series of the entities over the window, one column each."""
        r = self.r
        entities = entities if entities is not None else r.entities
        start = start if start is not None else r.start
        end = end if end is not None else r.end
        freq = freq if freq is not None else r.frequency
        window = {"start": _iso(start), "end": _iso(end)}
        prices = [e for e in entities if e.kind in PRICE_KINDS]
        series = [e for e in entities if e.kind in SERIES_KINDS]
        parts: list[str] = []
        price_freq = freq if freq in ("daily", "weekly", "monthly") else "daily"
        span = f"{_iso(start) or 'the start'} to {_iso(end) or 'the end'}"
        span_zh = f"{_iso(start) or '最早'}至{_iso(end) or '最新'}"
        if prices:
            ids = [e.id for e in prices]
            if all(e.kind == "index" for e in prices):
                parts.append(
                    self.builder.add(
                        "get_index_levels",
                        {"ids": ids, **window, "freq": price_freq},
                        name="levels",
                        description=self._say(
                            f"Get {price_freq} levels of {', '.join(ids)}, {span}",
                            f"获取{'、'.join(ids)}的{_ZH_FREQ[price_freq]}点位（{span_zh}）",
                        ),
                        task="data",
                    )
                )
            else:
                field = (
                    "adj_close"
                    if for_returns and not any(e.kind == "index" for e in prices)
                    else "close"
                )
                parts.append(
                    self.builder.add(
                        "get_prices",
                        {"ids": ids, **window, "freq": price_freq, "field": field},
                        name="prices",
                        description=self._say(
                            f"Get {price_freq} {field.replace('_', ' ')} prices of "
                            f"{', '.join(ids)}, {span}",
                            f"获取{'、'.join(ids)}的{_ZH_FREQ[price_freq]}收盘价（{span_zh}）",
                        ),
                        task="data",
                    )
                )
        if series:
            ids = [e.id for e in series]
            args: dict[str, Any] = {"ids": ids, **window}
            if freq in ("monthly", "quarterly", "annual"):
                args["freq"] = freq
            parts.append(
                self.builder.add(
                    "get_series",
                    args,
                    name="series",
                    description=self._say(
                        f"Get the values of {', '.join(ids)}, {span}",
                        f"获取{'、'.join(ids)}的数据（{span_zh}）",
                    ),
                    task="data",
                )
            )
        output = self._merged(
            parts, "merged", self._say("Put the prices and series side by side", "合并价格和序列")
        )
        if prices and freq in ("quarterly", "annual"):
            output = self.builder.add(
                "resample",
                {"frame": frame(output), "freq": freq, "how": "last"},
                name=f"{freq}_levels",
                description=self._say(f"Take the {freq} closing values", "取每期末的值"),
                task="processing",
            )
        return output

    def _lookback(self, warm_up: Duration) -> date | None:
        """An earlier start, so a calculation over a trailing window is full from `start` on."""
        return warm_up.back(self.r.start) if self.r.start else None

    def _trim(self, data: str) -> str:
        """Cut a result back to the question's window after a warm-up."""
        r = self.r
        return self.builder.add(
            "filter_dates",
            {"frame": frame(data), "start": _iso(r.start), "end": _iso(r.end)},
            name=f"{data}_window",
            description=self._say(f"Keep {r.start} to {r.end}", f"保留{r.start}至{r.end}的数据"),
            task="processing",
        )

    def returns(self, levels: str, period: str = "daily") -> str:
        return self.builder.add(
            "compute_returns",
            {"frame": frame(levels), "period": period},
            name=f"{period}_returns",
            description=self._say(
                f"Compute {period} returns in %", f"计算{_ZH_FREQ[period]}收益率（%）"
            ),
            task="processing",
        )

    # --- outputs ---------------------------------------------------------------------------

    def _merged(self, parts: list[str], name: str, description: str) -> str:
        """The one part itself, or a merge of several parts side by side."""
        if len(parts) == 1:
            return parts[0]
        return self.builder.add(
            "merge_frames",
            {"frames": [frame(p) for p in parts]},
            name=name,
            description=description,
            task="processing",
        )

    def _say(self, english: str, chinese: str) -> str:
        """Task and step descriptions in the question's language."""
        return chinese if self.r.zh else english

    def _chart(self, interface: str, data: str, title: str, **extra: Any) -> str:
        args = {"frame": frame(data), "title": title, **extra}
        return self.builder.add(
            interface,
            args,
            name="chart",
            description=self._say(f"Draw: {title}", f"绘制：{title}"),
            task="visualization",
        )

    def _table(self, data: str, title: str, **extra: Any) -> str:
        return self.builder.add(
            "show_table",
            {"frame": frame(data), "title": title, **extra},
            name="table",
            description=self._say(f"Show the table: {title}", f"列表展示：{title}"),
            task="visualization",
        )

    def _line_or(self, data: str, title: str) -> None:
        """The chart the user named (bar, area) or a line chart, unless only a table is wanted."""
        r = self.r
        if r.table_only:
            return
        interface = {"bar": "plot_bar", "area": "plot_area"}.get(r.chart or "", "plot_line")
        self._chart(interface, data, title)

    def _title(self, what: str, entities: list[Entity] | None = None, window: bool = True) -> str:
        r = self.r
        entities = entities if entities is not None else r.entities
        label = _LABELS.get(what, (what, what))[1 if r.zh else 0]
        names = _names(entities, r.zh)
        if r.zh:
            # A space between Latin and Chinese words ("S&P 500 收盘价"), none before nothing.
            joint = " " if names[-1:].isascii() and label else ""
            text = f"{names}{joint}{label}"
            if window and r.start and r.end:
                text += f"（{r.start} 至 {r.end}）"
            return text
        text = f"{names} {label}".strip()
        if window and r.start and r.end:
            text += f", {r.start} to {r.end}"
        return text

    # --- building blocks -------------------------------------------------------------------

    def _levels_chart(self) -> None:
        r = self.r
        data = self.levels()
        if r.normalize:
            data = self.builder.add(
                "normalize",
                {"frame": frame(data), "base": 100.0},
                name="normalized",
                description=self._say(
                    "Rebase every series to 100 at the start", "以起点为100归一化"
                ),
                task="processing",
            )
        metric = "close" if r.price_entities else "value"
        self.primary = data
        self._line_or(data, self._title(metric))
        if r.table:
            self._table(data, self._title(metric))

    def _returns(self, metric: str) -> None:
        r = self.r
        if r.rank:
            self._ranking("return")
            return
        data = self.levels(for_returns=True)
        if metric == "return" and r.frequency:
            period = r.frequency
            series = self.returns(data, period)
            self.primary = series
            if not r.table_only:
                chart = "plot_line" if period == "daily" else "plot_bar"
                self._chart(chart, series, self._title("returns"))
            self.trace.append(f"{period} returns → {'line' if period == 'daily' else 'bar'} chart")
            return
        if metric == "return" and len(r.entities) == 1:
            table = self.builder.add(
                "period_return",
                {"frame": frame(data), "start": _iso(r.start), "end": _iso(r.end)},
                name="period_return",
                description=self._say("Compute the return over the window", "计算区间收益率"),
                task="processing",
            )
            self._table(table, self._title("return"))
        cumulative = self.builder.add(
            "cumulative_returns",
            {"frame": frame(data)},
            name="cumulative",
            description=self._say(
                "Compute the cumulative return in % since the start",
                "计算自起点以来的累计收益率（%）",
            ),
            task="processing",
        )
        self.primary = cumulative
        self._line_or(cumulative, self._title("cumulative_return"))

    def _ranking(self, measure: str) -> None:
        r = self.r
        ids = [e.id for e in r.entities]
        if measure == "return":
            if r.series_entities:
                cross = self.builder.add(
                    "period_return",
                    {"frame": frame(self.levels()), "start": _iso(r.start), "end": _iso(r.end)},
                    name="period_returns",
                    description=self._say(
                        "Compute each one's return over the window", "计算各自的区间收益率"
                    ),
                    task="processing",
                )
            else:
                cross = self.builder.add(
                    "cross_section_returns",
                    {"ids": ids, "start": _iso(r.start), "end": _iso(r.end)},
                    name="returns",
                    description=self._say(
                        f"Compute the return of {', '.join(ids)} over the window",
                        f"计算{'、'.join(ids)}的区间收益率",
                    ),
                    task="processing",
                )
            by, descending = "return_pct", not r.ascending
        elif measure == "volatility":
            cross = self.builder.add(
                "summary_stats",
                {"frame": frame(self.returns(self.levels(for_returns=True)))},
                name="return_stats",
                description=self._say(
                    "Summarise daily returns (std = volatility)", "统计日收益率（标准差即波动率）"
                ),
                task="processing",
            )
            by, descending = "std", not r.ascending
        else:
            cross = self.builder.add(
                "max_drawdown",
                {"frame": frame(self.levels(for_returns=True))},
                name="max_drawdown",
                description=self._say("Find each one's maximum drawdown", "计算各自的最大回撤"),
                task="processing",
            )
            # The largest drawdown is the most negative number.
            by, descending = "max_drawdown_pct", r.ascending
        args: dict[str, Any] = {"frame": frame(cross), "by": by, "ascending": not descending}
        if r.top_k:
            args["top_k"] = r.top_k
        ranked = self.builder.add(
            "rank",
            args,
            name="ranked",
            description=self._say(f"Rank by {_RANK_WORDS[by][0]}", f"按{_RANK_WORDS[by][1]}排序"),
            task="processing",
        )
        self.primary = ranked
        title = self._title(measure)
        if not r.table_only:
            self._chart("plot_bar", ranked, title, column=by)
        if r.table or r.question_form or r.table_only:
            self._table(ranked, title)

    def _volatility(self) -> None:
        r = self.r
        if r.rank:
            self._ranking("volatility")
            return
        days = r.window or 30
        warm_up = Duration(days * 1.5 + 5, "day")
        data = self.levels(for_returns=True, start=self._lookback(warm_up))
        args: dict[str, Any] = {"frame": frame(data), "annualize": True}
        if r.window:
            args["window"] = r.window
        vol = self.builder.add(
            "rolling_volatility",
            args,
            name="volatility",
            description=self._say(
                f"Compute the {args.get('window', 30)}-day rolling volatility (annualised, %)",
                f"计算{args.get('window', 30)}日滚动波动率（年化，%）",
            ),
            task="processing",
        )
        vol = self._trim(vol)
        self.primary = vol
        if not r.table_only:
            self._chart("plot_line", vol, self._title("volatility"))
        if r.question_form or r.table_only:
            stats = self.builder.add(
                "summary_stats",
                {"frame": frame(self.returns(self.levels(for_returns=True)))},
                name="return_stats",
                description=self._say(
                    "Summarise daily returns (std = daily volatility)",
                    "统计日收益率（标准差即日波动率）",
                ),
                task="processing",
            )
            self._table(stats, self._title("stats"))

    def _sharpe(self) -> None:
        """Annualised Sharpe ratio (with annual return and volatility) per entity."""
        r = self.r
        table = self.builder.add(
            "sharpe_ratio",
            {"frame": frame(self.levels(for_returns=True))},
            name="sharpe",
            description=self._say(
                "Compute the annualised Sharpe ratio of daily returns", "计算日收益率的年化夏普比率"
            ),
            task="processing",
        )
        table = self._rank_by(table, "sharpe") if r.rank else table
        self.primary = table
        if len(r.entities) > 1 and not r.table_only:
            self._chart("plot_bar", table, self._title("sharpe"), column="sharpe")
        self._table(table, self._title("sharpe"))

    def _beta(self) -> None:
        """Beta, correlation and r² of each entity's returns against the market index."""
        r = self.r
        market = next(e for e in r.entities if e.kind == "index")
        table = self.builder.add(
            "beta",
            {"frame": frame(self.levels(for_returns=True)), "market": market.id},
            name="beta",
            description=self._say(
                f"Compute each one's beta against {market.id}", f"计算相对{market.id}的贝塔系数"
            ),
            task="processing",
        )
        table = self._rank_by(table, "beta") if r.rank else table
        self.primary = table
        others = [e for e in r.entities if e.id != market.id]
        if len(others) > 1 and not r.table_only:
            self._chart("plot_bar", table, self._title("beta", others), column="beta")
        self._table(table, self._title("beta", others))

    def _rank_by(self, table: str, by: str) -> str:
        """A cross-section sorted by one of its columns, highest first unless worst was asked."""
        return self.builder.add(
            "rank",
            {"frame": frame(table), "by": by, "ascending": self.r.ascending},
            name="ranked",
            description=self._say(f"Rank by {_RANK_WORDS[by][0]}", f"按{_RANK_WORDS[by][1]}排序"),
            task="processing",
        )

    def _drawdown(self, metric: str) -> None:
        r = self.r
        if self.builder.has("max_drawdown") or self.builder.has("drawdown"):
            return
        if r.rank:
            self._ranking("max_drawdown")
            return
        data = self.levels(for_returns=True)
        worst = self.builder.add(
            "max_drawdown",
            {"frame": frame(data)},
            name="max_drawdown",
            description=self._say("Find the largest peak-to-trough fall", "计算最大回撤"),
            task="processing",
        )
        self._table(worst, self._title("max_drawdown"))
        if not r.table_only:
            curve = self.builder.add(
                "drawdown",
                {"frame": frame(data)},
                name="drawdown",
                description=self._say(
                    "Compute the drawdown below the running peak", "计算相对前高的回撤"
                ),
                task="processing",
            )
            self.primary = curve
            self._chart("plot_area", curve, self._title("drawdown"))

    def _correlation(self) -> None:
        r = self.r
        if len(r.entities) < 2:
            self.problem = (
                "相关性需要至少两个序列，请再说一个要比较的对象。"
                if r.zh
                else "A correlation needs two or more series; name another one to compare with."
            )
            return
        mixed = bool(r.series_entities) and bool(r.price_entities)
        freq = r.frequency or ("monthly" if mixed else None)
        data = self.levels(for_returns=True, freq=freq)
        if r.price_entities:
            data = self.returns(data, freq or "daily")
        matrix = self.builder.add(
            "correlation",
            {"frame": frame(data)},
            name="correlation",
            description=self._say("Compute the correlation matrix", "计算相关系数矩阵"),
            task="processing",
        )
        self.primary = matrix
        self._table(matrix, self._title("correlation"))
        x, y = r.entities[0].id, r.entities[1].id
        self._chart(
            "plot_scatter", data, self._title("correlation", r.entities[:2]), x=x, y=y, fit=True
        )
        self.trace.append(f"correlation → scatter of {y} against {x} with a fitted line")

    def _yoy(self) -> None:
        data = self.levels(start=self._lookback(Duration(1, "year")))
        change = self.builder.add(
            "pct_change",
            {"frame": frame(data), "kind": "yoy"},
            name="yoy",
            description=self._say("Compute the year-over-year change in %", "计算同比变化（%）"),
            task="processing",
        )
        change = self._trim(change)
        self.primary = change
        self._line_or(change, self._title("yoy"))

    def _spread(self) -> None:
        r = self.r
        if len(r.entities) != 2:
            self.problem = (
                "利差需要恰好两个序列，例如：AAA和BAA公司债收益率的利差。"
                if r.zh
                else "A spread needs exactly two series, e.g. the BAA minus AAA yield spread."
            )
            return
        a, b = r.entities[0].id, r.entities[1].id
        gap = self.builder.add(
            "spread",
            {"frame": frame(self.levels()), "a": a, "b": b},
            name="spread",
            description=self._say(f"Compute {a} minus {b}", f"计算{a}减{b}的差值"),
            task="processing",
        )
        self.primary = gap
        self._line_or(gap, self._title("spread"))

    def _volume(self) -> None:
        r = self.r
        prices = r.price_entities
        if not prices:
            return
        volume = self.builder.add(
            "get_prices",
            {
                "ids": [e.id for e in prices],
                "start": _iso(r.start),
                "end": _iso(r.end),
                "freq": r.frequency if r.frequency in ("daily", "weekly", "monthly") else "daily",
                "field": "volume",
            },
            name="volume",
            description=self._say("Get the trading volume", "获取成交量"),
            task="data",
        )
        self.primary = self.primary or volume
        if not r.table_only:
            self._chart("plot_bar", volume, self._title("volume", prices))

    def _statistics(self, which: list[str]) -> None:
        r = self.r
        of_returns = any(m in r.metrics for m in ("return", "cumulative_return"))
        data = self.levels(for_returns=of_returns)
        if of_returns:
            data = self.returns(data, r.frequency or "daily")
        parts = []
        for metric in which:
            interface = "summary_stats" if metric == "stats" else metric
            parts.append(
                self.builder.add(
                    interface,
                    {"frame": frame(data)},
                    name=metric,
                    description=self._say(
                        f"Compute the {metric.replace('stats', 'summary statistics')}",
                        f"计算{_ZH_STAT[metric]}",
                    ),
                    task="processing",
                )
            )
        result = self._merged(
            parts, "statistics", self._say("Put the statistics side by side", "合并统计结果")
        )
        self.primary = result
        what = "returns" if of_returns else ("close" if r.price_entities else "value")
        label = " / ".join(which).replace("stats", "summary statistics")
        title = self._title(what)
        if r.zh:
            self._table(result, f"{title}的{'、'.join(_ZH_STAT[m] for m in which)}")
        else:
            self._table(result, f"{label}: {title}")
        self.trace.append(f"{label} → a table")

    def _technical(self, indicators: list[str]) -> None:
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
                    {"entity": entity.id, "start": _iso(r.start), "end": _iso(r.end), "freq": freq},
                    name="ohlcv",
                    description=self._say(
                        f"Get {freq} open/high/low/close/volume of {entity.id}",
                        f"获取{entity.id}的{_ZH_FREQ[freq]}开高低收和成交量",
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
        r = self.r
        args: dict[str, Any] = {"entity": entity.id, "start": _iso(r.start), "end": _iso(r.end)}
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

    def _forecast(self) -> None:
        r = self.r
        for entity in r.entities[:MAX_CHARTED]:
            steps = self._steps(entity)
            self.horizon = self.horizon or steps
            start, end = (r.start, r.end) if r.explicit_window else self._history(entity)
            if not r.explicit_window and start and end and self.history is None:
                self.history = (start, end)
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
                f"{_iso(start) or 'start'}..{_iso(end) or 'end'} → chart and table"
            )

    def _steps(self, entity: Entity) -> int:
        r = self.r
        if r.horizon is not None:
            return steps_in(r.horizon, entity.frequency)
        if r.future is not None:
            last = min(entity.last or r.today, r.today)
            return max(1, periods_between(last, r.future[1], entity.frequency))
        return DEFAULT_STEPS[entity.frequency]

    def _history(self, entity: Entity) -> tuple[date | None, date | None]:
        end = min(entity.last or self.r.today, self.r.today)
        return HISTORY[entity.frequency].back(end), end

    def _fundamentals(self) -> None:
        for entity in self.r.entities[:MAX_CHARTED]:
            figures = self.builder.add(
                "get_fundamentals",
                {"entity": entity.id},
                name="fundamentals",
                description=self._say(
                    f"Get the reported financial figures of {entity.id}",
                    f"获取{entity.id}的财务数据",
                ),
                task="data",
            )
            self._table(figures, self._title("fundamentals", [entity], window=False))

    def _profile(self) -> None:
        for entity in self.r.entities[:MAX_CHARTED]:
            info = self.builder.add(
                "get_company_info",
                {"entity": entity.id},
                name="profile",
                description=self._say(f"Look up {entity.id}", f"查询{entity.id}的基本信息"),
                task="data",
            )
            self._table(info, self._title("profile", [entity], window=False))

    def _constituents(self) -> None:
        for entity in self.r.entities:
            if entity.kind != "index":
                continue
            members = self.builder.add(
                "get_constituents",
                {"index": entity.id},
                name="constituents",
                description=self._say(
                    f"List the members of {entity.id}", f"列出{entity.id}的成分股"
                ),
                task="data",
            )
            self._table(members, self._title("constituents", [entity], window=False))

    def _client_table(self) -> None:
        r = self.r
        table = r.tables[0]
        data = self.builder.add(
            "get_client_table",
            {"name": table.name},
            name="client_table",
            description=self._say(
                f'Read the table "{table.name}" you sent', f"读取您发送的表格“{table.name}”"
            ),
            task="data",
        )
        if r.columns:
            data = self.builder.add(
                "select_columns",
                {"frame": frame(data), "columns": r.columns},
                name="columns",
                description=self._say(
                    f"Keep {', '.join(r.columns)}", f"保留列{'、'.join(r.columns)}"
                ),
                task="processing",
            )
        self.primary = data
        title = table.name if not r.columns else f"{table.name}: {', '.join(r.columns)}"
        stats = [m for m in r.metrics if m in _STATS]
        if stats:
            for metric in stats:
                interface = "summary_stats" if metric == "stats" else metric
                result = self.builder.add(
                    interface,
                    {"frame": frame(data)},
                    name=metric,
                    description=self._say(f"Compute the {metric}", f"计算{_ZH_STAT[metric]}"),
                    task="processing",
                )
                self._table(result, f"{metric}: {title}")
            return
        if "correlation" in r.metrics:
            matrix = self.builder.add(
                "correlation",
                {"frame": frame(data)},
                name="correlation",
                description=self._say("Compute the correlation matrix", "计算相关系数矩阵"),
                task="processing",
            )
            self._table(matrix, f"correlation: {title}")
            return
        chartable = numeric_columns(table, r.columns) and not r.table_only
        if chartable:
            default = "plot_line" if has_dates(table) else "plot_bar"
            interface = {
                "bar": "plot_bar",
                "area": "plot_area",
                "pie": "plot_pie",
                "line": "plot_line",
            }
            self._chart(interface.get(r.chart or "", default), data, title)
            self.trace.append(
                f'your table "{table.name}" → {interface.get(r.chart or "", default)}'
            )
        if r.table or not r.plot_asked or not chartable:
            self._table(data, title)


def _names(entities: list[Entity], zh: bool) -> str:
    if zh:
        return "、".join(chinese_name(e) for e in entities[:5]) + (
            "等" if len(entities) > 5 else ""
        )
    shown = ", ".join(e.name for e in entities[:5])
    return shown + (f" and {len(entities) - 5} more" if len(entities) > 5 else "")


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None
