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
    if intent.claim.leader is not None:
        return _gap_claim(lead, intent.claim, w)
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


def _gap_claim(lead: Step, claim: Claim, w: Words) -> list[str]:
    """Whether the gap between two names' returns bears out the one claimed, the name said to
    be ahead included ("Walmart trailed the S&P 500 by about 19 points")."""
    returns = {
        f.subject: float(f.value)
        for f in lead.record.facts
        if f.measure in _GAP_OF and isinstance(f.value, float) and f.subject
    }
    if len(returns) != 2:
        return []
    (ahead, best), (behind, worst) = sorted(returns.items(), key=lambda r: -r[1])
    gap = best - worst
    holds = ahead == claim.leader and _holds(claim, gap)
    names = {s: w.name(s, many=True) for s in returns}
    if w.zh:
        verdict = "成立" if holds else "不成立"
        return [
            f"说法（{claim.said}）{verdict}：{names[ahead]}的收益率比{names[behind]}高"
            f"{gap:,.2f}个百分点。"
        ]
    verdict = "holds" if holds else "does not hold"
    return [
        f"The claim ({claim.said}) {verdict}: {names[ahead]} was {gap:,.2f} percentage points "
        f"ahead of {names[behind]}."
    ]


# The returns a gap between two names is taken between.
_GAP_OF = ("return_pct", "annualized_return_pct")


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
