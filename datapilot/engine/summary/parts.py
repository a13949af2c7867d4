"""A multi-part question's answer: each part's figures said over its own window, and the parts'
returns set against each other ("2019 or 2020, which was better": the higher one named)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from datapilot.core.intent import Intent
from datapilot.core.results import Fact
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.kinds import Said, result_kind, window_phrase
from datapilot.engine.summary.phrasing import by_subject, numeric, rows_of


def part_window(step: Step) -> tuple[date, date] | None:
    """The window a step of one part computed over (its call's own start and end)."""
    start, end = step.call.args.get("start"), step.call.args.get("end")
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        return date.fromisoformat(start), date.fromisoformat(end)
    except ValueError:
        return None


def said_for(step: Step, said: Said, intent: Intent | None) -> Said:
    """`said`, its window the step's own when the question has parts: each part's sentence
    names its window ("in 2019"), the question as a whole having none."""
    window = part_window(step) if intent is not None and intent.parts else None
    if window is None:
        return said
    return replace(said, when=window_phrase(*window, said.w.zh))


def parts_compared(steps: list[Step], intent: Intent | None, said: Said) -> list[str]:
    """The parts' returns of one entity ranked: which window's was higher, by how much."""
    if intent is None or len(intent.parts) < 2:
        return []
    figures: list[tuple[str, Fact]] = []
    subjects: set[str] = set()
    for step in steps:
        window = part_window(step)
        if window is None or result_kind(step.value) != "period_return":
            continue
        rows = numeric(rows_of(by_subject(step.record.facts), "return_pct"))
        if len(rows) != 1:
            return []  # several names in each part: each part's sentence ranks its own
        subjects.add(rows[0][0])
        figures.append((window_phrase(*window, said.w.zh), rows[0][1]))
    if len(figures) < 2 or len(subjects) != 1 or len({w for w, _ in figures}) != len(figures):
        return []
    ranked = sorted(figures, key=lambda pair: float(pair[1].value), reverse=True)
    (top, high), (bottom, low) = ranked[0], ranked[-1]
    if float(high.value) == float(low.value):
        return []
    w = said.w
    name = w.name(next(iter(subjects)))
    if w.zh:
        if len(ranked) == 2:
            return [f"{name}{top}的收益率（{w.value(high)}）高于{bottom}（{w.value(low)}）。"]
        return [
            f"{name}各段中{top}的收益率最高（{w.value(high)}），{bottom}最低（{w.value(low)}）。"
        ]
    if len(ranked) == 2:
        return [f"{name} did better {top} ({w.value(high)}) than {bottom} ({w.value(low)})."]
    return [
        f"Of the {len(ranked)} windows, {name} did best {top} ({w.value(high)}) "
        f"and worst {bottom} ({w.value(low)})."
    ]
