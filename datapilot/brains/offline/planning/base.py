"""The shared plan-building machinery every metric family builds on.

`PlannerBase` holds the plan under construction and what was decided along the way; `levels` and
`returns` add the data calls most measures start from, `_chart` and `_table` show a result, and
`_title` and `_say` word titles and step descriptions in the question's language.
"""

from __future__ import annotations

from datetime import date
from functools import cache
from typing import Any

from dateutil.relativedelta import relativedelta

from datapilot.brains.offline.builder import PlanBuilder, frame
from datapilot.brains.offline.names import chinese_name
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.reading import PRICE_KINDS, SERIES_KINDS, Reading
from datapilot.brains.offline.weekdays import weekday_names
from datapilot.core.intent import Frequency
from datapilot.data.catalog import Entity

MAX_CHARTED = 4  # K-lines, indicators and forecasts: one chart per entity, at most this many
STATS = ("mean", "median", "stats", "range")
# The interface each statistic is computed by, where its name is not the statistic's.
STAT_INTERFACES = {"stats": "summary_stats", "range": "high_low_range"}

ZH_FREQ = {"daily": "日", "weekly": "周", "monthly": "月度", "quarterly": "季度", "annual": "年度"}
ZH_STAT = {"mean": "均值", "median": "中位数", "stats": "描述性统计", "range": "最高与最低之差"}
# A measure compared across entities is one figure each: volatility is the annualised one.
SHOWN_AS = {"volatility": "annualized_volatility"}
# What a title calls each measure, in English and in Chinese.
_LABELS: dict[str, tuple[str, str]] = {
    "close": ("closing price", "收盘价"),
    "adjusted close": ("adjusted closing price", "复权收盘价"),
    "value": ("", ""),
    "return": ("return", "收益率"),
    "cumulative_return": ("cumulative return", "累计收益率"),
    "normalized": ("rebased to 100", "起点归一为100的走势"),
    "volatility": ("rolling volatility", "滚动波动率"),
    "rolling correlation": ("rolling correlation", "滚动相关系数"),
    "max_drawdown": ("maximum drawdown", "最大回撤"),
    "drawdown": ("drawdown", "回撤"),
    "correlation": ("correlation", "相关性"),
    "returns": ("returns", "收益率"),
    "yoy": ("year-over-year change", "同比变化"),
    "spread": ("spread", "利差"),
    "ratio": ("ratio", "比值"),
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
    "annualized_return": ("annualised return (CAGR)", "年化收益率"),
    "annualized_volatility": ("annualised volatility", "年化波动率"),
    "worst_day": ("worst days", "单日最大跌幅"),
    "best_day": ("best days", "单日最大涨幅"),
    "extreme_days": ("best and worst days", "单日最大涨跌幅"),
    "investment_growth": ("growth of an investment", "投资增值"),
    "qoq": ("quarter-over-quarter change", "季度环比变化"),
    "mom": ("month-over-month change", "月度环比变化"),
    "pop": ("change on the previous period", "环比变化"),
    "annualized_qoq": ("annualised quarter-over-quarter change", "季度环比折年率"),
    "annualized_mom": ("annualised month-over-month change", "月度环比折年率"),
    "annualized_pop": ("annualised change on the previous period", "环比折年率"),
    "top_bottom": ("top and bottom", "首尾排名"),
}


