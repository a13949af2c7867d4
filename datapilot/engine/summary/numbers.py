"""What the numbers say: the key results' facts as sentences, and what did not work."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from datapilot.core.plan import refs_in
from datapilot.core.results import Fact
from datapilot.data.phrases_zh import LINE_ZH, MEASURE_ZH
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.words import Words, upper_first
from datapilot.interfaces.table_words import chinese_column

MAX_KEY_RESULTS = 3
MAX_RANKED = 10
MAX_PAIRS = 6


def key_results(steps: list[Step]) -> list[Step]:
    """The frames worth quoting: those shown as charts or tables, else those nothing else used."""
    frames = {
        s.record.output: s
        for s in steps
        if s.record.status == "ok" and isinstance(s.value, pd.DataFrame) and s.record.facts
    }
    shown = [
        name
        for s in steps
        if s.category == "visualization"
        for name in refs_in(s.call.args)
        if name in frames
    ]
    if not shown:
        used = {name for s in steps for name in refs_in(s.call.args)}
        shown = [name for name in frames if name not in used]
    # A difference between two parts' figures answers the question that asked for it: it leads,
    # never cut off behind the parts it compares.
    ordered = sorted(dict.fromkeys(shown), key=lambda name: not _is_difference(frames[name]))
    return [frames[name] for name in ordered][:MAX_KEY_RESULTS]


def _is_difference(step: Step) -> bool:
    return {"value", "other_value", "difference"} <= set(map(str, step.value.columns))


def fact_sentences(step: Step, w: Words) -> list[str]:
    """A key result's facts as sentences, by the kind of frame it is."""
    frame: pd.DataFrame = step.value
    facts = step.record.facts
    kind = frame.attrs.get("kind") or (
        "timeseries" if isinstance(frame.index, pd.DatetimeIndex) else "cross_section"
    )
    title = str(frame.attrs.get("title") or "")
    if kind == "forecast":
        return _forecast_sentences(facts, w)
    if kind == "matrix":
        return _matrix_sentences(facts, title, w)
    if kind in {"timeseries", "indicator", "ohlcv"} and isinstance(frame.index, pd.DatetimeIndex):
        starts = frame.attrs.get("returns_from")
        starts = starts if isinstance(starts, dict) else {}
        return _series_sentences(own_units(facts, frame), title, w, kind=kind, starts=starts)
    return _cell_sentences(facts, title, w)


def own_units(facts: list[Fact], frame: pd.DataFrame) -> list[Fact]:
    """Series of different units side by side (CPI and M1): each value with its own unit."""
    units = frame.attrs.get("units")
    shared = frame.attrs.get("unit")
    if not isinstance(units, dict) or not shared:
        return facts
    return [
        f.model_copy(update={"unit": units[f.subject]})
        if f.unit == shared and units.get(f.subject)
        else f
        for f in facts
    ]


