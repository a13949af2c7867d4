"""The gap of a ranking of returns said in words: the best's lead on the worst, or — between two
names — the margin of the one named first, led or trailed ("Eli Lilly trailed Merck by 15.57
percentage points", 礼来跑输默沙东15.57个百分点)."""

from __future__ import annotations

import pandas as pd

from datapilot.core.plan import refs_in
from datapilot.core.results import Fact
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.kinds import Said
from datapilot.engine.summary.phrasing import possessive


def named_first(step: Step, said: Said) -> str | None:
    """The first name of the frame the ranking was computed from: the order the question said."""
    for ref in refs_in(step.call.args):
        frame = said.frames.get(ref)
        if isinstance(frame, pd.DataFrame) and len(frame.index):
            return str(frame.index[0])
    return None


def gap_sentences(
    rows: list[tuple[str, Fact]], said: Said, first: str | None = None, yearly: bool = False
) -> list[str]:
    """The difference between the best and the worst return, in percentage points; with two
    names, from the side of the one named `first`. `yearly`: the returns are annualised, so
    the gap is one of yearly rates."""
    w = said.w
    if len(rows) < 2:
        return []  # one name left: no gap to state
    best = max(rows, key=lambda r: float(r[1].value))
    worst = min(rows, key=lambda r: float(r[1].value))
    points = float(best[1].value) - float(worst[1].value)
    if yearly:
        if w.zh:
            return [
                f"{w.name(best[0], many=True)}的年化收益率比{w.name(worst[0], many=True)}"
                f"高{points:,.2f}个百分点。"
            ]
        best_name, worst_name = (possessive(w.name(r[0], many=True)) for r in (best, worst))
        return [
            f"{best_name} annualised return was {points:,.2f} percentage points a year higher "
            f"than {worst_name}."
        ]
    if len(rows) == 2 and first == worst[0] and points > 0:
        if w.zh:  # 跑输: the name asked about did worse
            # "跑输标普500的幅度为3.27个百分点": never a figure glued to a name ending in a digit
            return [
                f"{w.name(worst[0], many=True)}跑输{w.name(best[0], many=True)}的幅度为"
                f"{points:,.2f}个百分点。"
            ]
        return [
            f"{w.name(worst[0], many=True)} trailed {w.name(best[0], many=True)} by "
            f"{points:,.2f} percentage points."
        ]
    if w.zh:
        return [
            f"{w.name(best[0], many=True)}的收益率比{w.name(worst[0], many=True)}"
            f"高{points:,.2f}个百分点。"
        ]
    return [
        f"{w.name(best[0], many=True)} outperformed {w.name(worst[0], many=True)} by "
        f"{points:,.2f} percentage points."
    ]
