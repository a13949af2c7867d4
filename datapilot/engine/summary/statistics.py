"""The answer sentences of statistics, correlations and forecasts: a series' mean, median and
extremes (with their days), a statistic across a table's rows, a correlation, a forecast's path."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from datapilot.core.intent import frequency_of_gap
from datapilot.core.plan import refs_in
from datapilot.core.results import Fact
from datapilot.data.phrases_zh import model_zh
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.kinds import STAT_COLUMNS, Said
from datapilot.engine.summary.phrasing import (
    Facts,
    after_name,
    measure_said,
    possessive,
    when_said,
)
from datapilot.engine.summary.words import lower_first, upper_first


def stats_sentences(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    title = str(step.value.attrs.get("title") or "")
    measure = _stat_subject(title)
    sentences = []
    for subject, m in list(facts.items())[:MAX_SUBJECTS]:
        parts = [
            (name, m[name])
            for name in ("mean", "median", "std", "min", "max", "sum", "last", "first")
            if name in m and isinstance(m[name].value, float)
        ]
        if not parts:
            continue
        count = m.get("count") or m.get("observations")
        across = _across(step, subject, said)
        if across:
            sentences.append(_across_sentence(across, parts, said))
            continue
        name = w.name(subject)
        column = _dated_column(step, subject, said)
        days = _stat_days(column, m)
        observed = _observed(column)
        base = returns_base_day(step, subject, said)
        if w.zh:
            items = "，".join(
                f"{measure_said(k, True)}{w.value(f)}" + (f"（{days[k]}）" if k in days else "")
                for k, f in parts
            )
            label = w.title(measure) if measure else ""
            label = "" if label and (label in name or name in label) else label  # a series' own
            what = after_name(name, said.when) + (f"的{label}" if label else "")
            basis = f"（{w.value(count)}个观测值）" if count else ""
            if observed is not None:  # the values it was taken of, by their first and last days
                n, first, last = observed
                since = f"，首个自{base}起算" if base else ""
                basis = f"（{n}个观测值，{first}至{last}{since}）" if first != last else basis
            sentences.append(f"{what}：{items}{basis}。")
            continue
        items = ", ".join(
            f"{measure_said(k, False)} {w.value(f)}" + (f" on {days[k]}" if k in days else "")
            for k, f in parts
        )
        own = measure and (measure.lower() in name.lower() or name.lower() in measure.lower())
        what = f"{possessive(name)} {lower_first(measure)}" if measure and not own else name
        basis = f" ({w.value(count)} observations)" if count else ""
        if observed is not None:
            n, first, last = observed
            since = f"; the first from {base}" if base else ""
            basis = f" ({n} observations, {first} to {last}{since})" if first != last else basis
        sentences.append(f"{upper_first(what)}{when_said(said)}: {items}{basis}.")
    return sentences


_KIND_NOUNS = {"stock": ("stocks", "只股票"), "index": ("indices", "个指数")}


def _dated_column(step: Step, subject: str, said: Said) -> pd.Series | None:
    """The dated values a series' statistic was taken of (its input's column, blanks dropped);
    None when the statistic was taken across a table's rows or the input is not at hand."""
    source = input_holding(step, subject, said, dated=True)
    if source is None:
        return None
    return source[next(c for c in source.columns if str(c) == subject)].dropna()


def _stat_days(column: pd.Series | None, m: dict[str, Fact]) -> dict[str, str]:
    """The days a series' statistics' `min` and `max` fell on ("max 112.33 USD on 2022-11-22"),
    when they were taken over one dated series and are its extremes; {} otherwise."""
    if column is None or column.empty or not pd.api.types.is_numeric_dtype(column):
        return {}
    found = {"max": column.idxmax(), "min": column.idxmin()}
    return {
        k: day.date().isoformat()
        for k, day in found.items()
        if k in m
        and isinstance(m[k].value, float)
        and abs(float(column[day]) - float(m[k].value)) <= 1e-9 * max(1.0, abs(float(m[k].value)))
    }


def returns_base_day(step: Step, subject: str, said: Said) -> str | None:
    """The day the first of the returns a statistic was taken of starts from (the 2018-12-31
    close for monthly returns in 2019), as `compute_returns` records it; None for values that
    are returns themselves (a factor's monthly figures start from no close)."""
    source = input_holding(step, subject, said, dated=True)
    if source is None or source.empty:
        return None
    day = (source.attrs.get("returns_from") or {}).get(subject)
    return day if day and pd.Timestamp(day) < source.index.min() else None


def _observed(column: pd.Series | None) -> tuple[int, str, str] | None:
    """How many values a series' statistic was taken of, and the first and last days they fell
    on: a window's mean of monthly data runs from its first month to its last ("120 observations,
    1990-01-01 to 1999-12-01"), not to the window's last calendar day."""
    if column is None or column.empty:
        return None
    days = column.index
    return len(column), days.min().date().isoformat(), days.max().date().isoformat()


def _across(step: Step, subject: str, said: Said) -> tuple[str, pd.DataFrame] | None:
    """(column, table) when a statistic was taken across a table's rows (the mean volatility
    of 20 stocks), not over one series' history."""
    source = input_holding(step, subject, said, dated=False)
    return (subject, source) if source is not None else None


