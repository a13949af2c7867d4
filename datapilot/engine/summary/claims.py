"""Whether the answer's figure bears out the figure the question checks: "The claim (more than
60%) does not hold: the figure is 57.58%.", 说法（80%以上）不成立：实际为57.58%。 Only a lead
result with one figure in percent for one name is set against it; any other shape says nothing
rather than compare the wrong figure."""

from __future__ import annotations

from datapilot.core.intent import Claim, Intent
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.words import Words

# Lead results whose first figure in percent is the one a claim is about: a window's return, a
# series' value, a drawdown, a yearly rate.
_CHECKED = {"period_return", "series", "max_drawdown", "annualized_return", "cumulative_returns"}
# The figure of each result: its headline in percent.
_HEADLINE = ("return_pct", "last", "max_drawdown_pct", "annualized_return_pct", "value")


def claim_sentence(lead: Step | None, intent: Intent | None, w: Words) -> list[str]:
    """One sentence saying whether the claim holds, or [] when no single figure answers it."""
    if lead is None or intent is None or intent.claim is None:
        return []
    if lead.record.output not in _CHECKED:
        return []
    facts = [f for f in lead.record.facts if f.unit == "%" and isinstance(f.value, float)]
    if len({f.subject for f in facts}) != 1:
        return []  # several names: which one the claim is about is not said
    figure = next((f for m in _HEADLINE for f in facts if f.measure == m), None)
    if figure is None:
        return []
    value = float(figure.value)
    holds = _holds(intent.claim, value)
    said = f"{value:,.2f}%"
    if w.zh:
        verdict = "成立" if holds else "不成立"
        return [f"说法（{intent.claim.said}）{verdict}：实际为{said}。"]
    verdict = "holds" if holds else "does not hold"
    return [f"The claim ({intent.claim.said}) {verdict}: the figure is {said}."]


def _holds(claim: Claim, value: float) -> bool:
    """Whether `value` bears out `claim`; a fall's claim is about its size (a rise bears out
    no fall, save "lost less than …")."""
    if claim.fall and value > 0:
        return claim.side == "below"
    size = abs(value) if claim.fall else value
    if claim.side == "above":
        return size >= claim.value if claim.inclusive else size > claim.value
    if claim.side == "below":
        return size <= claim.value if claim.inclusive else size < claim.value
    # "about 78%": within a point (or 2% of it); a figure said exactly ("66.7%"): to its digits
    if claim.decimals:
        return abs(round(size, claim.decimals) - claim.value) < 10**-claim.decimals / 2
    return abs(size - claim.value) <= max(1.0, claim.value * 0.02)
