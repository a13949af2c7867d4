"""Runs of consecutive up or down sessions: "Apple's longest losing streak in 2022", 最长连涨几天.

Convention (docs/asking.md, "Counts, best periods and distances"): a session is up when its
close is above the close before it, down when below; an unchanged close ends a run. The first
session of the window is compared with the close before the window when the frame holds it.
A run's start is its first up (down) session, its end the last; of runs equally long, the
first is given and the others are counted.
"""

from __future__ import annotations

from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def longest_streak(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices or levels (with the close before the window)."],
    direction: Annotated[Literal["up", "down"], "Consecutive up closes or down closes."] = "down",
    start: Annotated[str | None, "Count runs from this date; earlier rows are the base."] = None,
) -> pd.DataFrame:
    """The longest run of consecutive up (down) sessions per column: sessions, start_date,
    end_date, from_value (the close before the run), to_value, change_pct and ties (other runs
    as long)."""
    levels = values_of(frame)
    rows = []
    for column in levels.columns:
        closes = pd.to_numeric(levels[column], errors="coerce").dropna()
        moves = closes.diff()
        if start is not None:
            moves = moves[moves.index >= pd.Timestamp(start)]
        elif len(moves) > 0:
            moves = moves.iloc[1:]  # the first row is the base the first move starts from
        moves = moves.dropna()
        if moves.empty:
            continue
        hits = moves > 0 if direction == "up" else moves < 0
        run_id = (hits != hits.shift()).cumsum()
        runs = [group for _, group in hits.groupby(run_id) if bool(group.iloc[0])]
        if not runs:
            rows.append(_row(column, 0, None, None, closes, 0))
            continue
        longest = max(len(r) for r in runs)
        first = next(r for r in runs if len(r) == longest)
        ties = sum(1 for r in runs if len(r) == longest) - 1
        rows.append(_row(column, longest, first.index[0], first.index[-1], closes, ties))
    if not rows:
        raise InterfaceError("No sessions in the window; widen the date window.")
    table = pd.DataFrame(rows).set_index("id")
    unit = str(frame.attrs.get("unit") or "")
    word = "winning" if direction == "up" else "losing"
    return derive(
        table,
        frame,
        kind="cross_section",
        unit="",
        title=f"Longest {word} streak",
        title_zh="最长连涨" if direction == "up" else "最长连跌",
        units={"sessions": "", "from_value": unit, "to_value": unit, "change_pct": "%"},
        direction=direction,
    )


def _row(
    column: object,
    sessions: int,
    first: pd.Timestamp | None,
    last: pd.Timestamp | None,
    closes: pd.Series,
    ties: int,
) -> dict[str, object]:
    if first is None or last is None:
        return {"id": str(column), "sessions": 0, "start_date": None, "end_date": None,
                "from_value": None, "to_value": None, "change_pct": None, "ties": 0}  # fmt: skip
    before = closes[closes.index < first]
    base = float(before.iloc[-1]) if not before.empty else float("nan")
    end = float(closes.loc[last])
    return {
        "id": str(column),
        "sessions": sessions,
        "start_date": pd.Timestamp(first).date(),
        "end_date": pd.Timestamp(last).date(),
        "from_value": base,
        "to_value": end,
        "change_pct": (end / base - 1) * 100 if base else None,
        "ties": ties,
    }
