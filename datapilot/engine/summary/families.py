"""Answer sentences of the analyst families: the best/worst sub-periods, counts of sessions and
the distance from a peak. Each headline states the figure asked for, with its dates; numbers are
written by `format_value`, as every fact is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from datapilot.core.results import Fact
from datapilot.data.display import column_name
from datapilot.engine.facts import format_value
from datapilot.engine.summary.anchored import from_day_sentences
from datapilot.engine.summary.conditional import conditional_sentences
from datapilot.engine.summary.contributions import contribution_sentences
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.kinds import Said
from datapilot.engine.summary.phrasing import after_name, days_between
from datapilot.engine.summary.phrasing import possessive as _poss
from datapilot.engine.summary.phrasing import when_said as _when
from datapilot.engine.summary.ratios import ratio_sentences
from datapilot.engine.summary.statistics import returns_base_day
from datapilot.interfaces.frame import column_unit
from datapilot.interfaces.periods import DATED_CONDITIONS

_UNIT = {"daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter"}
_UNIT |= {"annual": "year"}
_UNIT_ZH = {"daily": "一天", "weekly": "一周", "monthly": "一个月", "quarterly": "一个季度"}
_UNIT_ZH |= {"annual": "一年"}
_ZH_EACH = {"daily": "一天", "weekly": "一周", "monthly": "月份", "quarterly": "季度"}
_ZH_EACH |= {"annual": "年份"}
_COUNT_ZH = {2: "两", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十"}


def _said(said: Said, value: float, unit: str) -> str:
    """A value with its unit in the answer's language (美元, 点)."""
    return said.w.value(Fact(label="", value=value, unit=unit or None))


def _ids(frame: pd.DataFrame) -> list[str]:
    return [str(i) for i in frame.index]


def _zh_period(label: str, period: str) -> str:
    if period == "monthly" and len(label) == 7:
        return f"{label[:4]}年{int(label[5:])}月（{label}）"
    if period == "quarterly" and "Q" in label:
        year, quarter = label.split("Q")
        return f"{year}年第{'一二三四'[int(quarter) - 1]}季度（{label}）"
    if period == "annual":
        return f"{label}年"
    if period == "weekly":
        days, _, iso = label.partition(" (")
        first, _, last = days.partition(" to ")
        return f"{first}至{last}这一周（{iso.rstrip(')')}）" if last else label
    return label