def _by_subject(facts: Iterable[Fact]) -> dict[str, dict[str, Fact]]:
    grouped: dict[str, dict[str, Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.subject or "", {})[fact.measure or "value"] = fact
    return grouped


def _series_sentences(
    facts: list[Fact], title: str, w: Words, kind: str, starts: dict[str, str] | None = None
) -> list[str]:
    if kind == "indicator":
        return _indicator_sentences(facts, title, w)
    v = w.value
    sentences = []
    for subject, m in list(_by_subject(facts).items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        first, last = m["first"], m["last"]
        name = _series_name(subject, title, w, kind)
        # A long unit ("billions of chained 2012 USD") is said once per sentence.
        bare = len(first.unit or "") > 4
        move = m.get("pct_change") or m.get("change")
        points = move is not None and move.unit == "pp"  # a rate's change: percentage points
        if first.date == last.date:
            # A single value has no "from … to …": it is said once.
            sentences.append(
                f"{name}在{first.date}为{v(first)}。"
                if w.zh
                else f"{upper_first(name)} was {v(first)} on {first.date}."
            )
            continue
        if w.zh:
            text = f"{name}从{first.date}的{v(first)}变为{last.date}的{v(last, bare=bare)}"
            if move is not None and isinstance(move.value, float):
                verb = "上涨" if move.value > 0 else "下跌" if move.value < 0 else "变化"
                if points:
                    verb = "上升" if move.value > 0 else "下降" if move.value < 0 else "变化"
                    text += f"，{verb}{abs(move.value):,.2f}个百分点"
                else:
                    text += f"，{verb}{v(move, absolute=True)}"
            if "high" in m and "low" in m:
                text += (
                    f"；期间最高{v(m['high'], bare=bare)}（{m['high'].date}），"
                    f"最低{v(m['low'], bare=bare)}（{m['low'].date}）"
                )
            sentences.append(text + _since(starts, subject, first.date, w) + "。")
            continue
        text = (
            f"{upper_first(name)} went from {v(first)} on {first.date} "
            f"to {v(last, bare=bare)} on {last.date}"
        )
        if move is not None and isinstance(move.value, float) and move.value != 0:
            verb = "up" if move.value > 0 else "down"
            said = f"{abs(move.value):,.2f} percentage points" if points else None
            text += f", {verb} {said or v(move, absolute=True)}"
        if "high" in m and "low" in m:
            text += (
                f"; the high was {v(m['high'], bare=bare)} on {m['high'].date} "
                f"and the low {v(m['low'], bare=bare)} on {m['low'].date}"
            )
        sentences.append(text + _since(starts, subject, first.date, w) + ".")
    return sentences


def _since(starts: dict[str, str] | None, subject: str, first: object, w: Words) -> str:
    """The day a series of returns starts from, when before its first return ("; the first
    return from the 2019-12-31 close")."""
    day = (starts or {}).get(subject)
    if not day or str(first) <= day:
        return ""
    return f"（首个收益率自{day}起算）" if w.zh else f" (the first return from {day})"


_MEASURE_WORDS = ("close", "open", "price", "return", "volatility", "drawdown", "change", "level")


def _series_name(subject: str, title: str, w: Words, kind: str) -> str:
    if kind == "ohlcv":
        title = "Close"
    if w.is_name_of(title, subject) or title == "Series values":
        return w.series(subject)  # "US real GDP (GDPC1)", 实际GDP（GDPC1）
    if w.zh:
        return f"{subject}的{w.title(title)}" if title else subject
    if not title:
        return subject
    if any(word in title.lower() for word in _MEASURE_WORDS):
        return f"{title} of {subject}"
    return f"{title} ({subject})"  # a series name, e.g. "US real GDP (GDPC1)"


def _indicator_sentences(facts: list[Fact], title: str, w: Words) -> list[str]:
    """An indicator's lines at their last date, in one sentence."""
    lasts = [m["last"] for m in _by_subject(facts).values() if "last" in m]
    if not lasts:
        return []
    when = lasts[0].date
    if w.zh:
        items = [f"{LINE_ZH.get(f.subject or '', f.subject)} {w.value(f)}" for f in lasts]
        return [f"{w.title(title) or '指标'}在{when}：{'，'.join(items)}。"]
    items = [f"{fact.subject} {w.value(fact)}" for fact in lasts]
    return [f"{upper_first(title or 'The indicator')} on {when}: {', '.join(items)}."]


def _cell_sentences(facts: list[Fact], title: str, w: Words) -> list[str]:
    numeric = [f for f in facts if isinstance(f.value, float)]
    if not numeric:
        return []
    main = numeric[0].measure or "value"
    ranked = [f for f in numeric if f.measure == main]
    others = _by_subject(f for f in facts if f.measure != main)
    label = _measure_label(main, w.zh)
    head = (w.title(title) if w.zh else title) or label
    items = []
    for position, fact in enumerate(ranked[:MAX_RANKED], 1):
        extra = _cell_extras(others.get(fact.subject or "", {}), w)
        rank = f"{position}. " if len(ranked) > 1 and "rank" in {f.measure for f in facts} else ""
        items.append(f"{rank}{fact.subject} {w.value(fact)}{extra}")
    more = len(ranked) - MAX_RANKED
    said = head if label.lower() in head.lower() else f"{head} ({label})"
    if w.zh:
        tail = f"，另有{more}项" if more > 0 else ""
        said = head if label in head else f"{head}（{label}）"
        return [f"{said}：{'；'.join(items)}{tail}。"]
    tail = f", and {more} more" if more > 0 else ""
    return [f"{upper_first(said)}: {'; '.join(items)}{tail}."]


def _cell_extras(measures: dict[str, Fact], w: Words) -> str:
    """The other numbers of a row (mean → median, std …), leaving out bookkeeping columns."""
    parts = [
        f"{_measure_label(name, w.zh)} {w.value(fact)}"
        for name, fact in measures.items()
        if name not in {"rank", "start_value", "end_value"}
        and not name.endswith("_date")
        and isinstance(fact.value, float)
    ][:5]
    dates = [
        f"{_measure_label(name, w.zh)} {fact.value}"
        for name, fact in measures.items()
        if isinstance(fact.value, str)
    ][:3]
    parts += dates
    if not parts:
        return ""
    return f"（{'，'.join(parts)}）" if w.zh else f" ({', '.join(parts)})"


def _matrix_sentences(facts: list[Fact], title: str, w: Words) -> list[str]:
    pairs = [f for f in facts if isinstance(f.value, float)][:MAX_PAIRS]
    if not pairs:
        return []
    items = [f"{f.subject} {w.value(f)}" for f in pairs]
    if w.zh:
        return [f"{w.title(title) or '相关系数'}：{'；'.join(items)}。"]
    return [f"{upper_first(title or 'value')}: {'; '.join(items)}."]


def _forecast_sentences(facts: list[Fact], w: Words) -> list[str]:
    v = w.value
    sentences = []
    for subject, m in _by_subject(facts).items():
        point = m.get("forecast")
        if point is None:
            continue
        bare = len(point.unit or "") > 4  # a long unit is said once
        band = ""
        if "lower" in m and "upper" in m:
            band = (
                f"（区间 {v(m['lower'], bare=bare)} 至 {v(m['upper'], bare=bare)}）"
                if w.zh
                else f" (interval {v(m['lower'], bare=bare)} to {v(m['upper'], bare=bare)})"
            )
        start = m.get("forecast_first")
        if w.zh:
            lead = f"{subject}的预测值从{start.date}的{v(start)}" if start else f"{subject}的预测值"
            sentences.append(
                f"{lead}到{point.date}为{v(point, bare=bare and start is not None)}{band}。"
            )
        else:
            lead = (
                f"The forecast of {subject} starts at {v(start)} on {start.date} and reaches"
                if start
                else f"The forecast of {subject} reaches"
            )
            sentences.append(
                f"{lead} {v(point, bare=bare and start is not None)} on {point.date}{band}."
            )
    return sentences


def problems_sentence(steps: list[Step], zh: bool) -> str:
    """The calls that failed, timed out or did not run, with why."""
    parts = []
    for step in steps:
        name, error = step.call.interface, (step.record.error or "").rstrip(".")
        if step.record.status == "skipped":
            parts.append(f"{name} 未运行（{error}）" if zh else f"{name} did not run ({error})")
        elif step.record.status == "timeout":
            parts.append(f"{name} 超时（{error}）" if zh else f"{name} timed out ({error})")
        else:
            parts.append(f"{name} 失败：{error}" if zh else f"{name} failed: {error}")
    if zh:
        return "注意：" + "；".join(parts) + "。"
    return "Not everything worked: " + "; ".join(parts) + "."


_MEASURE_EN = {
    "max_drawdown_pct": "maximum drawdown",
    "return_pct": "return",
    "sharpe": "Sharpe ratio",
    "annual_return_pct": "annual return",
    "annual_volatility_pct": "annual volatility",
}


def _measure_label(name: str, zh: bool) -> str:
    if zh and name in MEASURE_ZH:
        return MEASURE_ZH[name]
    if not zh and name in _MEASURE_EN:
        return _MEASURE_EN[name]
    if zh:  # a column of the user's table: 收盘价, not close
        return chinese_column(name)
    words = name.removesuffix("_pct").replace("_", " ")
    return words
