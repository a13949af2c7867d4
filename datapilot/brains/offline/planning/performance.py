"""Returns and risk: cumulative and period returns, rankings, volatility, Sharpe, beta,
drawdown, correlation and descriptive statistics.
"""

from __future__ import annotations

import re
from typing import Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.honour import in_percent
from datapilot.brains.offline.level_changes import asks_level_change, asks_rate_change
from datapilot.brains.offline.margins import (
    asks_gap,
    sets_names_against_each_other,
    statistic_of_the_spread,
)
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.planning.base import (
    SHOWN_AS,
    STAT_INTERFACES,
    ZH_FREQ,
    ZH_STAT,
    PlannerBase,
    iso,
)

# A length said of the volatility itself ("30-day volatility", "20 day vol", 30日波动率,
# 20天滚动波动率), not of another measure in the question ("20-day MA …, plus the volatility").
_OWN_LENGTH = re.compile(
    r"(?i)\b\d+[-\s]?(?:day|d|week|month)s?\s+"
    r"(?:(?:rolling|realized|realised|historical|trailing|annuali[sz]ed)\s+){0,2}(?:volatility|vol)\b"
    r"|\d+\s*(?:日|天|个交易日|周)\s*(?:滚动)?\s*(?:的)?\s*(?:年化)?\s*波动率"
)
# The column a ranking sorts by, as said in each language.
_RANK_WORDS = {
    "return_pct": ("return over the window", "区间收益率"),
    "std": ("volatility (standard deviation of daily returns)", "波动率（日收益率标准差）"),
    "max_drawdown_pct": ("maximum drawdown", "最大回撤"),
    "sharpe": ("Sharpe ratio", "夏普比率"),
    "beta": ("beta", "贝塔系数"),
    "annualized_return_pct": ("annualised return (CAGR)", "年化收益率"),
    "annualized_volatility_pct": ("annualised volatility", "年化波动率"),
}
# Per-entity measures of daily levels: interface, column, higher is better, step description.
_CROSS = {
    "annualized_return": (
        "annualized_return",
        "annualized_return_pct",
        True,
        "Compute each one's compound annual growth rate (CAGR)",
        "计算各自的年化收益率（复合年增长率）",
    ),
    "volatility": (
        "annualized_volatility",
        "annualized_volatility_pct",
        True,
        "Compute each one's annualised volatility of daily returns",
        "计算各自日收益率的年化波动率",
    ),
    "max_drawdown": (
        "max_drawdown",
        "max_drawdown_pct",
        False,
        "Find each one's maximum drawdown on daily closes",
        "按日收盘价计算各自的最大回撤",
    ),
}


# Measures that ask for a series' changes: a correlation of them is one of changes.
_CHANGES = {"pop", "yoy", "return", "qoq", "mom"}