def _period_extremes(step: Step, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    of = str(frame.attrs.get("of") or "")
    if "return" not in of.lower():
        return _dated_extremes(step, said, of)
    period = str(frame.attrs.get("period") or "monthly")
    unit = column_unit(frame, "value")
    sentences = []
    seen: dict[tuple[str, str], list[str]] = {}
    claims: list[str] = []
    for subject, row in zip(_ids(frame), frame.itertuples(index=False), strict=True):
        value = format_value(float(row.value), unit)
        if row.group == "claimed":
            claims.append(_claim_checked(subject, row, value, period, frame, said))
            continue
        if w.zh:
            seen.setdefault((subject, str(row.group)), []).append(
                f"{_zh_period(str(row.period), period)}，{value}"
            )
        elif period == "weekly" and " (" in str(row.period):  # the week 2022-06-13 to …
            days, _, iso = str(row.period).partition(" (")
            said_week = f"the week {days} ({iso.rstrip(')')}, {value})"
            seen.setdefault((subject, str(row.group)), []).append(said_week)
        else:
            seen.setdefault((subject, str(row.group)), []).append(f"{row.period} ({value})")
    gaps = _best_less_worst(frame)
    sentences += claims
    for (subject, side), items in list(seen.items())[: 2 * MAX_SUBJECTS]:
        name = w.name(subject)
        who = after_name(name, said.when)  # 标普500 2021年
        if w.zh:
            word = "最好" if side == "best" else "最差"
            unit = _UNIT_ZH.get(period, "时段")
            if len(items) > 1:  # 表现最好的两个月, 三个季度
                count = _COUNT_ZH.get(len(items), str(len(items)))
                unit = count + unit.removeprefix("一")
            sentences.append(f"{who}表现{word}的{unit}是{'；'.join(items)}。")
        else:
            unit = _UNIT.get(period, "period") + ("s" if len(items) > 1 else "")
            verb = "were" if len(items) > 1 else "was"
            sentences.append(f"{_poss(name)} {side} {unit}{_when(said)} {verb} {', '.join(items)}.")
        if side == "worst" and subject in gaps:
            points = format_value(gaps[subject], "")
            each = _UNIT.get(period, "period")
            each_zh = _ZH_EACH.get(period, "时段")
            sentences.append(
                f"{name}最好的{each_zh}比最差的{each_zh}高{points}个百分点。"
                if w.zh
                else f"{_poss(name)} best {each} beat its worst by {points} percentage points."
            )
    return sentences


def _claim_checked(
    subject: str, row: Any, value: str, period: str, frame: pd.DataFrame, said: Said
) -> str:
    """The period a claim names, its figure and place among the periods, and whether the claim
    holds: "2009, the year named, returned 43.89%, 2nd of 16 years: the claim does not hold." """
    w = said.w
    best = str(frame.attrs.get("which") or "best") == "best"
    holds = int(row.rank) == 1
    count = int(row.periods) if pd.notna(getattr(row, "periods", None)) else 0
    if w.zh:
        each = _ZH_EACH.get(period, "时段")
        place = f"在{count}个{each}中排第{int(row.rank)}" if count else f"排第{int(row.rank)}"
        word = "最好" if best else "最差"
        verdict = "说法成立" if holds else f"说法不成立：它不是{word}的{each}"
        named = _zh_period(str(row.period), period)
        return f"{w.name(subject)}所说的{named}为{value}，{place}，{verdict}。"
    each = _UNIT.get(period, "period")
    place = (
        f"{_ordinal(int(row.rank))} of {count} {each}s" if count else f"{_ordinal(int(row.rank))}"
    )
    word = "best" if best else "worst"
    verdict = "the claim holds" if holds else f"the claim does not hold (it was not the {word})"
    return f"{_poss(w.name(subject))} {each} named, {row.period}, was {value}, {place}: {verdict}."


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _best_less_worst(frame: pd.DataFrame) -> dict[str, float]:
    """Each subject's best period less its worst, when the table carries it."""
    if "best_less_worst" not in frame.columns:
        return {}
    return {str(i): float(v) for i, v in frame["best_less_worst"].items() if pd.notna(v)}


def _dated_extremes(step: Step, said: Said, of: str) -> list[str]:
    """ "Apple Inc.'s highest close (adjusted) in 2020 was 134.68 USD on 2020-12-28."; several
    asked ("the three tightest months") are said as one ranked list."""
    w = said.w
    frame: pd.DataFrame = step.value
    unit = column_unit(frame, "value")
    period = str(frame.attrs.get("period") or "daily")
    # The series shown beside each extreme (a spread's two yields) on its date.
    extra = {c: column_unit(frame, c) for c in frame.columns if c not in _EXTREME_COLUMNS}
    ranked: dict[tuple[str, str], list[Any]] = {}
    for subject, row in zip(_ids(frame), frame.itertuples(index=False), strict=True):
        ranked.setdefault((subject, str(row.group)), []).append(row)
    sentences = []
    for (subject, side), rows in list(ranked.items())[: 2 * MAX_SUBJECTS]:
        name = w.name(subject)
        high = side == "best"
        if w.zh:
            what = w.title(of) if of else "值"
            what = "" if what in name or name in what else what  # a series' own level
            when = f"在{said.when}期间" if "至" in said.when else said.when
        else:
            what = of.lower() if of else "value"
            what = "level" if what in name.lower() or name.lower() in what else what
        months = int(frame.attrs.get("after_months") or 0)
        items = [_extreme_item(row, said, unit, period, extra, months) for row in rows]
        if len(rows) > 1:
            if w.zh:
                count = _COUNT_ZH.get(len(rows), str(len(rows)))
                each = _UNIT_ZH.get(period, "一个时段").removeprefix("一")
                each = "天" if period == "daily" else each
                word = "最高" if high else "最低"
                sentences.append(f"{name}{when}{what}{word}的{count}{each}是{'；'.join(items)}。")
            else:
                word = "highest" if high else "lowest"
                each = _UNIT.get(period, "period") + "s"
                sentences.append(
                    f"{_poss(name)} {len(rows)} {word} {each} by {what}{_when(said)} were "
                    f"{'; '.join(items)}."
                )
            continue
        (row,) = rows
        item = items[0]
        if w.zh:
            word = "最高" if high else "最低"
            sentences.append(f"{name}{when}{what}{word}为{item}。")
        else:
            word = "highest" if high else "lowest"
            sentences.append(f"{_poss(name)} {word} {what}{_when(said)} was {item}.")
    return sentences


def _extreme_item(
    row: Any, said: Said, unit: str, period: str, extra: dict[str, str], months: int = 0
) -> str:
    """One extreme's value, date (and period) and the series beside it: "0.55%, on 2014-06-01
    (2014-06)", 0.55%，在2014-06-01（2014年6月）."""
    w = said.w
    value = _said(said, float(row.value), unit)
    beside = [
        f"{w.name(c)} {_said(said, float(getattr(row, c)), extra[c])}"
        for c in extra
        if c.isidentifier() and pd.notna(getattr(row, c, None))
    ]
    later = _after_item(row, said, unit, months)
    if w.zh:
        # (the period's words and its label, in one bracket: （1982年第四季度，1982Q4）)
        named = _zh_period(str(row.period), period).rstrip("）").replace("（", "，")
        where = "" if period == "daily" else f"（{named}）"
        also = f"（当时{'，'.join(beside)}）" if beside else ""
        return f"{value}，在{row.date}{where}{also}{later}"
    where = "" if period == "daily" else f" ({row.period})"
    also = f" ({', '.join(beside)} at the time)" if beside else ""
    return f"{value} on {row.date}{where}{also}{later}"


def _after_item(row: Any, said: Said, unit: str, months: int) -> str:
    """The extreme's value some months later and the change to it ("; 6 months later, on
    2009-06-01, it was 1.89%, 1.49 percentage points lower (149 basis points)"), or ""."""
    after = getattr(row, "after_value", None)
    if not months or after is None or pd.isna(after):
        return ""
    w = said.w
    change = float(row.after_change)
    level = _said(said, float(after), unit)
    if unit == "%":
        points = format_value(abs(change), "")
        basis = abs(change) * 100
        bp = f"{basis:,.0f}" if abs(basis - round(basis)) < 1e-6 else f"{basis:,.1f}"
        if w.zh:
            moved = "上升" if change > 0 else "下降"
            later = f"；{months}个月后（{row.after_date}）为{level}"
            return f"{later}，{moved}{points}个百分点（{bp}个基点）"
        moved = "higher" if change > 0 else "lower"
        return (
            f"; {months} months later, on {row.after_date}, it was {level}, {points} percentage "
            f"points {moved} ({bp} basis points)"
        )
    pct = change / float(row.value) * 100 if float(row.value) else float("nan")
    moved_by = _said(said, abs(change), unit)
    if w.zh:
        moved = "上升" if change > 0 else "下降"
        return f"；{months}个月后（{row.after_date}）为{level}，{moved}{moved_by}（{pct:+.2f}%）"
    moved = "higher" if change > 0 else "lower"
    return (
        f"; {months} months later, on {row.after_date}, it was {level}, {moved_by} {moved} "
        f"({pct:+.2f}%)"
    )


_EXTREME_COLUMNS = {"date", "period", "value", "rank", "group"}
_EXTREME_COLUMNS |= {"after_date", "after_value", "after_change"}


_CONDITIONS = {
    "close_above": ("closed above {t}", "收盘高于{t}"),
    "close_below": ("closed below {t}", "收盘低于{t}"),
    "gain_beyond": ("rose more than {t}%", "单日涨幅超过{t}%"),
    "fall_beyond": ("fell more than {t}%", "单日跌幅超过{t}%"),
    "move_beyond": ("moved more than {t}% either way", "单日涨跌幅绝对值超过{t}%"),
    "up": ("closed up", "收涨"),
    "down": ("closed down", "收跌"),
    "above_ma": ("closed above its {t}-day moving average", "收盘高于{t}日均线"),
    "below_ma": ("closed below its {t}-day moving average", "收盘低于{t}日均线"),
    "record_high": ("closed at a record high", "收盘创历史新高"),
    "record_low": ("closed at a record low", "收盘创历史新低"),
}
_INCLUSIVE = {
    "close_above": ("closed at or above {t}", "收盘不低于{t}"),
    "close_below": ("closed at or below {t}", "收盘不高于{t}"),
    "gain_beyond": ("rose {t}% or more", "单日涨幅不低于{t}%"),
    "fall_beyond": ("fell {t}% or more", "单日跌幅不低于{t}%"),
    "move_beyond": ("moved {t}% or more either way", "单日涨跌幅绝对值不低于{t}%"),
}


# A series with one value a month or a quarter: its values were above a level, not closes.
_VALUES = {
    "close_above": ("was above {t}", "高于{t}"),
    "close_below": ("was below {t}", "低于{t}"),
}
_VALUES_INCLUSIVE = {
    "close_above": ("was at or above {t}", "不低于{t}"),
    "close_below": ("was at or below {t}", "不高于{t}"),
}


def _count(step: Step, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    condition = str(frame.attrs.get("condition") or "sessions")
    threshold = frame.attrs.get("threshold")
    title = str(frame.attrs.get("title") or "")
    inclusive = "at least" in title or "at or" in title
    period = str(frame.attrs.get("period") or "daily")
    if period != "daily" and condition in _VALUES:
        return _count_values(frame, said, condition, threshold, inclusive, period)
    words = (_INCLUSIVE if inclusive else _CONDITIONS).get(condition) or _CONDITIONS.get(condition)
    t = f"{abs(float(threshold)):g}" if threshold is not None else ""
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(subject)
        who = after_name(name, said.when)  # 标普500 2021年
        count, sessions = int(row.count), int(row.sessions)
        span = (
            f"{row.start_date}至{row.end_date}" if w.zh else f"{row.start_date} to {row.end_date}"
        )
        if words is None:  # the sessions themselves
            sentences.append(
                f"{who}共有{sessions}个交易日（数据中{span}）。"
                if w.zh
                else f"{name} had {sessions} trading sessions{_when(said)} in the data ({span})."
            )
            continue
        what = words[1 if w.zh else 0].format(t=t)
        share = f"{100 * count / sessions:.2f}%" if sessions else ""
        # Beyond a level (or a record), the first and last such sessions say when it began.
        first, last = row.first_date, row.last_date
        dated = count and condition in DATED_CONDITIONS and first is not None
        if w.zh:
            share = f"，占{share}" if share else ""
            sentences.append(
                f"{who}有{count}个交易日{what}（共{sessions}个交易日{share}，{span}）"
                + (f"，第一次在{first}，最后一次在{last}。" if dated else "。")
            )
        else:
            share = f" ({share})" if share else ""
            sentences.append(
                f"{name} {what} on {count} of {sessions} trading sessions{share}{_when(said)} "
                f"({span})" + (f"; the first was {first}, the last {last}." if dated else ".")
            )
    return sentences


_PERIODS = {"daily": ("trading sessions", "个交易日"), "weekly": ("weeks", "周")}
_PERIODS |= {"monthly": ("months", "个月"), "quarterly": ("quarters", "个季度")}
_PERIODS |= {"annual": ("years", "年")}


def _count_values(
    frame: pd.DataFrame,
    said: Said,
    condition: str,
    threshold: object,
    inclusive: bool,
    period: str,
) -> list[str]:
    """ "Brent was above 100 in 42 of 48 months (87.50%) from 2011 to 2014": a count of a
    monthly or quarterly series' values."""
    w = said.w
    what = (_VALUES_INCLUSIVE if inclusive else _VALUES)[condition]
    t = f"{abs(float(str(threshold))):g}" if threshold is not None else ""
    if t and str(frame.attrs.get("level_unit") or "").casefold() in ("%", "percent"):
        t += "%"
    en, zh = _PERIODS.get(period, ("periods", "个时段"))
    sentences = []
    rows = list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[:MAX_SUBJECTS]
    for subject, row in rows:
        name = w.name(subject)
        count, total = int(row.count), int(row.sessions)
        share = f"{100 * count / total:.2f}%" if total else ""
        if w.zh:
            span = f"{row.start_date}至{row.end_date}"
            sentences.append(
                f"{after_name(name, said.when)}有{count}{zh}{what[1].format(t=t)}"
                f"（共{total}{zh}，占{share}，{span}）。"
            )
        else:
            span = f"{row.start_date} to {row.end_date}"
            sentences.append(
                f"{name} {what[0].format(t=t)} in {count} of {total} {en} ({share})"
                f"{_when(said)} ({span})."
            )
    return sentences


def _signs(step: Step, said: Said) -> list[str]:
    """ "Best Buy rose in 5 of 12 months and fell in 7 in 2021." """
    w = said.w
    frame: pd.DataFrame = step.value
    en, zh = _PERIODS.get(str(frame.attrs.get("period") or "daily"), ("periods", "个时段"))
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(subject)
        who = after_name(name, said.when)  # 标普500 2021年
        up, down, periods = int(row.up), int(row.down), int(row.periods)
        # Each side's share of the periods, as counts of sessions state theirs; and the periods'
        # returns by their first and last days, the first from the close before them.
        shares = [format_value(n / periods * 100, "%") if periods else "" for n in (up, down)]
        base = returns_base_day(step, subject, said)
        span = ""
        if frame.attrs.get("period") not in (None, "daily") and hasattr(row, "start_date"):
            since = (f"，首个自{base}起算" if w.zh else f", the first from {base}") if base else ""
            span = (
                f"，{row.start_date}至{row.end_date}{since}"
                if w.zh
                else f"; {row.start_date} to {row.end_date}{since}"
            )
        if w.zh:
            more = f"，上涨占{shares[0]}，下跌占{shares[1]}{span}" if periods else ""
            sentences.append(f"{who}有{up}{zh}上涨、{down}{zh}下跌（共{periods}{zh}{more}）。")
        else:
            more = f" ({shares[0]} up, {shares[1]} down{span})" if periods else ""
            sentences.append(
                f"{name} rose in {up} of {periods} {en}{_when(said)} and fell in {down}{more}."
            )
    return sentences


def _distance(step: Step, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    side = str(frame.attrs.get("side") or "high")
    units = frame.attrs.get("units") or {}
    unit = str(units.get("peak_value") or "")
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(subject)
        pct = float(row.distance_pct)
        distance = format_value(abs(pct), "%")
        peak, last = (
            _said(said, float(row.peak_value), unit),
            _said(said, float(row.last_value), unit),
        )
        if w.zh:
            where = "低于" if side == "high" else "高于"
            word = "最高点" if side == "high" else "最低点"
            sentences.append(
                f"{name}最新收盘（{row.last_date}）为{last}，{where}{said.when}的{word}{distance}"
                f"（{word}{peak}，出现在{row.peak_date}）。"
            )
        else:
            where = "below" if side == "high" else "above"
            word = "high" if side == "high" else "low"
            sentences.append(
                f"{_poss(name)} last close ({last} on {row.last_date}) is {distance} {where} "
                f"its {word}{_when(said)} ({peak} on {row.peak_date})."
            )
    return sentences


def _high_low_range(step: Step, said: Said) -> list[str]:
    """ "Range Resources' closes in 2022 ran from 17.41 USD (2022-01-21) to 36.59 USD
    (2022-06-07): a range of 19.17 USD, the high 110.17% above the low." """
    w = said.w
    frame: pd.DataFrame = step.value
    unit, gap_unit = column_unit(frame, "high"), column_unit(frame, "range")
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(subject)
        high, low = (_said(said, float(v), unit) for v in (row.high, row.low))
        gap = _said(said, float(row.range), gap_unit)
        pct = float(row.range_pct)
        above = format_value(pct, "%") if pct == pct else ""
        moved = _move_between(row, w.zh)
        if w.zh:
            more = f"，最高比最低高{above}" if above else ""
            sentences.append(
                f"{name}{said.when}（{row.start_date}至{row.end_date}）最高{high}"
                f"（{row.high_date}），最低{low}（{row.low_date}），相差{gap}{more}{moved}。"
            )
        else:
            more = f", the high {above} above the low" if above else ""
            sentences.append(
                f"{_poss(name)} range{_when(said)} ({row.start_date} to {row.end_date}) ran from "
                f"a low of {low} on {row.low_date} to a high of {high} on {row.high_date}: {gap} "
                f"between them{more}{moved}."
            )
    return sentences


def _move_between(row: Any, zh: bool) -> str:
    """The move from the earlier extreme to the later one: "; from the high to the later low
    it fell 79.16%", "；从最低点到其后的最高点上涨106.22%"."""
    pct = float(getattr(row, "move_pct", float("nan")))
    if pct != pct:
        return ""
    said = format_value(abs(pct), "%")
    high_first = str(row.high_date) <= str(row.low_date)
    if zh:
        return (
            f"；从最高点到其后的最低点下跌{said}"
            if high_first
            else f"；从最低点到其后的最高点上涨{said}"
        )
    if high_first:
        return f"; from the high to the later low it fell {said} ({format_value(pct, '%')})"
    return f"; from the low to the later high it rose {said}"


def _streak(step: Step, said: Said) -> list[str]:
    """The longest run of up (down) sessions: its length, first and last session, the move."""
    w = said.w
    frame: pd.DataFrame = step.value
    up = frame.attrs.get("direction") == "up"
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name = w.name(subject)
        who = after_name(name, said.when)  # 标普500 2021年
        if not row.sessions:
            sentences.append(
                f"{who}没有一个{'上涨' if up else '下跌'}的交易日。"
                if w.zh
                else f"{name} had no {'up' if up else 'down'} session{_when(said)}."
            )
            continue
        change = format_value(float(row.change_pct), "%")
        more = int(row.ties)
        if w.zh:
            tie = f"（另有{more}段同样长）" if more else ""
            sentences.append(
                f"{who}最长{'连涨' if up else '连跌'}{int(row.sessions)}个交易日，"
                f"从{row.start_date}到{row.end_date}结束，期间{'上涨' if up else '下跌'}"
                f"{change.lstrip('-')}{tie}。"
            )
        else:
            tie = f" ({more} other run{'s' if more > 1 else ''} as long)" if more else ""
            sentences.append(
                f"{_poss(name)} longest {'winning' if up else 'losing'} streak{_when(said)} was "
                f"{int(row.sessions)} sessions in a row, from {row.start_date} to its end on "
                f"{row.end_date}, a move of {change}{tie}."
            )
    return sentences


def _crosses(step: Step, said: Said) -> list[str]:
    """The dates a fast moving average crossed a slow one."""
    w = said.w
    frame: pd.DataFrame = step.value
    fast, slow = frame.attrs.get("fast"), frame.attrs.get("slow")
    up = frame.attrs.get("direction") != "below"
    begun, ended = frame.attrs.get("searched_from"), frame.attrs.get("searched_to")
    if w.zh:
        span = f"（{begun}至{ended}的交易日）" if begun and ended else ""
    else:
        span = f" (sessions {begun} to {ended})" if begun and ended else ""
    sentences = []
    for subject in list(dict.fromkeys(_ids(frame)))[:MAX_SUBJECTS]:
        rows = frame.loc[[subject]]
        name = w.name(subject)
        who = after_name(name, said.when)  # 标普500 2021年
        dates = [str(d) for d in rows["date"] if d is not None and str(d) != "None"]
        if not dates:
            sentences.append(
                f"{who}{fast}日均线没有{'上穿' if up else '下穿'}{slow}日均线{span}。"
                if w.zh
                else f"{_poss(name)} {fast}-day average did not cross {'above' if up else 'below'}"
                f" its {slow}-day{_when(said)}{span}."
            )
            continue
        first = rows.iloc[0]
        level = _said(said, float(first["close"]), str(frame.attrs.get("unit") or ""))
        if w.zh:
            sentences.append(
                f"{who}{fast}日均线{'上穿' if up else '下穿'}{slow}日均线"
                f"{len(dates)}次{span}：{'、'.join(dates)}（{dates[0]}收盘{level}）。"
            )
        else:
            sentences.append(
                f"{_poss(name)} {fast}-day average crossed {'above' if up else 'below'} its "
                f"{slow}-day {len(dates)} time{'s' if len(dates) > 1 else ''}{_when(said)}{span}: "
                f"on {', '.join(dates)} (close {level} on {dates[0]})."
            )
    return sentences


_ZH_SIDES = {(True, False): "高于", (True, True): "不低于", (False, False): "低于"}
_ZH_SIDES |= {(False, True): "不高于"}


def _first_past(step: Step, said: Said) -> list[str]:
    """The first session past the level: its date and close, and what the level was."""
    w = said.w
    frame: pd.DataFrame = step.value
    unit = str(frame.attrs.get("unit") or "")
    above = frame.attrs.get("side") != "below"
    times = float(frame.attrs.get("multiple") or 1.0)
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        name, level = w.name(subject), _said(said, float(row.level), unit)
        # A multiple of a day's close shows that close too: "2x its close on 2009-03-09, 676.53".
        base = _said(said, float(row.level_close), unit) if times != 1.0 else ""
        if w.zh:
            of = f"（{row.level_date}的收盘价）" if row.level_date is not None else ""
            of = f"（{row.level_date}收盘价{base}的{times:g}倍）" if base else of
            side = _ZH_SIDES[(above, bool(frame.attrs.get("inclusive")))]
            if row.date is None:
                sentences.append(f"{name}在所查区间内没有一天收盘{side}{level}{of}。")
                continue
            close = _said(said, float(row.close), unit)
            took = days_between(row.level_date, row.date)
            after = f"，距{row.level_date}共{took:,}个自然日" if took is not None else ""
            sentences.append(f"{name}首次收盘{side}{level}{of}是在{row.date}，收于{close}{after}。")
            continue
        of = f" (its close on {row.level_date})" if row.level_date is not None else ""
        of = f" ({times:g}x its close on {row.level_date}, {base})" if base else of
        side = ("at or " if frame.attrs.get("inclusive") else "") + ("above" if above else "below")
        if row.date is None:
            sentences.append(f"{name} did not close {side} {level}{of} in the window searched.")
            continue
        close = _said(said, float(row.close), unit)
        took = days_between(row.level_date, row.date)
        after = f", {took:,} calendar days after {row.level_date}" if took is not None else ""
        sentences.append(
            f"{name} first closed {side} {level}{of} on {row.date}, at {close}{after}."
        )
    return sentences


_IN_PERCENT = re.compile(r"(?i)percent|%|basis points")


def _figure_difference(step: Step, said: Said) -> list[str]:
    """Two figures, each with its date, and the first's difference from the second."""
    w = said.w
    frame: pd.DataFrame = step.value
    units = frame.attrs.get("units") or {}
    sentences = []
    for subject, row in list(zip(_ids(frame), frame.itertuples(index=False), strict=True))[
        :MAX_SUBJECTS
    ]:
        a = _said(said, float(row.value), str(units.get("value") or ""))
        b = _said(said, float(row.other_value), str(units.get("other_value") or ""))
        gap = float(row.difference)
        gap_unit = str(units.get("difference") or "")
        moved = _said(said, abs(gap), gap_unit)
        of = str(frame.attrs.get("of") or "")
        name = w.name(subject)
        if w.zh and gap_unit == "percentage points":
            moved = f"{abs(gap):,.2f}个百分点"
        other = float(row.other_value)
        if gap_unit and not _IN_PERCENT.search(gap_unit) and other > 0:
            # A gap in dollars or points, and what it is of the other figure: 9.95 USD (17.35%)
            share = f"{abs(gap) / other * 100:,.2f}%"
            moved = f"{moved}（{share}）" if w.zh else f"{moved} ({share})"
        stat = frame.attrs.get("statistic")
        if stat:  # each figure a statistic of its window: "the 2000 mean, 1.70 points lower"
            sentences.append(_statistics_gap(name, str(stat), row, (a, b, moved), gap >= 0, w))
            continue
        if w.zh:
            name = f"{name}的{w.title(of)}" if of and not w.is_name_of(of, subject) else name
            verb = "高" if gap >= 0 else "低"
            sentences.append(f"{name}在{row.date}为{a}，比{row.other_date}的{b}{verb}{moved}。")
        else:
            verb = "higher" if gap >= 0 else "lower"
            if of and not w.is_name_of(of, subject):
                name = f"{_poss(name)} {of[:1].lower()}{of[1:]}"
            sentences.append(
                f"{name} was {a} on {row.date}, {moved} {verb} than the {b} of {row.other_date}."
            )
    return sentences


_ZH_STATISTICS = {"mean": "均值", "median": "中位数"}


def _statistics_gap(
    name: str, stat: str, row: Any, said: tuple[str, str, str], higher: bool, w: Any
) -> str:
    """Two windows' statistic (their means) and the first's difference from the second."""
    a, b, moved = said
    when, other_when = (_one_day(str(d)) for d in (row.date, row.other_date))
    if stat not in _ZH_STATISTICS:
        stat = column_name(stat, w.zh)  # "return_pct": the return, 收益率
    if w.zh:
        what = _ZH_STATISTICS.get(stat, stat)
        span, other = (d.replace(" to ", "至") for d in (when, other_when))
        verb = "高" if higher else "低"
        return f"{name}在{span}的{what}为{a}，比{other}的{what}{b}{verb}{moved}。"
    verb = "higher" if higher else "lower"
    return (
        f"{_poss(name)} {stat} over {when} was {a}, {moved} {verb} than its {stat} over "
        f"{other_when}, {b}."
    )


def _one_day(span: str) -> str:
    """ "2019-12-01 to 2019-12-01" (one monthly value) said as its one date."""
    first, _, last = span.partition(" to ")
    return first if first == last else span


FAMILY_FORMS: dict[str, Callable[[Step, Said], list[str]]] = {
    "figure_difference": _figure_difference,
    "first_past": _first_past,
    "crosses": _crosses,
    "streak": _streak,
    "period_extremes": _period_extremes,
    "count": _count,
    "signs": _signs,
    "distance": _distance,
    "high_low_range": _high_low_range,
    "ratio": ratio_sentences,
    "from_day": from_day_sentences,
    "conditional": conditional_sentences,
    "contributions": contribution_sentences,
}
