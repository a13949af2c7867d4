"""The analyst families' plans: best and worst sub-periods, counts of sessions and the distance
from a peak, each one interface over the window's daily data and a table of its figures.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from datapilot.brains.offline.builder import frame
from datapilot.brains.offline.honour import TALLY
from datapilot.brains.offline.planning.base import ZH_FREQ, iso
from datapilot.brains.offline.planning.series_stats import SeriesStatistics

_AVERAGE = ("above_ma", "below_ma")
_RECORDS = ("record_high", "record_low")
_EXTREME_EN = {"best": "highest", "worst": "lowest", "both": "highest and the lowest"}
_EXTREME_ZH = {"best": "最高", "worst": "最低", "both": "最高和最低"}
_UNIT_EN = {"weekly": "week", "monthly": "month", "quarterly": "quarter", "annual": "year"}
_UNIT_ZH = {"weekly": "周", "monthly": "月", "quarterly": "季度", "annual": "年"}
_SIDE_ZH = {"best": "最好", "worst": "最差", "both": "最好和最差"}


def _counted_units(period: str) -> tuple[str, str]:
    """What one row of `period` returns is, in English and Chinese (session, 交易日; month, 月)."""
    return _UNIT_EN.get(period, "session"), (
        "交易日" if period == "daily" else _UNIT_ZH.get(period, "时段")
    )


class AnalystFamilies(SeriesStatistics):
    """Sub-period extremes, session counts and distances from a peak."""

    if TYPE_CHECKING:  # the planner's other mixins (`asked.AskedMeasures`, `levels.LevelCharts`)

        def _change(self, kind: str) -> None: ...

        def _volume(self) -> None: ...

        def _spread(self, metric: str = "spread") -> None: ...

    def _period_extremes(self) -> None:
        """Each period's return (the first from the close before the window), then the best
        and/or worst of them with their dates."""
        r = self.r
        if not self.can("period_extremes"):
            self.missing("period_extremes", "the best or worst periods", "最好或最差的时段")
            return
        if r.extreme_of != "returns":
            self._dated_extreme()
            return
        period = r.frequency or "monthly"
        data = self.levels(for_returns=True, freq="daily")
        returns = self.returns(data, period)
        which = r.period_sides
        n = r.top_k or 1
        args: dict[str, Any] = {"frame": frame(returns), "which": which, "n": n, "period": period}
        if r.extremes_gap and which == "both":
            args["gap"] = True  # "by how many points did the best quarter beat the worst"
        if r.claimed_period is not None and which != "both":
            args["claimed"] = iso(r.claimed_period)  # "…was 2009 — true?": that year checked
        extremes = self.builder.add(
            "period_extremes",
            args,
            name="period_extremes",
            description=self._say(
                f"Find the {which} {_UNIT_EN.get(period, period)}(s) by return",
                f"找出{ZH_FREQ.get(period, '')}收益率{_SIDE_ZH[which]}的{_UNIT_ZH.get(period, '')}",
            ),
            task="processing",
        )
        self.primary = extremes
        unit = _UNIT_EN.get(period, period)
        self._table(
            extremes,
            self._title(
                f"{which} {unit}" if not r.zh else f"{_SIDE_ZH[which]}的{_UNIT_ZH.get(period, '')}"
            ),
        )
        if not r.table_only:
            self._chart("plot_bar", returns, self._title("returns"))
        self.trace.append(
            self._say(
                f"{period} returns → the {which} {unit}(s) with the date and the return",
                f"{ZH_FREQ.get(period, '')}收益率 → {_SIDE_ZH[which]}的时段及其日期和收益率",
            )
        )

    def _dated_extreme(self) -> None:
        """The highest or lowest value of the series asked about (the closes, or the rolling
        volatility the question names), with its date."""
        r = self.r
        beside: str | None = None
        if r.extreme_of == "volatility":
            self._rolling_volatility()
            series = self.primary or self.levels(freq="daily")
        elif r.extreme_of == "correlation":
            self._rolling_correlation()
            series = self.primary or self.levels(freq="daily")
        elif r.extreme_of in ("yoy", "qoq", "mom", "pop"):
            self._change(r.extreme_of)  # "when was inflation highest": the change's extreme
            series = self.primary or self.levels()
        elif r.extreme_of == "period_mean" and r.period_label not in (None, "daily"):
            # A rate's highest quarter: each quarter's average level, then the highest (of the
            # spread when the spread is asked: "利差最低的三个月", never each leg's months).
            series = self.builder.add(
                "resample",
                {"frame": frame(self._spread_counted()), "freq": r.period_label, "how": "mean"},
                name=f"{r.period_label}_means",
                description=self._say(
                    f"Average the values of each {_UNIT_EN.get(r.period_label, r.period_label)}",
                    f"计算每个{_UNIT_ZH.get(r.period_label, '时段')}的平均值",
                ),
                task="processing",
            )
        elif r.extreme_of == "volume":
            if self.volume is None:
                self._volume()
            series = self.volume or self.levels(freq="daily")  # the shares, not the closes
        elif spread := self.builder.output_of("spread", last=True):
            series = spread  # "the widest the Baa-Aaa spread got": the spread's extreme
            # with the two series it is taken between on that date
            beside = self.levels()
        else:
            series = self.levels(freq="daily")
            if not r.table_only:
                self._chart("plot_line", series, self._title("close"))
        which = r.period_sides or "best"
        args: dict[str, Any] = {"frame": frame(series), "which": which, "n": r.top_k or 1}
        if r.period_label and r.period_label != "daily":
            args["period"] = r.period_label
        if beside is not None:
            args["beside"] = [frame(beside)]
        if r.after_months is not None and r.end is not None:
            # "…and six months after that peak month": the extreme in the window asked, its
            # value that many months later from the data read past the window (`levels`)
            args["within_end"] = iso(r.end)
            args["after_months"] = r.after_months
        extremes = self.builder.add(
            "period_extremes",
            args,
            name="extreme",
            description=self._say(
                f"Find the {_EXTREME_EN[which]} value and its date",
                f"找出{_EXTREME_ZH[which]}值及其日期",
            ),
            task="processing",
        )
        self.primary = extremes
        self._table(extremes, self._title("最值" if r.zh else "extreme"))

    def _streak(self) -> None:
        """The longest run of up (down) sessions in the window, with its first and last day."""
        r = self.r
        if not self.can("longest_streak"):
            self.missing("longest_streak", "a streak of sessions", "连涨连跌统计")
            return
        direction = r.streak_direction or (
            r.count_condition if r.count_condition in ("up", "down") else "down"
        )
        data = self.levels(for_returns=True, freq="daily")
        args: dict[str, Any] = {"frame": frame(data), "direction": direction}
        if r.start is not None:
            args["start"] = iso(r.start)
        up = direction == "up"
        streak = self.builder.add(
            "longest_streak",
            args,
            name="streak",
            description=self._say(
                f"Find the longest run of {direction} sessions",
                f"找出最长的连续{'上涨' if up else '下跌'}",
            ),
            task="processing",
        )
        self.primary = streak
        self._table(
            streak,
            self._title(
                "最长连涨" if up and r.zh else "最长连跌" if r.zh else f"longest {direction} streak"
            ),
        )

    def _conditional(self) -> None:
        """Each name's mean return over the periods another name fell (rose) in: the days the
        S&P 500 fell more than 2%, the months it closed down."""
        r = self.r
        ask = r.condition
        if ask is None or not self.can("returns_when"):
            self.missing("returns_when", "returns when another name moved", "按另一标的涨跌筛选")
            return
        data = self.levels(for_returns=True, freq="daily")
        returns = self.returns(data, ask.period)
        unit_en, unit_zh = _counted_units(ask.period)
        args: dict[str, Any] = {
            "frame": frame(returns),
            "condition": ask.entity,
            "side": ask.side,
            "threshold": ask.threshold,
        }
        moved_en = "fell" if ask.side == "down" else "rose"
        moved_zh = "下跌" if ask.side == "down" else "上涨"
        result = self.builder.add(
            "returns_when",
            args,
            name="when",
            description=self._say(
                f"Average each return over the {unit_en}s {ask.entity} {moved_en}"
                + (f" more than {ask.threshold:g}%" if ask.threshold else ""),
                f"计算{ask.entity}{moved_zh}"
                + (f"超过{ask.threshold:g}%" if ask.threshold else "")
                + f"的{unit_zh}里的平均收益率",
            ),
            task="processing",
        )
        self.primary = result
        self._table(
            result,
            self._title(
                f"{moved_zh}的{unit_zh}里的平均收益率"
                if r.zh
                else f"returns on {moved_en} {unit_en}s"
            ),
        )

    def _first_close(self) -> None:
        """The first session past a level (a number, or a day's close) in the window."""
        r = self.r
        if not self.can("first_close_past"):
            self.missing("first_close_past", "the first day past a level", "首次突破某水平的日期")
            return
        if r.threshold is None and r.level_day is None:
            # "first doubled from its March 2020 low": no day's close to multiply was said.
            self.problem = (
                f"我不确定“{r.level_multiple:g}倍”是以哪一天的收盘价为基准的；请说出那一天的日期。"
                if r.zh
                else f"I can't tell which day's close the level is {r.level_multiple:g}x of; "
                "please name the day (e.g. its March 23, 2020 close)."
            )
            return
        days = (r.start, r.level_day, r.level_from)
        start = min(d for d in days if d is not None) if r.start else None
        data = self.levels(freq="daily", start=start)
        args: dict[str, Any] = {"frame": frame(data), "side": r.count_condition or "above"}
        if r.threshold is not None:
            args["level"] = r.threshold
        if r.level_day is not None:
            args["level_day"] = iso(r.level_day)
            if r.level_multiple != 1.0:
                args["multiple"] = r.level_multiple  # "double that price", 翻倍
            if r.level_from is not None and r.level_extreme is not None:
                args["level_from"] = iso(r.level_from)  # "its February 2020 peak"
                args["extreme"] = r.level_extreme
            if r.start is not None and r.start > r.level_day:
                args["after"] = iso(r.start)  # "after the COVID crash"
        if r.count_inclusive:
            args["inclusive"] = True
        if r.first_back:
            args["back"] = True
        past = self.builder.add(
            "first_close_past",
            args,
            name="first_past",
            description=self._say(
                f"Find the first close {args['side']} the level",
                f"找出首次收盘{'高于' if args['side'] == 'above' else '低于'}该水平的日期",
            ),
            task="processing",
        )
        self.primary = past
        self._table(past, self._title("首次突破" if r.zh else "first close past the level"))

    def _count_days(self) -> None:
        """How many of the window's sessions met the condition asked."""
        r = self.r
        if not self.can("count_days"):
            self.missing("count_days", "a count of days", "天数统计")
            return
        condition = r.count_condition or "sessions"
        if r.frequency not in (None, "daily") and condition in ("up", "down", "both"):
            self._up_and_down_days(r.frequency)  # "how many months was it up": months counted
            return
        coarse = [e for e in r.entities if e.frequency not in (None, "daily")]
        if (
            coarse
            and len(coarse) == len(r.entities)
            and all(e.frequency == r.frequency for e in coarse)
            and condition in ("close_above", "close_below")
        ):
            self._count_values(condition)  # "how many months was Brent above $100": its values
            return
        if coarse:  # a monthly series has no days to count: never its months called sessions
            names = ", ".join(f"{e.name} ({e.id}, {e.frequency})" for e in coarse)
            self.problem = (
                f"{names}没有每日数据，无法统计满足条件的天数；我不会把月度或季度的观测值当作交易日来数。"
                if r.zh
                else f"{names} has no daily data, so I can't count days meeting the condition; "
                "I won't count its monthly or quarterly values as if they were trading days."
            )
            return
        if condition == "both":
            self._up_and_down_days()
            return
        on_moves = condition not in ("close_above", "close_below", "sessions", *_AVERAGE, *_RECORDS)
        warm = None
        if condition in _AVERAGE and r.start is not None and r.threshold is not None:
            # The average needs N sessions before the window: about 1.5 calendar days each.
            warm = r.start - timedelta(days=int(r.threshold * 1.5) + 10)
        firsts = [e.first for e in r.entities if e.first is not None]
        if condition in _RECORDS and r.start is not None and firsts:
            warm = min(firsts)  # a record beats every close in the data before it
        also = [c for c in r.counted_also if c[0] not in (*_AVERAGE, *_RECORDS)]
        on_moves = on_moves or any(c[0] not in ("close_above", "close_below") for c in also)
        data = self.levels(for_returns=on_moves, freq="daily", start=warm)
        counts = [(condition, r.threshold, r.count_inclusive), *also]
        for n, (said, threshold, inclusive) in enumerate(counts, 1):
            args: dict[str, Any] = {"frame": frame(data), "condition": said}
            if warm is not None:
                args["start"] = iso(r.start)
            if threshold is not None:
                args["threshold"] = threshold
            if inclusive:
                args["inclusive"] = True
            level = f" {threshold:g}" if threshold is not None else ""
            counted = self.builder.add(
                "count_days",
                args,
                name="count_days" if n == 1 else f"count_days_{n}",
                description=self._say(
                    f"Count the sessions: {said}{level}", f"统计满足条件的交易日：{said}{level}"
                ),
                task="processing",
            )
            if n == 1:
                self.primary = counted
            self._table(counted, self._title("count" if not r.zh else "交易日计数"))
        self.trace.append(
            self._say(
                "counted on the window's sessions in the data → a table",
                "按数据中的交易日计数 → 表格",
            )
        )

    def _spread_counted(self) -> str:
        """What a count of values reads: the change asked of the series (its year-over-year
        rate), or the spread of the two series when the question asks about their spread ("how
        many months was the Baa-Aaa spread above 2.5 points"), never each series on its own;
        else the series' levels."""
        changed = next((k for k in ("yoy", "qoq", "mom") if k in self.r.metrics), None)
        if changed is not None:
            # "核心CPI同比…高于8%的有几个月": the year-over-year rates counted, never the index
            self._change(changed)
            return self.primary or self.levels()
        if "spread" not in self.r.metrics or len(self.r.entities) != 2:
            return self.levels()
        if self.builder.output_of("spread") is None:
            self._spread()
        # (the latest: the spread of the part being planned, not an earlier part's)
        return self.builder.output_of("spread", last=True) or self.levels()

    def _count_values(self, condition: str) -> None:
        """How many of a monthly or quarterly series' values in the window met a level."""
        r = self.r
        args: dict[str, Any] = {"frame": frame(self._spread_counted()), "condition": condition}
        if r.threshold is not None:
            args["threshold"] = r.threshold
        if r.count_inclusive:
            args["inclusive"] = True
        said = f"{condition} {r.threshold:g}" if r.threshold is not None else condition
        counted = self.builder.add(
            "count_days",
            args,
            name="count_days",
            description=self._say(f"Count the values: {said}", f"统计满足条件的观测值：{said}"),
            task="processing",
        )
        self.primary = counted
        self._table(counted, self._title("count" if not r.zh else "计数"))

    def _ma_cross(self) -> None:
        """The sessions the fast moving average crossed the slow one, averages warmed first."""
        r = self.r
        if not self.can("ma_crosses") or len(r.ma_windows) != 2:
            self.missing("ma_crosses", "moving-average crosses", "均线交叉")
            return
        fast, slow = r.ma_windows
        direction = r.count_condition if r.count_condition in ("above", "below") else "above"
        warm = r.start - timedelta(days=int(max(fast, slow) * 1.5) + 10) if r.start else None
        data = self.levels(freq="daily", start=warm)
        args: dict[str, Any] = {"frame": frame(data), "fast": fast, "slow": slow}
        args["direction"] = direction
        if r.start is not None:
            args["start"] = iso(r.start)
        up = direction == "above"
        crosses = self.builder.add(
            "ma_crosses",
            args,
            name="crosses",
            description=self._say(
                f"Find when the {fast}-day average crossed {direction} the {slow}-day",
                f"找出{fast}日均线{'上穿' if up else '下穿'}{slow}日均线的日期",
            ),
            task="processing",
        )
        self.primary = crosses
        self._table(crosses, self._title("均线交叉" if r.zh else "moving-average crosses"))

    def _up_and_down_days(self, period: str = "daily") -> None:
        """ "Up days vs down days": the window's sessions (or months, quarters…: each on the
        previous one's last close) up and down, unchanged ones apart."""
        r = self.r
        data = self.levels(for_returns=True, freq="daily")
        returns = self.returns(data, period)
        unit_en, unit_zh = _counted_units(period)
        signs = self.builder.add(
            "count_signs",
            {"frame": frame(returns), "period": period},
            name="signs",
            description=self._say(
                f"Count the {unit_en}s up and down", f"统计上涨和下跌的{unit_zh}数"
            ),
            task="processing",
        )
        self.primary = signs
        self._table(
            signs, self._title(f"上涨与下跌的{unit_zh}数" if r.zh else f"{unit_en}s up and down")
        )

    def _tally(self) -> None:
        """ "…and how many months were positive": the periods up and down, counted on the
        period returns the plan computed (monthly returns of an average, of a best month)."""
        r = self.r
        if not TALLY.search(r.text) or not self.can("count_signs"):
            return
        if self.builder.has("count_signs"):
            return  # the periods are what the question counts: already counted
        computed = [
            c
            for c in self.builder.calls()
            if c.interface == "compute_returns" and c.args.get("period") not in (None, "daily")
        ]
        if not computed:
            return
        period = str(computed[0].args["period"])
        signs = self.builder.add(
            "count_signs",
            {"frame": frame(computed[0].output), "period": period},
            name="signs",
            description=self._say(
                f"Count the {_UNIT_EN.get(period, period)}s up and down",
                f"统计上涨和下跌的{_UNIT_ZH.get(period, '时段')}数",
            ),
            task="processing",
        )
        self._table(signs, self._title("上涨与下跌的时段数" if r.zh else "periods up and down"))

    def _distance(self) -> None:
        """How far the last value is from the window's high (or low), with the peak's date."""
        r = self.r
        if not self.can("distance_from_peak"):
            self.missing("distance_from_peak", "the distance from a peak", "离高点的距离")
            return
        data = self.levels(freq="daily")
        distance = self.builder.add(
            "distance_from_peak",
            {"frame": frame(data), "side": r.peak_side},
            name="distance",
            description=self._say(
                f"Compare the last close with the window's {r.peak_side}",
                f"比较最新收盘价与区间{'最高' if r.peak_side == 'high' else '最低'}点",
            ),
            task="processing",
        )
        self.primary = distance
        word = "high" if r.peak_side == "high" else "low"
        self._table(
            distance,
            self._title(
                f"distance from the {word}"
                if not r.zh
                else f"距区间{'最高' if word == 'high' else '最低'}点"
            ),
        )
        if not r.table_only:
            self._chart("plot_line", data, self._title("close"))
        self.trace.append(
            self._say(
                f"distance from the {word}: (last / {word} − 1) × 100, the {word} dated",
                f"离{'最高' if word == 'high' else '最低'}点的距离：(最新 / 极值 − 1) × 100",
            )
        )
