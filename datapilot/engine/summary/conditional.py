"""The sentence of returns over the periods another name moved (`returns_when`): "On the 23
sessions in 2022 when the S&P 500 fell more than 2% (2022-01-05 to 2022-12-15), Walmart's average
daily return was -0.85%." Every number is a fact of the table, written by `format_value`."""

from __future__ import annotations

import pandas as pd

from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import MAX_SUBJECTS, Step
from datapilot.engine.summary.kinds import Said
from datapilot.engine.summary.phrasing import possessive, when_said
from datapilot.engine.summary.statistics import input_holding, returns_base_day

_EN = {"daily": ("sessions", "daily"), "weekly": ("weeks", "weekly")}
_EN |= {"monthly": ("months", "monthly"), "quarterly": ("quarters", "quarterly")}
_ZH = {"daily": ("个交易日", "日"), "weekly": ("周", "周"), "monthly": ("个月", "月")}
_ZH |= {"quarterly": ("个季度", "季度")}


def conditional_sentences(step: Step, said: Said) -> list[str]:
    """Each name's mean return over the periods the condition picked, with how many there were
    and the first and last of them; the condition's own mean after the others'."""
    w = said.w
    frame: pd.DataFrame = step.value
    condition = str(frame.attrs.get("condition") or "")
    side = str(frame.attrs.get("side") or "down")
    threshold = float(frame.attrs.get("threshold") or 0.0)
    period = str(frame.attrs.get("period") or "daily")
    if frame.empty or not condition:
        return []
    first = frame.iloc[0]
    count = int(first.periods)
    span = (
        f"{first.first_date}至{first.last_date}"
        if w.zh
        else f"{first.first_date} to {first.last_date}"
    )
    window = _window(step, condition, said)
    who = w.name(condition)
    rows = [(str(i), r) for i, r in frame.iterrows()][:MAX_SUBJECTS]
    others = len(rows) > 1  # the condition's own mean is said as its own beside the others'
    if w.zh:
        units, per = _ZH.get(period, ("个时段", ""))
        moved = "下跌" if side == "down" else "上涨"
        more = f"超过{threshold:g}%" if threshold else ""
        items = "，".join(
            f"{w.name(i)}{'自身' if i == condition and others else ''}的平均{per}收益率为"
            f"{format_value(float(r.mean_return_pct), '%')}"
            + (f"（{int(r.periods)}{units}）" if int(r.periods) != count else "")
            for i, r in rows
        )
        among = f"（{window[1]}至{window[2]}，首个自{window[0]}收盘起算）" if window else ""
        return [f"{said.when}{among}{who}{moved}{more}的{count}{units}里（{span}），{items}。"]
    units, per = _EN.get(period, ("periods", ""))
    moved = "fell" if side == "down" else "rose"
    more = f" more than {threshold:g}%" if threshold else ""
    items = "; ".join(
        f"{'its own' if i == condition and others else possessive(w.name(i))} average {per} "
        "return was "
        f"{format_value(float(r.mean_return_pct), '%')}"
        + (f" (over {int(r.periods)} of them)" if int(r.periods) != count else "")
        for i, r in rows
    )
    among = f" ({window[1]} to {window[2]}, the first from the {window[0]} close)" if window else ""
    when = when_said(said)
    return [f"On the {count} {units}{when}{among} when {who} {moved}{more} ({span}), {items}."]


def _window(step: Step, condition: str, said: Said) -> tuple[str, str, str] | None:
    """The window the periods were picked from: the close the first return starts from, the
    first period's day and the last's."""
    base = returns_base_day(step, condition, said)
    source = input_holding(step, condition, said, dated=True)
    if base is None or source is None or source.empty:
        return None
    return base, source.index.min().date().isoformat(), source.index.max().date().isoformat()
