"""The answer sentences: the headline result's figure, unit, dates and base, one form per kind.

Every number comes from the result's facts (written by `Words.value`, i.e. `format_value`), so
the sentences are grounded like the rest of the summary. `answer_sentences` returns nothing
for a result it has no form for; the caller then falls back to the facts' plain sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from datapilot.core.intent import frequency_of_gap
from datapilot.core.results import Fact
from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import MAX_SUBJECTS, Step, from_client
from datapilot.engine.summary.families import FAMILY_FORMS
from datapilot.engine.summary.kinds import Said, result_kind
from datapilot.engine.summary.margins import benchmark_sentences, gap_sentences, named_first
from datapilot.engine.summary.numbers import own_units
from datapilot.engine.summary.phrasing import Facts, by_subject, days_between
from datapilot.engine.summary.phrasing import after_name as _after
from datapilot.engine.summary.phrasing import listed as _list
from datapilot.engine.summary.phrasing import measure_said as _measure
from datapilot.engine.summary.phrasing import numeric as _numeric
from datapilot.engine.summary.phrasing import possessive as _poss
from datapilot.engine.summary.phrasing import rows_of as _rows
from datapilot.engine.summary.phrasing import when_said as _when
from datapilot.engine.summary.statistics import (
    correlation_sentences,
    forecast_sentences,
    stats_sentences,
)
from datapilot.engine.summary.words import Words, lower_first, upper_first
from datapilot.interfaces.frame import column_unit
from datapilot.interfaces.table_words import chinese_column

MAX_LISTED = 10


def answer_sentences(step: Step, said: Said) -> list[str]:
    """The sentences answering the question from its headline result (first one first)."""
    frame: pd.DataFrame = step.value
    kind = result_kind(frame)
    if kind in FAMILY_FORMS:  # the analyst families read their frame directly
        return FAMILY_FORMS[kind](step, said)
    form = _FORMS.get(kind)
    if form is None:
        return []
    return form(step, by_subject(own_units(step.record.facts, frame)), said)


# --- returns ----------------------------------------------------------------------------------


def _period_return(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    rows = _numeric(_rows(facts, "return_pct"))
    if not rows:
        return []
    if "rank" in step.value.columns or len(rows) > 3:
        gap = "gap" in step.value.columns
        return (
            _ranked(rows, said, _span(facts, [s for s, _ in rows], w.zh))
            + (gap_sentences(rows, said, named_first(step, said)) if gap else [])
            + benchmark_sentences(step.value, said)
            + _multiples(rows, facts, w)
        )
    if len(rows) == 1:
        subject, r = rows[0]
        m = facts[subject]
        start, end = m.get("start_value"), m.get("end_value")
        field = said.source_title(step)
        name = w.name(subject)
        units = step.value.attrs.get("units") or {}
        if units.get("change") == "percentage points" and start and end and m.get("change"):
            return [_rate_moved(name, start, end, m["change"], said)]
        priced = _priced(units.get("start_value"))
        if w.zh:
            said_as = "的收益率为" if priced else "的变化为"
            text = f"{_after(name, said.when)}{said_as}{w.value(r)}"
            if start and end:
                verb = "升至" if float(end.value) >= float(start.value) else "降至"
                what = w.title(field) if field else "价格"
                text += (
                    f"：{what}从{start.date}的{w.value(start, bare=True)}"
                    f"{verb}{end.date}的{w.value(end, bare=True)}"
                )
            return [text + _moved(m.get("change"), w) + _times(m.get("multiple"), w) + "。"]
        verb = "returned" if priced else "changed by"
        text = f"{name} {verb} {w.value(r)}{_when(said)}"
        if start and end:
            what = f"its {lower_first(field) if field else 'price'}" if priced else "it"
            text += (
                f": {what} went from {w.value(start, bare=True)} on {start.date} "
                f"to {w.value(end, bare=True)} on {end.date}"
            )
        return [text + _moved(m.get("change"), w) + _times(m.get("multiple"), w) + "."]
    span = _span(facts, [s for s, _ in rows], w.zh)
    if w.zh:
        joined = "，".join(
            f"{w.name(s, many=True)}为{w.value(r)}{_times(facts[s].get('multiple'), w)}"
            for s, r in rows
        )
        return [f"{said.when}的收益率：{joined}{span}。"]
    named = [
        (w.name(s, many=True), f"{w.value(r)}{_times(facts[s].get('multiple'), w)}")
        for s, r in rows
    ]
    (name, figure), rest = named[0], [f"{n} {f}" for n, f in named[1:]]
    return [
        f"{name} returned {figure}"
        + (f", {_list(rest, False)}" if rest else "")
        + f"{_when(said)}{span}."
    ]


# The units of a price: a currency ("USD"), a price per unit ("USD per barrel"), index points,
# or an imported file's unnamed "price".
_PRICE_UNITS = re.compile(r"[A-Z]{3}(?:\s+per\s+.+)?|index points|price")


def _priced(unit: object) -> bool:
    """Whether a level in `unit` is a price, whose change is a return (GDP's is a change)."""
    return not unit or bool(_PRICE_UNITS.fullmatch(str(unit)))


def _rate_moved(name: str, start: Fact, end: Fact, change: Fact, said: Said) -> str:
    """A rate's change over the window in percentage points, from the value before it (a
    percent change of a rate answers another question)."""
    w = said.w
    up = float(change.value) >= 0
    moved = f"{abs(float(change.value)):,.2f}{'个百分点' if w.zh else ' percentage points'}"
    if w.zh:
        return (
            f"{_after(name, said.when)}{'上升' if up else '下降'}了{moved}：从{start.date}的"
            f"{w.value(start)}{'升至' if up else '降至'}{end.date}的{w.value(end)}。"
        )
    return (
        f"{name} {'rose' if up else 'fell'} {moved}{_when(said)}: from {w.value(start)} on "
        f"{start.date} to {w.value(end)} on {end.date}."
    )


def _moved(change: Fact | None, w: Words) -> str:
    """ " (down 1,148.75 index points)": the difference asked in the level's unit, if any."""
    if change is None or not isinstance(change.value, float):
        return ""
    up = change.value >= 0
    if w.zh:
        return f"（{'上涨' if up else '下跌'}{w.value(change, absolute=True)}）"
    return f" ({'up' if up else 'down'} {w.value(change, absolute=True)})"


def _multiples(rows: list[tuple[str, Fact]], facts: Facts, w: Words) -> list[str]:
    """Each name's end over its start, when a growth was asked as a multiple (各涨了几倍)."""
    said = [(s, facts[s]["multiple"]) for s, _ in rows if "multiple" in facts[s]]
    if not said:
        return []
    if w.zh:
        listed = "，".join(f"{w.name(s, many=True)}{float(m.value):,.2f}倍" for s, m in said)
        return [f"期末为期初的倍数：{listed}。"]
    listed = ", ".join(f"{w.name(s, many=True)} {float(m.value):,.2f} times" for s, m in said)
    return [f"End value over starting value: {listed}."]


def _times(multiple: Fact | None, w: Words) -> str:
    """ "，期末为期初的8.05倍（涨了7.05倍）": a growth asked as a multiple of the start."""
    if multiple is None or not isinstance(multiple.value, float):
        return ""
    times = float(multiple.value)
    if w.zh:
        return f"，期末为期初的{times:,.2f}倍（涨了{times - 1:,.2f}倍）"
    return f" ({times:,.2f} times its starting value)"


def _span(facts: Facts, subjects: list[str], zh: bool) -> str:
    """ " (from the close on A to B)" when every row shares its base and end dates."""
    starts = {facts[s]["start_value"].date for s in subjects if "start_value" in facts[s]}
    ends = {facts[s]["end_value"].date for s in subjects if "end_value" in facts[s]}
    if len(starts) != 1 or len(ends) != 1:
        return ""
    (start,), (end,) = starts, ends
    return f"（{start}收盘至{end}）" if zh else f" (from the close on {start} to {end})"


def _ranked(rows: list[tuple[str, Fact]], said: Said, span: str = "") -> list[str]:
    """Best and worst first, then the order; `span` the closes the returns ran between."""
    w = said.w
    best = max(rows, key=lambda r: float(r[1].value))
    worst = min(rows, key=lambda r: float(r[1].value))
    n = len(rows)
    listed = [f"{i}. {w.name(s, many=True)} {w.value(f)}" for i, (s, f) in enumerate(rows, 1)]
    listed = listed[:MAX_LISTED]
    more = n - MAX_LISTED
    if w.zh:
        head = f"这{n}个中" if n == said.entities or not said.entities else f"列出的{n}个中"
        first = (
            f"{head}，{_after(w.name(best[0], many=True), said.when)}"
            f"的收益率最高（{w.value(best[1])}），"
            f"{w.name(worst[0], many=True)}最低（{w.value(worst[1])}）。"
        )
        tail = f"，另有{more}项" if more > 0 else ""
        return [first, f"依次为：{'；'.join(listed)}{tail}{span}。"]
    head = f"Of the {n}" if n == said.entities or not said.entities else f"Of these {n}"
    first = (
        f"{head}, {w.name(best[0], many=True)} returned most{_when(said)} ({w.value(best[1])}) "
        f"and {w.name(worst[0], many=True)} least ({w.value(worst[1])})."
    )
    tail = f", and {more} more" if more > 0 else ""
    return [first, f"In order: {'; '.join(listed)}{tail}{span}."]


def _cagr(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    rows = _numeric(_rows(facts, "annualized_return_pct"))[:MAX_SUBJECTS]
    if not rows:
        return []
    many = len(rows) > 1
    spans = {_dates(facts[s], w.zh) for s, _ in rows}
    span = spans.pop() if len(spans) == 1 else ""
    # "the difference between the two CAGRs": the ranking kept its gap
    gap = (
        gap_sentences(rows, said, named_first(step, said), yearly=True)
        if ("gap" in step.value.columns)
        else []
    )
    if w.zh:
        joined = "，".join(
            f"{w.name(s, many=many)}为{w.value(r)}{_in_all(facts[s], True)}" for s, r in rows
        )
        when = f"（{span}）" if span else ""
        return [f"{said.when}的年化收益率（按年复利）：{joined}{when}。", *gap]
    # (several names: each one's whole-window return beside its yearly rate, "PG 23.49% (88.33%
    # in all)")
    each = {s: _in_all(facts[s], False, each=True) if many else "" for s, _ in rows}
    items = [f"{w.name(s, many=many)} {w.value(r)}{each[s]}" for s, r in rows]
    when = f" ({span})" if span else ""
    first, rate = rows[0]
    head = f"{w.name(first, many=many)} returned {w.value(rate)} a year, compounded{each[first]}"
    rest = f", {_list(items[1:], False)}" if many else ""
    total = _in_all(facts[first], False) if not many else ""
    return [f"{head}{rest},{_when(said)}{when}{total}.", *gap]


def _in_all(m: dict[str, Fact], zh: bool, *, each: bool = False) -> str:
    """ "; 269.93% in all" (累计269.93%): the whole window's return beside its yearly rate, from
    the row's two ends; " (269.93% in all)" with `each`, beside one of several names."""
    start, end = m.get("start_value"), m.get("end_value")
    if start is None or end is None:
        return ""
    try:
        total = (float(end.value) / float(start.value) - 1) * 100
    except (TypeError, ValueError, ZeroDivisionError):
        return ""
    if zh:
        return f"（累计{total:,.2f}%）"
    return f" ({total:,.2f}% in all)" if each else f"; {total:,.2f}% in all"


def _dates(m: dict[str, Fact], zh: bool = False) -> str:
    """ "A to B" (A至B) of a row's base and last values' dates (value facts carry their dates)."""
    start, end = m.get("start_value"), m.get("end_value")
    if start and end and start.date and end.date:
        return f"{start.date}至{end.date}" if zh else f"{start.date} to {end.date}"
    return ""


def _cumulative(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    rows = [(s, m) for s, m in facts.items() if "first" in m and "last" in m][:MAX_SUBJECTS]
    if not rows:
        return []
    many = len(rows) > 1
    at = dates_of(step.value)
    start, end = rows[0][1]["first"].date, rows[0][1]["last"].date
    if w.zh:
        joined = "，".join(f"{w.name(s, many=many)}为{w.value(m['last'])}" for s, m in rows)
        text = f"从{at(start, True)}到{at(end, True)}，累计收益率：{joined}"
    else:
        items = [f"{_poss(w.name(s, many=many))} {w.value(m['last'])}" for s, m in rows]
        head, value = items[0].rsplit(" ", 1)
        rest = f" and {_list(items[1:], False)}" if many else ""
        bare = [at(day, False).removeprefix("on ").removeprefix("at ") for day in (start, end)]
        span = f"From {bare[0]} to {bare[1]}"
        text = f"{span}, {head} cumulative return was {value}{rest}"
    months, labels = _months_taken(step.value, start, w.zh)
    sentences = [text + months + ("。" if w.zh else ".")]
    if len(rows) == 2:  # "how did it stack up against the S&P 500": the gap between the two
        sentences += gap_sentences([(s, m["last"]) for s, m in rows], said, rows[0][0])
    if not many and "high" in rows[0][1] and "low" in rows[0][1]:
        sentences.append(path_sentence(rows[0][0], rows[0][1], w, at))
    return sentences + ([labels] if labels else [])


def _months_taken(frame: pd.DataFrame, base: str | None, zh: bool) -> tuple[str, str]:
    """(" (12 monthly figures, January 2002 to December 2002)", and a sentence giving the dates
    the source labels those months with): the months a cumulative return of monthly data was
    taken over, after its base; ("", "") for other data."""
    if not _month_labelled(frame):
        return "", ""
    days = [d for d in frame.index if base is None or d > pd.Timestamp(str(base))]
    if not days:
        return "", ""
    # Said by their months, as the window is: 2017-01-01 is January 2017's figure, not a day;
    # the source's own labels are given apart, so the figures can be found in it.
    first, last = (pd.Timestamp(d) for d in (days[0], days[-1]))
    if zh:
        months = f"{first.year}年{first.month}月至{last.year}年{last.month}月"
        labels = f"数据源把这些月份记为{first:%Y-%m-%d}至{last:%Y-%m-%d}。"
        return f"（{len(days)}个月度数据，{months}）", labels
    labels = f"The source labels these months {first:%Y-%m-%d} to {last:%Y-%m-%d}."
    return f" ({len(days)} monthly figures, {first:%B %Y} to {last:%B %Y})", labels


def _month_labelled(frame: pd.DataFrame) -> bool:
    """Monthly data dated on each month's first day: the row is that month's figure (the
    French factors' 2016-12-01 is December 2016's return), so it is said as the month's end."""
    index = frame.index
    if not isinstance(index, pd.DatetimeIndex) or len(index) < 2:
        return False
    gap = float(np.median(np.diff(index.values).astype("timedelta64[D]").astype(float)))
    return frequency_of_gap(gap) == "monthly" and bool((index.day == 1).all())


def dates_of(frame: pd.DataFrame) -> Callable[[str | None, bool], str]:
    """How to say a result's dates: "on 2021-03-08", or a month's end for month labels."""
    return _month_ends if _month_labelled(frame) else _on


def _on(day: str | None, zh: bool) -> str:
    return str(day) if zh else f"on {day}"


def _month_ends(day: str | None, zh: bool) -> str:
    """ "at the end of December 2016" / 2016年12月末 for a month's label 2016-12-01."""
    stamp = pd.Timestamp(str(day))
    return f"{stamp.year}年{stamp.month}月末" if zh else f"at the end of {stamp:%B %Y}"


def path_sentence(
    subject: str, m: dict[str, Fact], w: Words, at: Callable[[str | None, bool], str] = _on
) -> str:
    high, low = m["high"], m["low"]
    if w.zh:
        return (
            f"期间最高{w.value(high)}（{at(high.date, True)}），"
            f"最低{w.value(low)}（{at(low.date, True)}）。"
        )
    return (
        f"Along the way it peaked at {w.value(high)} {at(high.date, False)} "
        f"and was lowest at {w.value(low)} {at(low.date, False)}."
    )


def _growth(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    sentences = []
    for subject, m in list(facts.items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        first, last, change = m["first"], m["last"], m.get("pct_change")
        name = w.name(subject)
        # "How much did they make": the gain (or loss) in money beside the value.
        made = last.model_copy(update={"value": float(last.value) - float(first.value)})
        if w.zh:
            text = f"{first.date}投入{name}的{w.value(first)}，到{last.date}价值{w.value(last)}"
            if change is not None:
                text += f"（{w.value(change)}）"
            verb = "盈利" if float(made.value) >= 0 else "亏损"
            sentences.append(f"{text}，{verb}{w.value(made, absolute=True)}。")
            continue
        text = (
            f"{w.value(first)} invested in {name} on {first.date} "
            f"would have been worth {w.value(last)} on {last.date}"
        )
        if change is not None:
            text += f" ({w.value(change)})"
        verb = "a gain" if float(made.value) >= 0 else "a loss"
        sentences.append(f"{text}, {verb} of {w.value(made, absolute=True)}.")
    return sentences + _growth_gap(facts, w)


def _growth_gap(facts: Facts, w: Words) -> list[str]:
    """The dollars between the best and the worst of several equal sums put in on the same day
    and valued on the same day ("$10,000 in each … how many dollars apart")."""
    held = [
        (subject, m["first"], m["last"])
        for subject, m in facts.items()
        if "first" in m and "last" in m
    ]
    if len(held) < 2 or len({(f.value, f.date, last.date) for _, f, last in held}) != 1:
        return []
    (top, _, best), (bottom, _, worst) = (
        max(held, key=lambda h: float(h[2].value)),
        min(held, key=lambda h: float(h[2].value)),
    )
    gap = best.model_copy(update={"value": float(best.value) - float(worst.value)})
    if w.zh:
        return [f"{w.name(top)}比{w.name(bottom)}多{w.value(gap)}。"]
    return [f"The {w.name(top)} holding ended {w.value(gap)} above the {w.name(bottom)} one."]


def _extreme_days(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    which = str(frame.attrs.get("which") or "")
    span = int(frame.attrs.get("span") or 1)
    # Each day's fact, found by entity and date; its side from the row's group when given.
    found = {
        (f.subject, f.date): f
        for f in step.record.facts
        if f.measure == "return_pct" and isinstance(f.value, float)
    }
    ids = frame["id"].tolist() if "id" in frame.columns else [str(i) for i in frame.index]
    groups = frame["group"].tolist() if "group" in frame.columns else [which] * len(frame)
    starts = frame["from_date"].tolist() if "from_date" in frame.columns else [None] * len(frame)
    moved = frame["change"].tolist() if "change" in frame.columns else [None] * len(frame)
    unit = str((frame.attrs.get("units") or {}).get("change") or "")
    ends = (
        list(zip(frame["from_close"].tolist(), frame["close"].tolist(), strict=True))
        if {"from_close", "close"} <= set(frame.columns)
        else [None] * len(frame)
    )
    days: dict[tuple[str, str], list[_Day]] = {}
    rows = zip(ids, frame["date"].tolist(), groups, starts, moved, ends, strict=True)
    for subject, day, group, first, change, closes in rows:
        fact = found.get((str(subject), _day(day)))
        if fact is None:
            continue
        side = (
            str(group)
            if group in {"best", "worst"}
            else ("best" if float(fact.value) >= 0 else "worst")
        )
        points = _points(change, unit, w.zh)
        if closes is not None and not any(pd.isna(c) for c in closes):
            went = f"{float(closes[0]):,.2f} → {float(closes[1]):,.2f}"
            said_closes = f"收盘{went}" if w.zh else f"closes {went}"
            points = f"{points}{'；' if w.zh else '; '}{said_closes}" if points else said_closes
        item = _Day(fact, _day(first) if first is not None else None, points)
        days.setdefault((str(subject), side), []).append(item)
    return [
        _days_sentence(w.name(subject), side, group_days, said, span)
        for (subject, side), group_days in list(days.items())[: 2 * MAX_SUBJECTS]
    ]


class _Day:
    """One extreme change: its fact (the % and the last session), where it started, and its
    size in the series' own unit ("+20.01 points" of the VIX)."""

    def __init__(self, fact: Fact, first: str | None, points: str | None) -> None:
        self.fact, self.first, self.points = fact, first, points


def _points(change: object, unit: str, zh: bool) -> str | None:
    """A level's change, signed, in its unit (points when the series has none); none for a
    price in a currency."""
    if not isinstance(change, int | float) or pd.isna(change):
        return None
    if re.fullmatch(r"[A-Z]{3}", unit):
        return None  # a share price's move in money: the % says it (adjusted closes differ)
    sign = "+" if change > 0 else ""
    if zh and "points" in unit:
        unit = ""
    if unit:
        return f"{sign}{format_value(float(change), unit)}"
    return f"{sign}{float(change):,.2f}{'点' if zh else ' points'}"


def _day(value: object) -> str:
    return value.isoformat()[:10] if hasattr(value, "isoformat") else str(value)


def _days_sentence(name: str, which: str, days: list[_Day], said: Said, span: int = 1) -> str:
    w = said.w
    listed = []
    for d in days:
        value = w.value(d.fact)
        if d.points:
            value += f"，{d.points}" if w.zh else f", {d.points}"
        when = d.fact.date
        if span > 1 and d.first:
            when = f"{d.first}至{d.fact.date}" if w.zh else f"{d.first} to {d.fact.date}"
        listed.append(f"{when}（{value}）" if w.zh else f"{when} ({value})")
    if span > 1:
        if w.zh:
            word = "涨幅最大" if which == "best" else "跌幅最大"
            head = f"{_after(name, said.when)}{span}个交易日{word}"
            if len(days) == 1:
                return f"{head}的一段是{listed[0]}。"
            return f"{head}的{len(days)}段：{'、'.join(listed)}。"
        word = "best" if which == "best" else "worst"
        if len(days) == 1:
            return f"{_poss(name)} {word} {span}-session change{_when(said)} was {listed[0]}."
        return (
            f"{_poss(name)} {len(days)} {word} {span}-session changes{_when(said)} were "
            f"{_list(listed, False)}."
        )
    if w.zh:
        if len(days) == 1:
            word = "涨幅最大" if which == "best" else "跌幅最大"
            return f"{_after(name, said.when)}{word}的一天是{listed[0]}。"
        word = "最好" if which == "best" else "最差"
        return f"{_after(name, said.when)}表现{word}的{len(days)}个交易日：{'、'.join(listed)}。"
    word = "best" if which == "best" else "worst"
    if len(days) == 1:
        return f"{_poss(name)} {word} day{_when(said)} was {listed[0]}."
    return f"{_poss(name)} {len(days)} {word} days{_when(said)} were {_list(listed, False)}."


def _top_bottom(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    title = str(frame.attrs.get("title") or "")
    named = title.rsplit(" by ", 1)[-1] if " by " in title else ""
    numeric = [str(c) for c in frame.select_dtypes("number").columns if c != "rank"]
    by = next((c for c in (named, "return_pct") if c in frame.columns), "")
    by = by or (numeric[0] if numeric else "")
    parts = []
    for group in ("top", "bottom"):
        rows = [
            (str(label), facts.get(str(label), {}).get(by))
            for label, value in frame["group"].items()
            if value == group
        ]
        items = [f"{w.name(s, many=True)} ({w.value(f)})" for s, f in rows if f is not None]
        if w.zh:
            items = [f"{w.name(s, many=True)}（{w.value(f)}）" for s, f in rows if f is not None]
            if items:
                parts.append(
                    f"{'前' if group == 'top' else '后'}{len(items)}名：{'、'.join(items)}"
                )
        elif items:
            parts.append(f"the {group} {len(items)} were {_list(items, False)}")
    if not parts:
        return []
    if w.zh:
        return [f"按{_measure(by, True)}，{said.when}{'；'.join(parts)}。"]
    return [f"By {_measure(by, False)}{_when(said)}, {'; '.join(parts)}."]


# --- risk -------------------------------------------------------------------------------------


def _volatility(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    rows = _numeric(_rows(facts, "annualized_volatility_pct"))[:MAX_SUBJECTS]
    if not rows:
        return []
    many = len(rows) > 1
    sentences = []
    shown: tuple[str, str] | None = None
    for subject, vol in rows:
        count = facts[subject].get("observations")
        name = w.name(subject, many=many)
        # The closes the returns ran between: a window the data ends inside says where.
        span = _row_span(step.value, subject)
        if span is not None and span == shown:
            span = None  # the same closes as the name before: said once for all
        else:
            shown = span or shown
        if w.zh:
            basis = f"（基于{w.value(count)}个收益率）" if count else ""
            if count and span:
                basis = f"（基于{span[0]}至{span[1]}收盘价的{w.value(count)}个收益率）"
            sentences.append(f"{_after(name, said.when)}的年化波动率为{w.value(vol)}{basis}。")
        else:
            basis = f" (from {w.value(count)} returns)" if count else ""
            if count and span:
                basis = f" (from {w.value(count)} returns, closes {span[0]} to {span[1]})"
            sentences.append(
                f"{_poss(name)} annualised volatility{_when(said)} was {w.value(vol)}{basis}."
            )
    return sentences


def _row_span(frame: object, subject: str) -> tuple[str, str] | None:
    """A row's start_date and end_date, as written."""
    if not isinstance(frame, pd.DataFrame) or not {"start_date", "end_date"} <= set(frame.columns):
        return None
    if subject not in map(str, frame.index):
        return None
    row = frame.loc[next(i for i in frame.index if str(i) == subject)]
    first, last = row["start_date"], row["end_date"]
    return (str(first)[:10], str(last)[:10]) if pd.notna(first) and pd.notna(last) else None


def _drawdown(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    rows = _numeric(_rows(facts, "max_drawdown_pct"))[:MAX_SUBJECTS]
    sentences = []
    for subject, dd in rows:
        m = facts[subject]
        peak, trough, recovery = m.get("peak_date"), m.get("trough_date"), m.get("recovery_date")
        name = w.name(subject, many=len(rows) > 1)
        tracked = "recovery_date" in frame.columns
        span = _row_span(frame, subject)  # the window's last close says where "the end" is
        end = f"（{span[1]}）" if span else ""
        took = days_between(peak.value if peak else None, recovery.value if recovery else None)
        back = m.get("recovery_value")
        counted = m.get("recovery_sessions")
        sessions = int(counted.value) if counted is not None and counted.value else None
        high, low = m.get("peak_value"), m.get("trough_value")
        bare = high is not None and len(high.unit or "") > 4  # a long unit is not repeated
        levels = (
            (f" {w.value(high, bare=bare)}", f" {w.value(low, bare=bare)}")
            if high and low
            else ("", "")
        )
        if w.zh:
            text = f"{_after(name, said.when)}的最大回撤为{w.value(dd)}"
            if peak and trough:
                text += f"：从{peak.value}的高点{levels[0].strip()}跌至{trough.value}的低点"
                text += levels[1].strip()
            if recovery:
                text += f"，{recovery.value}收复"
                after = [f"{took}个日历日"] if took else []
                after += [f"{sessions}个交易日"] if sessions else []
                inside = [f"收盘{w.value(back, bare=bare)}"] if back else []
                inside += ["距高点" + "、".join(after)] if after else []
                text += f"（{'，'.join(inside)}）" if inside else ""
            elif tracked:
                text += f"，窗口结束{end}时尚未收复"
            sentences.append(text + "。")
            continue
        text = f"{_poss(name)} maximum drawdown{_when(said)} was {w.value(dd)}"
        if peak and trough:
            text += f", from its peak{levels[0]} on {peak.value} to the trough{levels[1]} on"
            text += f" {trough.value}"
        if recovery:
            text += f"; it recovered by {recovery.value}"
            text += f" (closing at {w.value(back, bare=bare)})" if back else ""
            if took and sessions:
                text += f", {took} calendar days ({sessions} trading days) after the peak"
            elif took:
                text += f", {took} calendar days after the peak"
        elif tracked:
            text += "; it had not recovered by the end of the window"
            text += f" ({span[1]})" if span else ""
        sentences.append(text + ".")
    return sentences


def _sharpe(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    rows = _numeric(_rows(facts, "sharpe"))[:MAX_SUBJECTS]
    if not rows:
        return []
    rf = next((f for f in step.record.facts if f.measure == "risk_free"), None)
    many = len(rows) > 1
    # The closes the returns ran between, when every name's are the same (as a volatility's).
    spans = {_row_span(step.value, subject) for subject, _ in rows}
    span = next(iter(spans)) if len(spans) == 1 else None
    if w.zh:
        joined = "，".join(f"{w.name(s, many=many)}为{w.value(f)}" for s, f in rows)
        basis = f"无风险利率{w.value(rf)}" if rf else ""
        closes = f"{span[0]}至{span[1]}收盘价" if span else ""
        said_basis = "，".join(p for p in (basis, closes) if p)
        return [f"{said.when}的夏普比率{f'（{said_basis}）' if said_basis else ''}：{joined}。"]
    items = [f"{_poss(w.name(s, many=many))} {w.value(f)}" for s, f in rows]
    head, value = items[0].rsplit(" ", 1)
    rest = f" and {_list(items[1:], False)}" if many else ""
    basis = f", with a risk-free rate of {w.value(rf)}" if rf else ""
    closes = f" (closes {span[0]} to {span[1]})" if span else ""
    return [f"{head} Sharpe ratio{_when(said)} was {value}{rest}{closes}{basis}."]


# --- series -----------------------------------------------------------------------------------


def _change(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    title = str(step.value.attrs.get("title") or "change")
    sentences = []
    for subject, m in list(facts.items())[:MAX_SUBJECTS]:
        if "last" not in m:
            continue
        last = m["last"]
        name = w.series(subject)
        levels = _levels_compared(title, subject, str(last.date), said)
        if w.zh:
            text = f"{name}最新的{w.title(title)}为{w.value(last)}（{last.date}）" + levels
            if "high" in m and "low" in m:
                text += (
                    f"；期间最高{w.value(m['high'])}（{m['high'].date}），"
                    f"最低{w.value(m['low'])}（{m['low'].date}）"
                )
            sentences.append(text + "。")
            continue
        text = f"The latest {lower_first(title)} of {name} was {w.value(last)} on {last.date}"
        text += levels
        if "high" in m and "low" in m:
            text += (
                f"; in the window it ranged from {w.value(m['low'])} on {m['low'].date} "
                f"to {w.value(m['high'])} on {m['high'].date}"
            )
        sentences.append(text + ".")
    return sentences


# How far back a change's title compares: the level it was measured against.
_COMPARED = {
    "Year-over-year": pd.DateOffset(years=1),
    "Quarter-over-quarter": pd.DateOffset(months=3),
}
_COMPARED |= {"Month-over-month": pd.DateOffset(months=1)}


def _levels_compared(title: str, subject: str, day: str, said: Said) -> str:
    """ " (9.20% on 2009-04-01 against 5.40% on 2008-04-01, up 3.80 percentage points)": the two
    levels a change compares, from the series it was computed from; '' when none is at hand."""
    plain = title.removeprefix("Annualised ")  # an annualised change compares the same levels
    back = next((o for w, o in _COMPARED.items() if plain.lower().startswith(w.lower())), None)
    # A period-over-period change compares the observation before, however far back it is.
    previous = plain.lower().startswith("period-over-period")
    if back is None and not previous:
        return ""
    at = pd.Timestamp(day)
    for frame in said.frames.values():
        title_of = str(frame.attrs.get("title") or "")
        if (
            "change" in title_of.casefold()
            or not isinstance(frame.index, pd.DatetimeIndex)
            or subject not in map(str, frame.columns)
            or at not in frame.index
        ):
            continue
        column = frame[next(c for c in frame.columns if str(c) == subject)].dropna()
        earlier = column[column.index < at] if back is None else column[column.index <= at - back]
        if earlier.empty or at not in column.index:
            return ""
        now, then = float(column[at]), float(earlier.iloc[-1])
        unit = column_unit(frame, subject)
        then_day = earlier.index[-1].date().isoformat()
        moved = now - then
        if unit.casefold() in ("%", "percent"):
            w = said.w
            points = f"{abs(moved):,.2f}{'个百分点' if w.zh else ' percentage points'}"
            if w.zh:
                verb = "上升" if moved >= 0 else "下降"
                return f"：{day}为{now:,.2f}%，{then_day}为{then:,.2f}%，{verb}{points}"
            verb = "up" if moved >= 0 else "down"
            return f" ({now:,.2f}% on {day} against {then:,.2f}% on {then_day}, {verb} {points})"
        if said.w.zh:
            return f"：{day}为{now:,.2f}，{then_day}为{then:,.2f}"
        return f" ({now:,.2f} on {day} against {then:,.2f} on {then_day})"
    return ""


def _level(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    joined_title = str(step.value.attrs.get("title") or "")
    column_titles = step.value.attrs.get("column_titles") or {}
    sentences = []
    for subject, m in list(facts.items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        title = str(column_titles.get(subject) or joined_title)
        first, last = m["first"], m["last"]
        bare = len(last.unit or "") > 4  # a long unit is said once
        move = m.get("pct_change")
        if step.record.output == "spread" and move is not None:
            # A spread's move is in its own unit: a % change of a difference (5.31 → 3.88, "down
            # 26.93%") says nothing a reader can use; "down 1.43 USD per barrel" does.
            gap = float(last.value) - float(first.value)
            unit = "percentage points" if last.unit in ("%", "percent") else last.unit
            move = Fact(label="change", value=gap, unit=unit, date=last.date)
        if (last.unit or "").startswith(REBASED_UNIT):
            sentences.append(_rebased(subject, m, w))
            continue
        if title.startswith(f"{subject} ("):
            # a basket's value: "60/40 AAPL/MSFT (buy and hold, …)", in Chinese its own title
            zh_title = str(step.value.attrs.get("title_zh") or "")
            name = zh_title if w.zh and zh_title.startswith(subject) else title
        elif w.is_name_of(title, subject) or title in {"", "Series values"}:
            name = w.series(subject)
        elif subject in column_titles and subject not in w.kinds:
            name = w.title(title)  # a derived column ("ma20"): its title says what it is
        elif from_client(step.value):
            # A column of the user's table: "close in "Price History"", not "Close's price History".
            name = f"“{title}”的{chinese_column(subject)}" if w.zh else f'{subject} in "{title}"'
        else:
            name = (
                f"{w.name(subject)}的{w.title(title)}"
                if w.zh
                else f"{_poss(w.name(subject))} {lower_first(title)}"
            )
        if w.zh:
            text = f"{name}在{last.date}为{w.value(last)}"
            if move is not None:
                verb = "上涨" if float(move.value) >= 0 else "下跌"
                since = w.value(first, bare=bare)
                text += f"，较{first.date}的{since}{verb}{w.value(move, absolute=True)}"
        else:
            text = f"{upper_first(name)} was {w.value(last)} on {last.date}"
            if move is not None:
                verb = "up" if float(move.value) >= 0 else "down"
                text += (
                    f", {verb} {w.value(move, absolute=True)} from "
                    f"{w.value(first, bare=bare)} on {first.date}"
                )
        sentences.append(text + _extremes(m, w, bare))
    return sentences


REBASED_UNIT = "index, start ="  # the unit `normalize` gives its levels


def _rebased(subject: str, m: dict[str, Fact], w: Words) -> str:
    """ "Apple rebased to 100: 134.65 on B (from 100 on A), up 34.65%; the high …"."""
    first, last, move = m["first"], m["last"], m.get("pct_change")
    start = (first.unit or "").removeprefix(REBASED_UNIT).strip() or w.value(first, bare=True)
    name = w.name(subject)
    if w.zh:
        text = f"{name}以{first.date}为{start}起点：{last.date}为{w.value(last, bare=True)}"
        if move is not None:
            verb = "上涨" if float(move.value) >= 0 else "下跌"
            text += f"，{verb}{w.value(move, absolute=True)}"
    else:
        text = (
            f"{name} rebased to {start}: {w.value(last, bare=True)} on {last.date} "
            f"(from {start} on {first.date})"
        )
        if move is not None:
            verb = "up" if float(move.value) >= 0 else "down"
            text += f", {verb} {w.value(move, absolute=True)}"
    return text + _extremes(m, w, True)


def _extremes(m: dict[str, Fact], w: Words, bare: bool) -> str:
    if "high" not in m or "low" not in m or m["high"].date == m["low"].date:
        # No range to tell (one value in the window): the value itself was said.
        return "。" if w.zh else "."
    high, low = m["high"], m["low"]
    if w.zh:
        return (
            f"；期间最高{w.value(high, bare=bare)}（{high.date}），"
            f"最低{w.value(low, bare=bare)}（{low.date}）。"
        )
    return (
        f"; the high was {w.value(high, bare=bare)} on {high.date} "
        f"and the low {w.value(low, bare=bare)} on {low.date}."
    )


def _candlestick(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    sentences = []
    for subject, m in list(facts.items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        first, last, move = m["first"], m["last"], m.get("pct_change")
        name = w.name(subject)
        bar = _one_bar(step.value, last)
        if bar is not None:  # one session asked ("o/h/l/c on 10/13/08"): its four prices
            sentences.append(_bar_sentence(name, last, bar, w))
            continue
        if w.zh:
            text = f"{name}在{last.date}收于{w.value(last)}"
            if move is not None:
                verb = "上涨" if float(move.value) >= 0 else "下跌"
                text += f"，较{first.date}的{w.value(first)}{verb}{w.value(move, absolute=True)}"
            if "close_high" in m and "close_low" in m:
                text += (
                    f"；收盘价最高{w.value(m['close_high'])}（{m['close_high'].date}），"
                    f"最低{w.value(m['close_low'])}（{m['close_low'].date}）"
                )
            if "high" in m and "low" in m:
                text += (
                    f"；盘中最高{w.value(m['high'])}（{m['high'].date}），"
                    f"最低{w.value(m['low'])}（{m['low'].date}）"
                )
            sentences.append(text + "。")
            continue
        text = f"{name} closed at {w.value(last)} on {last.date}"
        if move is not None:
            verb = "up" if float(move.value) >= 0 else "down"
            text += f", {verb} {w.value(move, absolute=True)} from {w.value(first)} on {first.date}"
        if "close_high" in m and "close_low" in m:
            text += (
                f"; its highest close was {w.value(m['close_high'])} on {m['close_high'].date} "
                f"and its lowest {w.value(m['close_low'])} on {m['close_low'].date}"
            )
        if "high" in m and "low" in m:
            text += (
                f"; the intraday high was {w.value(m['high'])} on {m['high'].date} "
                f"and the intraday low {w.value(m['low'])} on {m['low'].date}"
            )
        sentences.append(text + ".")
    return sentences


def _one_bar(frame: pd.DataFrame, last: Fact) -> dict[str, Fact] | None:
    """The open, high, low and close of a one-session OHLC frame, as facts in the close's unit."""
    fields = ("open", "high", "low", "close")
    if len(frame.index) != 1 or not set(fields) <= set(frame.columns):
        return None
    row = frame.iloc[0]
    return {f: Fact(label=f, value=float(row[f]), unit=last.unit, date=last.date) for f in fields}


def _bar_sentence(name: str, last: Fact, bar: dict[str, Fact], w: Words) -> str:
    """ "On 2008-10-13, Alphabet opened at 355.79 USD, traded as high as …": one session's bar."""
    o, h, lo, c = (w.value(bar[f]) for f in ("open", "high", "low", "close"))
    if w.zh:
        return f"{name}在{last.date}开盘{o}，最高{h}，最低{lo}，收盘{c}。"
    return (
        f"On {last.date}, {name} opened at {o}, traded as high as {h} and as low as {lo}, "
        f"and closed at {c}."
    )


_FORMS: dict[str, Callable[[Step, Facts, Said], list[str]]] = {
    "period_return": _period_return,
    "cagr": _cagr,
    "cumulative": _cumulative,
    "growth": _growth,
    "extreme_days": _extreme_days,
    "top_bottom": _top_bottom,
    "volatility": _volatility,
    "drawdown": _drawdown,
    "sharpe": _sharpe,
    "change": _change,
    "level": _level,
    "candlestick": _candlestick,
    "stats": stats_sentences,
    "correlation": correlation_sentences,
    "forecast": forecast_sentences,
}
