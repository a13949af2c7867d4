"""A question's parts: each measure over its own window, as the planner answers them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from datapilot.brains.offline.windows import Base, Clause
from datapilot.core.intent import IntentPart
from datapilot.data.display import measure_name

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading


class Part(BaseModel):
    """One part as the planner needs it: the intent's part and where its returns start."""

    part: IntentPart
    base: Base


def split_into(reading: Reading, parts: list[Part]) -> None:
    """Answer the question in these parts, each over its own window, saying so."""
    reading.parts = parts
    reading.trace = [t for t in reading.trace if "several time phrases" not in t]
    for part in reading.parts:
        p = part.part
        measures = "、".join(measure_name(m, zh=True) for m in p.metrics)
        reading.trace.append(
            f"一部分：{measures}，{p.start} 至 {p.end}"
            if reading.zh
            else f"a part of its own: {', '.join(p.metrics)} over {p.start}..{p.end}"
        )
    reading.notes.append(parts_note([p.part for p in reading.parts], reading.zh))


def parts_note(parts: list[IntentPart], zh: bool) -> str:
    """What the answer says of its parts: each one's words and window."""
    if zh:
        listed = "；".join(f"“{p.text}”（{p.start}至{p.end}）" for p in parts)
        return f"分{len(parts)}部分回答，各用各的时间：{listed}。"
    listed = "; ".join(f'"{p.text}" ({p.start} to {p.end})' for p in parts)
    return f"Answered in {len(parts)} parts, each over its own window: {listed}."


def part_of(clause: Clause, metrics: list[str], words: list[str], zh: bool) -> Part:
    """The part asking `metrics` over the window of `clause`, with the words it was read from."""
    text = "".join([clause.text, *words]) if zh else " ".join([*words, clause.text])
    return Part(
        part=IntentPart(text=text, metrics=metrics, start=clause.start, end=clause.end),
        base=clause.base,
    )