def input_holding(step: Step, subject: str, said: Said, *, dated: bool) -> pd.DataFrame | None:
    """The first frame the step was computed from that has a column `subject`, indexed by dates
    (a series' history) or not (a table's rows): among its inputs, then theirs (a mean and a
    median combined into one table were each taken of the daily returns)."""
    queue, seen = list(refs_in(step.call.args)), set()
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        source = said.frames.get(name)
        if (
            source is not None
            and isinstance(source.index, pd.DatetimeIndex) == dated
            and subject in map(str, source.columns)
        ):
            return source
        queue.extend(said.inputs.get(name, []))
    return None


def _across_sentence(
    across: tuple[str, pd.DataFrame], parts: Sequence[tuple[str, Fact]], said: Said
) -> str:
    """ "The mean annualised volatility of the 20 stocks in 2021 was 25.81%"."""
    w = said.w
    column, source = across
    ids = [str(i) for i in source.index]
    kinds = {w.kinds.get(i, "") for i in ids}
    noun = _KIND_NOUNS.get(kinds.pop(), ("names", "个标的")) if len(kinds) == 1 else None
    noun = noun or ("names", "个标的")
    label = measure_said(column, w.zh)
    if w.zh:
        items = "，".join(f"{measure_said(k, True)}为{w.value(f)}" for k, f in parts)
        return f"这{len(ids)}{noun[1]}{said.when}的{label}：{items}。"
    items = "; ".join(
        f"the {measure_said(k, False)} {label} of the {len(ids)} {noun[0]}{when_said(said)} was "
        f"{w.value(f)}"
        for k, f in parts
    )
    return upper_first(items) + "."


def _stat_subject(title: str) -> str:
    """ "Daily return" of "Statistics of Daily return" or "Mean of Daily return & Median of …"."""
    first = title.split(" & ")[0]
    head, _, rest = first.partition(" of ")
    if rest and (head.lower() in STAT_COLUMNS or head.lower() == "statistics"):
        return rest
    return ""


def correlation_sentences(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    title = str(step.value.attrs.get("title") or "")
    method = title.partition("(")[2].rstrip(")") or ""
    pairs = [f for f in step.record.facts if isinstance(f.value, float)][:6]
    if not pairs:
        return []

    def pair(fact: Fact) -> tuple[str, str]:
        a, _, b = (fact.subject or "").partition("–")
        return w.name(a, many=True), w.name(b, many=True)

    observed = _correlated_rows(step.value.attrs.get("observed"), w.zh)
    if len(pairs) == 1:
        a, b = pair(pairs[0])
        if w.zh:
            how = f"（{w.title(title).partition('（')[2].rstrip('）')}）" if method else ""
            return [f"{said.when}{a}与{b}的相关系数为{w.value(pairs[0])}{how}{observed}。"]
        how = f" ({method})" if method else ""
        return [
            f"The correlation of {a} and {b}{when_said(said)} was {w.value(pairs[0])}{how}"
            f"{observed}."
        ]
    top = max(pairs, key=lambda f: float(f.value))
    a, b = pair(top)
    items = [f"{'–'.join(pair(f))} {w.value(f)}" for f in pairs]
    if w.zh:
        return [
            f"{said.when}相关性最高的是{a}与{b}（{w.value(top)}）；各组：{'；'.join(items)}"
            f"{observed}。"
        ]
    return [
        f"The most correlated pair{when_said(said)} was {a} and {b} ({w.value(top)}); "
        f"all pairs: {'; '.join(items)}{observed}."
    ]


def _correlated_rows(observed: object, zh: bool) -> str:
    """How many rows a correlation was computed over, and their first and last dates."""
    if not isinstance(observed, dict) or not observed.get("count"):
        return ""
    count, first, last = observed["count"], observed["first"], observed["last"]
    if zh:
        return f"，基于{first}至{last}的{count}组数据"
    return f", over {count} observations from {first} to {last}"


_PERIOD_WORDS = {
    "quarterly": ("quarters", "个季度"),
    "monthly": ("months", "个月"),
    "annual": ("years", "年"),
    "weekly": ("weeks", "周"),
    "daily": ("trading days", "个交易日"),
}


def forecast_sentences(step: Step, facts: Facts, said: Said) -> list[str]:
    w = said.w
    frame: pd.DataFrame = step.value
    model = str(frame.attrs.get("model") or "")
    periods = _periods(frame, w.zh)
    sentences = []
    for subject, m in facts.items():
        point = m.get("forecast")
        if point is None:
            continue
        name = w.series(subject)
        bare = len(point.unit or "") > 4
        band = ""
        if "lower" in m and "upper" in m:
            lo, hi = w.value(m["lower"], bare=bare), w.value(m["upper"], bare=bare)
            band = f"（区间 {lo} 至 {hi}）" if w.zh else f" (interval {lo} to {hi})"
        if w.zh:
            how = f"（{model_zh(model)}）" if model else ""
            sentences.append(
                f"预测{how}{name}未来{periods}后，即{point.date}为{w.value(point)}{band}。"
            )
        else:
            how = f" ({model})" if model else ""
            sentences.append(
                f"The forecast{how} puts {name} at {w.value(point)} on {point.date}, "
                f"{periods} ahead{band}."
            )
    return sentences


def _periods(frame: pd.DataFrame, zh: bool) -> str:
    """The horizon in the data's own periods: "8 quarters", 8个季度."""
    n = len(frame)
    words = ("periods", "期")
    if isinstance(frame.index, pd.DatetimeIndex) and n >= 2:
        gap = float(np.median(np.diff(frame.index.values).astype("timedelta64[D]").astype(float)))
        words = _PERIOD_WORDS.get(frequency_of_gap(gap), words)
    return f"{n}{words[1]}" if zh else f"{n} {words[0]}"
