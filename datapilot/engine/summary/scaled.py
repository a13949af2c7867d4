"""The headline figure restated in the scale the question asked: "That is 4.08 million shares.",
即408.39万股."""

from __future__ import annotations

from datapilot.core.intent import Intent
from datapilot.engine.facts import format_value
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.words import Words

_NOT_SCALED = ("%", "percent", "percentage points", "×", "index, base = 100")
_ZH_UNITS = {"shares": "股", "USD": "美元", "CNY": "元"}
# The facts a headline states, in the order one is chosen.
_HEADLINE = ("mean", "median", "value", "last", "sum")


def scaled_sentence(lead: Step | None, intent: Intent | None, w: Words) -> list[str]:
    """The lead result's headline amount divided by the scale asked, or [] when none fits."""
    if lead is None or intent is None or intent.scale is None:
        return []
    factor, word = intent.scale
    amounts = [
        f
        for f in lead.record.facts
        if isinstance(f.value, float) and f.unit and f.unit not in _NOT_SCALED
    ]
    if not amounts:
        return []
    fact = next((f for m in _HEADLINE for f in amounts if f.measure == m), amounts[0])
    figure = format_value(float(fact.value) / factor, None)
    unit = str(fact.unit)
    if w.zh:
        return [f"即{figure}{word}{_ZH_UNITS.get(unit, unit)}。"]
    return [f"That is {figure} {word} {unit}."]
