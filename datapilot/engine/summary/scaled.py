"""The headline figure restated in the scale the question asked: "That is 4.08 million shares.",
即408.39万股; a percent in basis points: "That is 260 basis points.", 即260个基点."""

from __future__ import annotations

import pandas as pd

from datapilot.core.intent import Intent
from datapilot.core.results import Fact
from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.words import Words
from datapilot.interfaces.frame import column_unit

# A rate's change is in points: "percentage points", or "pp" as a series' change is written.
_POINTS = ("percentage points", "pp")
_NOT_SCALED = ("%", "percent", *_POINTS, "×", "index, base = 100")
_PERCENTS = ("%", "percent", *_POINTS)
BASIS_POINTS = "basis points"  # the scale word the reader gives basis points
_ZH_UNITS = {"shares": "股", "USD": "美元", "CNY": "元"}
# The facts a headline states, in the order one is chosen.
_HEADLINE = ("mean", "median", "value", "last", "sum")


def scaled_sentence(lead: Step | None, intent: Intent | None, w: Words) -> list[str]:
    """The lead result's headline amount divided by the scale asked, or [] when none fits."""
    if lead is None or intent is None or intent.scale is None:
        return []
    factor, word = intent.scale
    points = word == BASIS_POINTS
    if points and lead.record.output == "figure_difference":
        return _both_in_points(lead, factor, w)
    if points and (ranked := _ranked_in_points(lead, factor)):
        # "which three months printed the tightest, and at how many bp": each of them
        listed = "、".join(ranked) if w.zh else ", ".join(ranked[:-1]) + " and " + ranked[-1]
        return [f"即{listed}个基点。" if w.zh else f"That is {listed} basis points."]
    if points:  # a rate's change in points first (never its % change), else a percent
        # (a ranking's gap between two names' returns is in points too)
        changes = [
            f for f in lead.record.facts if f.unit in _POINTS or (f.measure == "gap" and f.value)
        ]
        amounts = changes or [f for f in lead.record.facts if f.unit in _PERCENTS]
    else:
        amounts = [f for f in lead.record.facts if f.unit and f.unit not in _NOT_SCALED]
    amounts = [f for f in amounts if isinstance(f.value, float)]
    if not amounts:
        return []
    fact = next((f for m in _HEADLINE for f in amounts if f.measure == m), amounts[0])
    figure = _in_scale(fact, factor)
    if points:
        return [f"即{figure}个基点。" if w.zh else f"That is {figure} basis points."]
    unit = str(fact.unit)
    if w.zh:
        return [f"即{figure}{word}{_ZH_UNITS.get(unit, unit)}。"]
    return [f"That is {figure} {word} {unit}."]


def moves_in_points(step: Step) -> bool:
    """Whether `step` states a change in percentage points (a rate's or a spread's move)."""
    return any(f.unit in _POINTS and isinstance(f.value, float) for f in step.record.facts)


def _both_in_points(lead: Step, factor: float, w: Words) -> list[str]:
    """Two rates and their difference, each in basis points: "2018年12月是多少个基点？跟2017年
    12月相比扩大了多少个基点" asks the level and the move."""
    by = {f.measure: f for f in lead.record.facts if isinstance(f.value, float)}
    value, other, gap = by.get("value"), by.get("other_value"), by.get("difference")
    if value is None or other is None or gap is None or value.unit not in _PERCENTS:
        return []
    a, b, moved = (_in_scale(f, factor) for f in (value, other, gap))
    if w.zh:
        return [f"即{a}个基点（{other.date}为{b}个基点），相差{moved}个基点。"]
    return [
        f"That is {a} basis points against {b} on {other.date}, a difference of {moved} basis "
        "points."
    ]


def _ranked_in_points(lead: Step, factor: float) -> list[str]:
    """The values of several ranked extremes in percent, each in the scale; [] otherwise."""
    frame = lead.value
    if lead.call.interface != "period_extremes" or not isinstance(frame, pd.DataFrame):
        return []
    if len(frame) < 2 or "value" not in frame.columns:
        return []
    if str(column_unit(frame, "value")) not in _PERCENTS:
        return []
    return [_in_scale(Fact(label="", value=float(v), unit="%"), factor) for v in frame["value"]]


def _in_scale(fact: Fact, factor: float) -> str:
    """`fact`'s figure in the scale asked (1.11 / 0.01 is 111.00000000000001: rounded first, so
    a whole figure prints whole)."""
    return format_value(round(float(fact.value) / factor, 6), None)
