"""The first session past a level: "when did Apple first close above $150", "on what date did the
S&P 500 first close back above its Feb 19, 2020 close", 首次收盘站上150美元.

The level is a number, or the close of a day (`level_day`: the last close on or before it), or a
multiple of that close (`multiple`: 2 = "double that price", 翻倍; 1.5 = "up 50% from"). The
sessions searched start after that day (or at `after`, or at the frame's first row); `back` asks
for a return to the level: the first session past it after one that was not (a day's own close
is the level, so the sessions after it start below or at it unless the next one is past it).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import derive, values_of
from datapilot.interfaces.registry import Frame, InterfaceError, interface


@interface("processing", "frame")
def first_close_past(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily closes or levels, from the level's day when it has one."],
    level: Annotated[float | None, "The level; None = the close on `level_day`."] = None,
    level_day: Annotated[date | None, "The day whose close is the level."] = None,
    side: Annotated[Literal["above", "below"], "Closing above or below the level."] = "above",
    inclusive: Annotated[bool, "At or above (below): equal to the level counts."] = False,
    back: Annotated[bool, "Back past it: after a close that was not past it."] = False,
    after: Annotated[date | None, "Search sessions from this day on."] = None,
    multiple: Annotated[
        float | None, "The level is this multiple of the day's close (2 = double)."
    ] = None,
    level_from: Annotated[
        date | None, "The level is a close of the period level_from..level_day (its peak or low)."
    ] = None,
    extreme: Annotated[
        Literal["max", "min"], "With level_from: the period's highest (max) or lowest close."
    ] = "max",
) -> pd.DataFrame:
    """Per column: the level (and the day it is the close of), the first session past it (date)
    with its close, and how many sessions were searched; no date when none was past it."""
    if level is None and level_day is None:
        raise InterfaceError("first_close_past needs a level or the day whose close is the level.")
    if multiple is not None and (level is not None or level_day is None or multiple <= 0):
        raise InterfaceError("A multiple (double, 翻倍) is of a day's close: give level_day.")
    times = 1.0 if multiple is None else multiple
    levels = values_of(frame)
    rows = []
    for column in levels.columns:
        closes = pd.to_numeric(levels[column], errors="coerce").dropna()
        target, target_day, base = level, None, None
        if target is None and level_from is not None:
            period = closes.loc[pd.Timestamp(level_from) : pd.Timestamp(level_day)]
            if period.empty:
                raise InterfaceError(f"No close of {column} from {level_from} to {level_day}.")
            target_day = period.idxmax() if extreme == "max" else period.idxmin()
            base = float(period[target_day])
            target = times * base
        elif target is None:
            known = closes.loc[: pd.Timestamp(level_day)]
            if known.empty:
                raise InterfaceError(f"No close of {column} on or before {level_day}.")
            base, target_day = float(known.iloc[-1]), known.index[-1]
            target = times * base
        searched = closes
        if target_day is not None:
            searched = searched[searched.index > target_day]
        if after is not None:
            searched = searched[searched.index >= pd.Timestamp(after)]
        past = _past(searched, target, side, inclusive)
        if back and len(past) and bool(past.iloc[0]):
            # Already past the level where the search starts: "back" is after it first was not.
            first_not = past[~past]
            past = past[past.index > first_not.index[0]] if len(first_not) else past.iloc[:0]
        hit = past[past]
        day = hit.index[0] if len(hit) else None
        rows.append(
            {
                "id": str(column),
                "level": target,
                "level_date": target_day.date() if target_day is not None else None,
                "level_close": base,
                "date": day.date() if day is not None else None,
                "close": float(closes[day]) if day is not None else None,
                "sessions_searched": len(searched),
            }
        )
    if not rows:
        raise InterfaceError("No closes in the window; widen the date window.")
    unit = str(frame.attrs.get("unit") or "")
    return derive(
        pd.DataFrame(rows).set_index("id"),
        frame,
        kind="cross_section",
        unit=unit,
        title=f"First close {side} the level",
        title_zh=f"首次收盘{'高于' if side == 'above' else '低于'}该水平",
        units={"level": unit, "level_close": unit, "close": unit, "sessions_searched": ""},
        side=side,
        multiple=times,
        inclusive=inclusive,
    )


def _past(closes: pd.Series, level: float, side: str, inclusive: bool) -> pd.Series:
    if side == "above":
        return closes >= level if inclusive else closes > level
    return closes <= level if inclusive else closes < level