class PlannerBase:
    """A plan under construction for one reading, and what was decided along the way."""

    def __init__(self, reading: Reading) -> None:
        self.r = reading
        self.builder = PlanBuilder()
        self.trace: list[str] = []  # the decisions, one line each, for the intent's trace
        self.problem: str | None = None  # why a measure could not be planned, said to the user
        self.horizon: int | None = None  # forecast steps (of the first forecast)
        self.history: tuple[date, date] | None = None  # a forecast's default fitting window
        # The main result: what a table shows when one is asked for and no measure made one.
        self.primary: str | None = None
        # The one figure per name a window's change gives (a period return): what a gap between
        # two parts subtracts, where the primary is a series over the window.
        self.figure: str | None = None
        self.volume: str | None = None  # the trading volume's step, once fetched

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
        if end is None and r.end is not None and r.after_months is not None:
            # an extreme's value months after it is asked: the data run that far past the window
            end = min(r.today, r.end + relativedelta(months=r.after_months))
        end = end if end is not None else r.end
        freq = freq if freq is not None else r.frequency
        window = {"start": iso(start), "end": iso(end), **self.base_arg()}
        prices = [e for e in entities if e.kind in PRICE_KINDS]
        series = [e for e in entities if e.kind in SERIES_KINDS]
        parts: list[str] = []
        price_freq = freq if freq in ("daily", "weekly", "monthly") else "daily"
        levered = bool(for_returns and r.leverage)
        if levered:
            price_freq = "daily"  # a daily leverage compounds each day's return
        span = f"{iso(start) or 'the start'} to {iso(end) or 'the end'}"
        span_zh = f"{iso(start) or '最早'}至{iso(end) or '最新'}"
        bar = None if for_returns else r.bar_field  # "the intraday high": that field's prices
        if prices:
            ids = [e.id for e in prices]
            if all(e.kind == "index" for e in prices) and bar is None:
                parts.append(
                    self.builder.add(
                        "get_index_levels",
                        {"ids": ids, **window, "freq": price_freq},
                        name="levels",
                        description=self._say(
                            f"Get {price_freq} levels of {', '.join(ids)}, {span}",
                            f"获取{'、'.join(ids)}的{ZH_FREQ[price_freq]}点位（{span_zh}）",
                        ),
                        task="data",
                    )
                )
            else:
                # Returns cross splits and dividends on adjusted closes; an index (or an import
                # without adjusted closes) falls back to its close inside `get_prices`.
                field = "adj_close" if for_returns or self.r.adjusted or r.basket else "close"
                field = bar or field
                parts.append(
                    self.builder.add(
                        "get_prices",
                        {"ids": ids, **window, "freq": price_freq, "field": field},
                        name="prices",
                        description=self._say(
                            f"Get {price_freq} {field.replace('_', ' ')} prices of "
                            f"{', '.join(ids)}, {span}",
                            f"获取{'、'.join(ids)}的{ZH_FREQ[price_freq]}收盘价（{span_zh}）",
                        ),
                        task="data",
                    )
                )
        if r.basket and parts and prices:
            parts[-1] = self._basket(parts[-1])
        if levered and parts:
            parts[-1] = self._leveraged(parts[-1])
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

    def _basket(self, prices: str) -> str:
        """The reading's basket of names, one buy-and-hold position beside the other prices."""
        assert self.r.basket is not None
        ids, weights, name = self.r.basket
        shares = ", ".join(f"{i} {w * 100:g}%" for i, w in zip(ids, weights, strict=True))
        return self.builder.add(
            "basket",
            {"frame": frame(prices), "members": ids, "weights": weights, "name": name},
            name="basket",
            description=self._say(
                f"Hold {shares} as one basket, bought at the start and never rebalanced",
                f"按{shares}组成一个组合，期初买入并持有，不再平衡",
            ),
            task="processing",
        )

    def _leveraged(self, prices: str) -> str:
        """The prices of a position held at the reading's daily leverage."""
        times = f"{self.r.leverage:g}"
        return self.builder.add(
            "leveraged",
            {"frame": frame(prices), "leverage": self.r.leverage},
            name="leveraged",
            description=self._say(
                f"Lever each day's return {times}x, compounded daily",
                f"每日收益率乘以{times}倍，按日复利",
            ),
            task="processing",
        )

    def base_arg(self) -> dict[str, str]:
        """The window's base convention for a data call, when the library takes one."""
        return {"base": self.r.base} if "base" in library().get("get_prices", ()) else {}

    def can(self, interface: str) -> bool:
        """Whether the built-in library has `interface` (the planner plans only what runs)."""
        return interface in library()

    def missing(self, interface: str, what: str, what_zh: str) -> None:
        """Say that a measure needs an interface this library does not have."""
        self.problem = (
            f"计算{what_zh}需要接口 {interface}，当前接口库中没有。"
            if self.r.zh
            else f"Answering {what} needs the {interface} interface, which this library lacks."
        )

    def _lookback(self, warm_up: Duration) -> date | None:
        """An earlier start, so a calculation over a trailing window is full from `start` on."""
        return warm_up.back(self.r.start) if self.r.start else None

    def _trim(self, data: str) -> str:
        """Cut a result back to the question's window after a warm-up."""
        r = self.r
        return self.builder.add(
            "filter_dates",
            {"frame": frame(data), "start": iso(r.start), "end": iso(r.end)},
            name=f"{data}_window",
            description=self._say(f"Keep {r.start} to {r.end}", f"保留{r.start}至{r.end}的数据"),
            task="processing",
        )

    def returns(self, levels: str, period: str = "daily", *, absolute: bool = False) -> str:
        """Period returns (in %) of every column of `levels`; their sizes with `absolute`."""
        args: dict[str, Any] = {"frame": frame(levels), "period": period}
        if absolute:
            args["absolute"] = True
        returns = self.builder.add(
            "compute_returns",
            args,
            name=f"{period}_{'absolute_' * absolute}returns",
            description=self._say(
                f"Compute {period} {'absolute ' * absolute}returns in %",
                f"计算{ZH_FREQ[period]}收益率{'的绝对值' * absolute}（%）",
            ),
            task="processing",
        )
        if period != "daily":
            return returns
        if self.r.without_extremes is not None:
            side, n = self.r.without_extremes
            returns = self.builder.add(
                "drop_extremes",
                {"frame": frame(returns), "which": side, "n": n},
                name=f"without_{side}_days",
                description=self._say(
                    f"Leave out the {side} {n} day(s)",
                    f"去掉{'跌幅' if side == 'worst' else '涨幅'}最大的{n}天",
                ),
                task="processing",
            )
        if not self.r.weekdays:
            return returns
        days = list(self.r.weekdays)
        return self.builder.add(
            "filter_dates",
            {"frame": frame(returns), "weekdays": days},
            name="weekday_returns",
            description=self._say(
                f"Keep the returns of {weekday_names(days, zh=False)} only",
                f"只保留{weekday_names(days, zh=True)}的收益率",
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

    def _rebased(self, data: str) -> str:
        """`data` with every series rebased to 100 at the start."""
        return self.builder.add(
            "normalize",
            {"frame": frame(data), "base": 100.0},
            name="normalized",
            description=self._say("Rebase every series to 100 at the start", "以起点为100归一化"),
            task="processing",
        )

    def _chart(self, interface: str, data: str, title: str, **extra: Any) -> str:
        """A chart of `data` by the plotting interface, with any extra arguments it takes."""
        args = {"frame": frame(data), "title": title, **extra}
        return self.builder.add(
            interface,
            args,
            name="chart",
            description=self._say(f"Draw: {title}", f"绘制：{title}"),
            task="visualization",
        )

    def _table(self, data: str, title: str, **extra: Any) -> str:
        """`data` shown as a table."""
        return self.builder.add(
            "show_table",
            {"frame": frame(data), "title": title, **extra},
            name="table",
            description=self._say(f"Show the table: {title}", f"列表展示：{title}"),
            task="visualization",
        )

    def _line_or(self, data: str, title: str) -> None:
        """The chart the user named (bar, area, pie) or a line chart, drawn with the options the
        user named (log scale, donut), unless only a table is wanted."""
        if self.r.table_only:
            return
        interface, options = self._form("plot_line")
        self._chart(interface, data, title, **options)

    def _form(self, default: str) -> tuple[str, dict[str, Any]]:
        """The plotting interface for the chart the user named (else `default`), and the drawing
        options they named that it takes."""
        r = self.r
        interface = {"bar": "plot_bar", "area": "plot_area", "pie": "plot_pie"}.get(
            r.chart or "", default
        )
        options: dict[str, Any] = {}
        if interface == "plot_line" and "log_y" in r.chart_options:
            options["log_y"] = True
        if interface == "plot_pie" and "donut" in r.chart_options:
            options["donut"] = True
        return interface, options

    def _title(self, what: str, entities: list[Entity] | None = None, window: bool = True) -> str:
        """A chart or table title: the entities' names, the measure and (by default) the window."""
        r = self.r
        entities = entities if entities is not None else r.entities
        if what == "close" and r.adjusted:
            what = "adjusted close"
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


@cache
def library() -> dict[str, frozenset[str]]:
    """The built-in interfaces and the arguments each takes."""
    from datapilot.engine.executor import default_registry

    registry = default_registry()
    return {name: frozenset(registry.get(name).params) for name in registry.names()}


def _names(entities: list[Entity], zh: bool) -> str:
    """The entities' names for a title: the first five, then how many more."""
    if zh:
        return "、".join(chinese_name(e) for e in entities[:5]) + (
            "等" if len(entities) > 5 else ""
        )
    shown = ", ".join(e.name for e in entities[:5])
    return shown + (f" and {len(entities) - 5} more" if len(entities) > 5 else "")


def iso(day: date | None) -> str | None:
    """A date as an interface argument; None (an open end) stays None."""
    return day.isoformat() if day else None
