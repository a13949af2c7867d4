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


def benchmark_sentences(frame: pd.DataFrame, said: Said) -> list[str]:
    """Each name against the benchmark the question set them against (the ranking's `excess`
    column): "MSFT beat the S&P 500 by 28.68 percentage points, GE by 25.06; KO trailed the S&P
    500 by 8.28 percentage points.", 微软跑赢，比标普500高28.68个百分点；……"""
    if "excess" not in frame.columns:
        return []
    w = said.w
    rows = [(str(i), float(v)) for i, v in frame["excess"].items() if pd.notna(v) and v != 0]
    benchmark = next((str(i) for i, v in frame["excess"].items() if v == 0), None)
    if benchmark is None or not rows:
        return []
    ahead = [(s, v) for s, v in rows if v > 0]
    behind = [(s, v) for s, v in rows if v < 0]
    mark = w.name(benchmark, many=True)
    if w.zh:
        # (比…高: never a figure glued to a name ending in a digit, 标普50014.70)
        parts = [f"{w.name(s, many=True)}跑赢，比{mark}高{v:,.2f}个百分点" for s, v in ahead]
        parts += [f"{w.name(s, many=True)}跑输，比{mark}低{-v:,.2f}个百分点" for s, v in behind]
        return ["；".join(parts) + "。"]
    said_ahead = ", ".join(
        f"{w.name(s, many=True)} beat {mark} by {v:,.2f} percentage points"
        if n == 0
        else f"{w.name(s, many=True)} by {v:,.2f}"
        for n, (s, v) in enumerate(ahead)
    )
    said_behind = ", ".join(
        f"{w.name(s, many=True)} trailed {mark} by {-v:,.2f} percentage points"
        if n == 0
        else f"{w.name(s, many=True)} by {-v:,.2f}"
        for n, (s, v) in enumerate(behind)
    )
    return ["; ".join(p for p in (said_ahead, said_behind) if p) + "."]