class PerformanceMeasures(PlannerBase):
    """Measures computed from returns, charted over time or ranked across entities."""

    def _returns(self, metric: str) -> None:
        """Returns per period at an asked frequency, else cumulative; ranked when asked to rank."""
        r = self.r
        if "period_extremes" in r.metrics:
            # "gain in 2021, and its worst month": the window's return beside the sub-periods.
            cross, _, _ = self._cross("return")
            self._table(cross, self._title("return"))
            return
        if r.rank and len(r.entities) >= 2:  # one name left (the other has no data): no ranking
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
            if period != "daily":
                # Each month's, quarter's or year's return is a figure the user reads off: a
                # table of them, not only bars.
                self._table(series, self._title("returns"))
            daily = period == "daily"
            self.trace.append(
                self._say(
                    f"{period} returns → {'line chart' if daily else 'bar chart and a table'}",
                    f"{ZH_FREQ[period]}收益率 → {'折线图' if daily else '柱状图和表格'}",
                )
            )
            return
        if metric == "return" and (len(r.entities) == 1 or r.multiple):
            self._window_change(data)  # (each name's multiple: "how many times over did each grow")
        if r.normalize:
            # "Rebased to 100" shows the same growth as the cumulative return, as an index.
            rebased = self._rebased(data)
            self.primary = rebased
            self._line_or(rebased, self._title("normalized"))
            return
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

    def _window_change(self, data: str) -> None:
        """The return between the window's two ends as a table, with the difference in the
        level's unit when one was asked ("how many points", 涨了多少点)."""
        r = self.r
        args: dict[str, Any] = {"frame": frame(data), "start": iso(r.start), "end": iso(r.end)}
        percent = in_percent(r)
        if (asks_level_change(r.text) and not percent) or (percent and asks_rate_change(r.text)):
            args["difference"] = True
        if r.multiple:
            args["multiple"] = True  # 涨了几倍: the end over the start, beside the return
        table = self.builder.add(
            "period_return",
            args,
            name="period_return",
            description=self._say("Compute the return over the window", "计算区间收益率"),
            task="processing",
        )
        self.figure = table
        self._table(table, self._title("return"))

    def _cross(self, measure: str) -> tuple[str, str, bool]:
        """One row per entity holding `measure`: the output, its column, and whether higher is
        better (a drawdown is negative, so its largest is its lowest)."""
        r = self.r
        ids = [e.id for e in r.entities]
        if measure == "return":
            if r.series_entities or r.basket:  # levels read first: a basket is one of them
                args: dict[str, Any] = {"frame": frame(self.levels())}
                args |= {"start": iso(r.start), "end": iso(r.end)}
                cross = self.builder.add(
                    "period_return",
                    args | ({"multiple": True} if r.multiple else {}),
                    name="period_returns",
                    description=self._say(
                        "Compute each one's return over the window", "计算各自的区间收益率"
                    ),
                    task="processing",
                )
            else:
                cross = self.builder.add(
                    "cross_section_returns",
                    {"ids": ids, "start": iso(r.start), "end": iso(r.end), **self.base_arg()}
                    | ({"multiple": True} if r.multiple else {}),
                    name="returns",
                    description=self._say(
                        f"Compute the return of {', '.join(ids)} over the window",
                        f"计算{'、'.join(ids)}的区间收益率",
                    ),
                    task="processing",
                )
            return cross, "return_pct", True
        daily = self.levels(for_returns=True, freq="daily")
        interface, column, better, english, chinese = _CROSS[measure]
        if not self.can(interface):  # an older library: the std of daily returns
            interface, column, english, chinese = (
                "summary_stats",
                "std",
                "Summarise daily returns (std = daily volatility)",
                "统计日收益率（标准差即日波动率）",
            )
        cross = self.builder.add(
            interface,
            {"frame": frame(daily)},
            name=interface,
            description=self._say(english, chinese),
            task="processing",
        )
        return cross, column, better

    def _ranking(self, measure: str) -> None:
        """A measure of each entity, ranked as bars and/or a table (top and bottom if asked)."""
        r = self.r
        cross, by, higher_better = self._cross(measure)
        descending = higher_better != r.ascending
        if r.both_ends and not self.can("top_bottom"):
            self.missing("top_bottom", "the top and the bottom of a ranking", "首尾排名")
            return
        # "by how many percentage points", "the difference between the two CAGRs"
        # (a gap claimed between two names, "trailed the S&P 500 by about 19 points", is asked)
        claimed = r.claim is not None and r.claim.leader is not None
        # "did Apple beat the S&P 500", 跑赢了吗: between two names, by how much is the answer
        raced = (
            len(r.entities) == 2
            and r.frequency is None  # "year by year": each year's race, not one gap
            and sets_names_against_each_other(r.text)
        )
        gap = by in ("return_pct", "annualized_return_pct") and bool(
            asks_gap(r.text) or claimed or raced
        )
        if r.both_ends and not gap:
            # No count said: three each, but never more than half the names, so both ends
            # stay apart (four names → the top 2 and the bottom 2).
            n = r.top_k or max(1, min(3, len(r.entities) // 2))
            ranked = self.builder.add(
                "top_bottom",
                {"frame": frame(cross), "by": by, "n": n},
                name="top_bottom",
                description=self._say(
                    f"Keep the top {n} and the bottom {n} by {_RANK_WORDS[by][0]}",
                    f"按{_RANK_WORDS[by][1]}取前{n}名和后{n}名",
                ),
                task="processing",
            )
            self.trace.append(self._say(f"top {n} and bottom {n} → both ends", f"前{n}名和后{n}名"))
        else:
            args: dict[str, Any] = {"frame": frame(cross), "by": by, "ascending": not descending}
            if r.top_k and not r.both_ends and not gap:  # "which one … beat the worst one"
                args["top_k"] = r.top_k
            if gap and r.benchmark in {e.id for e in r.entities}:
                # "which outperformed the S&P 500, and by how many points each": each against it
                args["against"] = r.benchmark
            elif gap:  # the whole ranking, so its last row's gap is the best's lead on the worst
                args["gap"] = True
            ranked = self.builder.add(
                "rank",
                args,
                name="ranked",
                description=self._say(
                    f"Rank by {_RANK_WORDS[by][0]}", f"按{_RANK_WORDS[by][1]}排序"
                ),
                task="processing",
            )
        self.primary = ranked
        title = self._title(SHOWN_AS.get(measure, measure))
        if not r.table_only:
            self._chart("plot_bar", ranked, title, column=by)
        if r.table or r.question_form or r.table_only or r.both_ends:
            self._table(ranked, title)

    def _volatility(self) -> None:
        """A rolling chart when rolling (or a window) is asked; one annualised number per entity
        when annualised or asked as a question; a plain "volatility" gets both."""
        r = self.r
        if r.rank:
            self._ranking("volatility")
            return
        rolling = r.rolling or r.window is not None or r.plot_asked
        # The annualised figure unless only the rolling path was asked ("rolling volatility"):
        # "a price chart …, plus the volatility" wants the number beside the chart. A length
        # of the measure's own ("Apple's 30-day volatility", 30日波动率) asks the rolling
        # figure, whose last value is the one asked: never the whole window's volatility.
        own_length = r.window is not None and _OWN_LENGTH.search(r.text) is not None
        number = not (r.rolling or own_length) or r.table
        if rolling or not (r.annualize or r.question_form):
            self._rolling_volatility()
        if number:
            table, column, _ = self._cross("volatility")
            self.primary = self.primary or table
            title = self._title("annualized_volatility")
            if len(r.entities) > 1 and not r.table_only:
                self._chart("plot_bar", table, title, column=column)
            self._table(table, title)
            self.trace.append(
                self._say(
                    "annualised volatility: std of daily returns × √252 (√12 monthly) → a table",
                    "年化波动率：日收益率标准差 × √252（月度 √12）→ 表格",
                )
            )

    def _rolling_volatility(self) -> None:
        """Rolling annualised volatility, warmed up before the window."""
        r = self.r
        days = r.window or 30
        warm_up = Duration(days * 1.5 + 5, "day")
        data = self.levels(for_returns=True, start=self._lookback(warm_up), freq="daily")
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

    def _sharpe(self) -> None:
        """Annualised Sharpe ratio (with annual return and volatility) per entity."""
        r = self.r
        table = self.builder.add(
            "sharpe_ratio",
            {
                "frame": frame(self.levels(for_returns=True, freq="daily")),
                "risk_free": r.risk_free or 0.0,
            },
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
            {"frame": frame(self.levels(for_returns=True, freq="daily")), "market": market.id},
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
        """The maximum drawdown as a table and the drawdown curve as an area chart, once a plan."""
        r = self.r
        if self.builder.has("max_drawdown") or self.builder.has("drawdown"):
            return
        if r.rank:
            self._ranking("max_drawdown")
            return
        # On daily closes whatever frequency the question's other measures use: a drawdown
        # between annual closes hides every fall inside the year.
        data = self.levels(for_returns=True, freq="daily")
        # A recovery from a named fall: that fall's trough, not a deeper one after it.
        by: dict[str, str] = {"trough_by": r.trough_by.isoformat()} if r.trough_by else {}
        if r.peak_within is not None:  # a recovery from a peak named by its period
            by = {
                "peak_from": r.peak_within[0].isoformat(),
                "peak_by": r.peak_within[1].isoformat(),
                **({"trough_by": r.trough_by.isoformat()} if r.trough_by else {}),
            }
        worst = self.builder.add(
            "max_drawdown",
            {"frame": frame(data), **by},
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
        """The correlation matrix (of returns when prices are involved) and a scatter of two."""
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
        # Of returns when prices are involved, and of any series whose changes are asked
        # ("monthly % changes of WTI and Brent"), never of their levels then.
        if r.price_entities or set(r.metrics) & _CHANGES:
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

    def _statistics(self, which: list[str]) -> None:
        """Mean, median and/or summary statistics of the levels (or returns), in one table."""
        r = self.r
        of_returns = not r.stats_of_levels and any(
            m in r.metrics for m in ("return", "cumulative_return")
        )
        # "IBM's average daily volume": the statistic of the volume, not of the close.
        of_volume = not of_returns and self.volume is not None
        data = self.volume if self.volume is not None and of_volume else None
        of_spread = not of_returns and "spread" in r.metrics and self.builder.has("spread")
        if of_spread:
            data = "spread"  # "the average Brent minus WTI spread": the spread's statistic
            if not statistic_of_the_spread(r.text):
                # "the 2013 average prices of Brent and WTI, and Brent's premium": each
                # series' statistic beside the spread's
                data = self._merged(
                    [self.levels(), "spread"],
                    "series_and_spread",
                    self._say("Put the series beside their spread", "把序列与其价差并列"),
                )
        if data is None:
            data = self.levels(for_returns=of_returns)
        if of_returns:
            data = self.returns(data, r.frequency or "daily", absolute=r.absolute)
        parts = []
        for metric in which:
            interface = STAT_INTERFACES.get(metric, metric)
            parts.append(
                self.builder.add(
                    interface,
                    {"frame": frame(data)},
                    name=metric,
                    description=self._say(
                        f"Compute the {metric.replace('stats', 'summary statistics')}",
                        f"计算{ZH_STAT[metric]}",
                    ),
                    task="processing",
                )
            )
        result = self._merged(
            parts, "statistics", self._say("Put the statistics side by side", "合并统计结果")
        )
        self.primary = result
        what = "returns" if of_returns else ("close" if r.price_entities else "value")
        what = "volume" if of_volume else ("spread" if of_spread else what)
        label = " / ".join(which).replace("stats", "summary statistics")
        title = self._title(what)
        if r.zh:
            self._table(result, f"{title}的{'、'.join(ZH_STAT[m] for m in which)}")
        else:
            self._table(result, f"{label}: {title}")
        self.trace.append(f"{label} → a table")
