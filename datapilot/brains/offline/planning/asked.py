"""Measures that answer with a number the question names: growth on an earlier period (yoy, qoq,
mom, 环比), the compound annual return, the best and worst days, the value of an investment, and
a statistic across a list of entities (Data-Copilot's loop: each member's measure, then the mean
or median of them).
"""

from __future__ import annotations

from typing import Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.periods import Duration
from datapilot.brains.offline.planning.base import SHOWN_AS, STAT_INTERFACES, ZH_STAT
from datapilot.brains.offline.planning.performance import PerformanceMeasures

# What each change compares with, in words, and how far back its data must start.
_CHANGES = {
    "yoy": ("the same period a year earlier", "上年同期", Duration(1, "year")),
    "qoq": ("the previous quarter", "上一季度", Duration(1, "quarter")),
    "mom": ("the previous month", "上个月", Duration(1, "month")),
    "pop": ("the previous period of the data", "上一期", Duration(1, "year")),
}
DEFAULT_INVESTMENT = 10_000.0


class AskedMeasures(PerformanceMeasures):
    """Named measures answered by one interface each, shown as the number (table) first."""

    def _change(self, kind: str) -> None:
        """Percent change on an earlier period, fetched early so it is defined from the start."""
        english, chinese, back = _CHANGES[kind]
        data = self.levels(start=self._lookback(back))
        # "annualized q/q", 环比折年率: each change compounded to a year (a yoy is yearly already)
        annualize = self.r.annualize and kind != "yoy"
        args: dict[str, object] = {"frame": frame(data), "kind": kind}
        if annualize:
            args["annualize"] = True
        change = self.builder.add(
            "pct_change",
            args,
            name=kind,
            description=self._say(
                f"Compute the change in % on {english}", f"计算相对{chinese}的变化（%）"
            ),
            task="processing",
        )
        change = self._trim(change)
        self.primary = change
        self._line_or(change, self._title(f"annualized_{kind}" if annualize else kind))
        self.trace.append(
            self._say(
                f"{kind}: the change in % on {english}, compounded to a yearly rate",
                f"相对{chinese}的变化（%），折成年率",
            )
            if annualize
            else self._say(
                f"{kind}: the simple change in % on {english}, not annualised",
                f"相对{chinese}的简单变化（%），未年化",
            )
        )

    def _annualized_return(self) -> None:
        """The CAGR of each entity from the window's base to its last close: a table (bars too
        when several, ranked when asked)."""
        r = self.r
        if r.rank:
            self._ranking("annualized_return")
            return
        table, column, _ = self._cross("annualized_return")
        self.primary = table
        title = self._title("annualized_return")
        if len(r.entities) > 1 and not r.table_only:
            self._chart("plot_bar", table, title, column=column)
        self._table(table, title)
        self.trace.append(
            self._say(
                "annualised return: (end / base)^(1 / years) − 1, years = days / 365.25 "
                "(for monthly or quarterly values: months / 12)",
                "年化收益率：(期末 / 基期)^(1 / 年数) − 1，年数 = 天数 / 365.25"
                "（月度或季度数据：月数 / 12）",
            )
        )

    def _extreme_days(self) -> None:
        """The days with the largest daily fall and/or rise, as a table."""
        r = self.r
        if not self.can("extreme_days"):
            self.missing("extreme_days", "the best or worst days", "单日最大涨跌幅")
            return
        which = {"worst_day", "best_day"} & set(r.metrics)
        side = "both" if len(which) == 2 else ("worst" if "worst_day" in which else "best")
        n = r.days or r.top_k or 1
        data = self.levels(for_returns=True, freq="daily")
        args: dict[str, Any] = {"frame": frame(data), "n": n, "which": side}
        span = r.day_span
        if span > 1:  # "the worst 5-day drop": changes over that many sessions
            args["span"] = span
        days = self.builder.add(
            "extreme_days",
            args,
            name="extreme_days",
            description=self._say(
                f"Find the {n} {side} day(s) by daily return"
                if span == 1
                else f"Find the {n} {side} {span}-session change(s)",
                f"找出日收益率{'最低' if side == 'worst' else '最高'}的{n}天"
                if span == 1
                else f"找出{span}个交易日涨跌幅{'最低' if side == 'worst' else '最高'}的{n}段",
            ),
            task="processing",
        )
        self.primary = days
        what = {"worst": "worst_day", "best": "best_day", "both": "extreme_days"}[side]
        if span > 1:
            zh_side = {"worst": "最大跌幅", "best": "最大涨幅", "both": "最大涨跌幅"}[side]
            en_side = {"worst": "worst", "best": "best", "both": "best and worst"}[side]
            what = f"{span}个交易日{zh_side}" if r.zh else f"{en_side} {span}-session changes"
        self._table(days, self._title(what))
        self.trace.append(
            self._say(
                f"{side} {n} day(s) by daily simple return (%) → a table",
                f"按日收益率（%）找出{n}天 → 表格",
            )
        )

    def _investment(self) -> None:
        """The value over time of a sum invested at the base close, and its final value."""
        r = self.r
        if not self.can("investment_growth"):
            self.missing("investment_growth", "the value of an investment", "投资增值")
            return
        amount = r.amount or DEFAULT_INVESTMENT
        data = self.levels(for_returns=True, freq="daily")
        growth = self.builder.add(
            "investment_growth",
            {"frame": frame(data), "amount": amount},
            name="investment",
            description=self._say(
                f"Value of {amount:,.0f} invested at the start", f"计算起点投入{amount:,.0f}的价值"
            ),
            task="processing",
        )
        self.primary = growth
        title = self._title("investment_growth")
        if not r.table_only:
            self._chart("plot_line", growth, title)
        final = self.builder.add(
            "head_rows",
            {"frame": frame(growth), "n": 1, "last": True},
            name="final_value",
            description=self._say("Keep the final value", "取期末价值"),
            task="processing",
        )
        self._table(
            final,
            self._say(f"Final value of {amount:,.0f} invested", f"投入{amount:,.0f}的期末价值"),
        )
        said = "" if r.amount else " (no amount given: 10,000)"
        self.trace.append(
            self._say(
                f"{amount:,.0f} invested at the base close{said} → its value over time",
                f"基期收盘时投入{amount:,.0f} → 其价值走势",
            )
        )

    def _periodic_investment(self) -> None:
        """The same sum bought every period of the window (定投) and its value at the end."""
        r = self.r
        if not self.can("periodic_investment"):
            self.missing("periodic_investment", "regular buying", "定投")
            return
        every, on = r.contributions or ("monthly", "first")
        amount = r.amount or DEFAULT_INVESTMENT
        data = self.levels(freq="daily")
        bought = self.builder.add(
            "periodic_investment",
            {"frame": frame(data), "amount": amount, "every": every, "on": on},
            name="contributions",
            description=self._say(
                f"Buy {amount:,.0f} {every} at the {on} session's close and value the holding",
                f"定投{amount:,.0f}并计算期末市值",
            ),
            task="processing",
        )
        self.primary = bought
        self._table(bought, self._say(f"{amount:,.0f} bought {every}", f"定投{amount:,.0f}"))
        if not r.table_only:
            self._chart("plot_line", data, self._title("close"))

    def _list_statistic(self, stats: list[str], measure: str) -> None:
        """Each entity's `measure`, ranked in a table, and its mean/median across them."""
        r = self.r
        cross, column, high_first = self._cross(measure)
        ranked = self.builder.add(
            "rank",
            {"frame": frame(cross), "by": column, "ascending": not high_first},
            name="ranked",
            description=self._say("Rank the members", "对各成员排序"),
            task="processing",
        )
        values = self.builder.add(
            "select_columns",
            {"frame": frame(cross), "columns": [column]},
            name="values",
            description=self._say(f"Keep {column}", f"保留{column}"),
            task="processing",
        )
        for stat in stats:
            result = self.builder.add(
                STAT_INTERFACES.get(stat, stat),
                {"frame": frame(values)},
                name=f"{stat}_of_{measure}",
                description=self._say(
                    f"The {stat} across the {len(r.entities)} entities",
                    f"计算{len(r.entities)}个对象的{ZH_STAT[stat]}",
                ),
                task="processing",
            )
            self.primary = self.primary or result
            label = self._title(SHOWN_AS.get(measure, measure), window=True)
            self._table(
                result,
                f"{label}的{ZH_STAT[stat]}" if r.zh else f"{stat} across: {label}",
            )
        self._table(ranked, self._title(SHOWN_AS.get(measure, measure)))
        self.trace.append(
            self._say(
                f"{'/'.join(stats)} of each one's {measure} across {len(r.entities)} entities "
                "→ the members ranked, then the statistic",
                f"先算{len(r.entities)}个对象各自的指标并排序，再求统计量",
            )
        )
