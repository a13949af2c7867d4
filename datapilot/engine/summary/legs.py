"""A spread said with its two legs: "the Baa–Aaa spread was 3.38 … (Baa 8.43%, Aaa 5.05%)".

A question about a spread usually names both series, and a reader checks the difference against
them; the legs' values come from the frame the spread was computed from, on the spread's date.
"""

from __future__ import annotations

import pandas as pd

from datapilot.core.plan import refs_in
from datapilot.core.results import Fact
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.kinds import Said
from datapilot.interfaces.frame import column_unit


def spread_legs(step: Step, said: Said) -> list[str]:
    """The legs of a one-date spread, each with its value and unit; [] for anything else."""
    a, b = step.call.args.get("a"), step.call.args.get("b")
    spread = step.value
    if step.call.interface != "spread" or not isinstance(spread, pd.DataFrame) or len(spread) != 1:
        return []
    source = next((said.frames[r] for r in refs_in(step.call.args) if r in said.frames), None)
    if source is None or not isinstance(a, str) or not isinstance(b, str):
        return []
    day = spread.index[0]
    legs = []
    for column in (a, b):
        if column not in source.columns or day not in source.index:
            return []
        unit = column_unit(source, column)
        value = source.at[day, column]
        if pd.isna(value):
            return []
        fact = Fact(label=column, value=float(value), unit=str(unit) if unit else None)
        legs.append((said.w.name(column), said.w.value(fact)))
    when = f"{day:%Y-%m-%d}"
    if said.w.zh:
        return ["其中" + "，".join(f"{name}为{value}" for name, value in legs) + f"（{when}）。"]
    return [f"The legs on {when}: " + ", ".join(f"{n} {v}" for n, v in legs) + "."]
