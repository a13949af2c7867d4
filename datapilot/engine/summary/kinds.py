"""What kind of result a key result is, which one answers the question, and the window's words.

A result's kind is read from the frame conventions of `datapilot.interfaces` (attrs kind, unit,
title, amount; the measure columns a cross-section holds), never from the question's text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

import pandas as pd

from datapilot.core.plan import refs_in
from datapilot.engine.summary.done import Step
from datapilot.engine.summary.words import Words

if TYPE_CHECKING:
    from datapilot.core.intent import Intent

STAT_COLUMNS = frozenset({"count", "mean", "median", "std", "min", "max", "sum", "first", "last"})

# Kinds that answer a question by themselves come first; plain series last.
_PRIORITY = {
    "ratio": -1,  # "how many times": the ratio is the answer, the two figures its support
    "from_day": 0,
    "period_return": 0,
    "cagr": 0,
    "volatility": 0,
    "drawdown": 0,
    "extreme_days": 0,
    "period_extremes": 0,
    "count": 0,
    "distance": 0,
    "high_low_range": 0,
    "streak": 0,
    "conditional": 0,
    "contributions": 0,
    "first_past": 0,
    "figure_difference": 0,
    "crosses": 0,
    "growth": 0,
    "top_bottom": 0,
    "sharpe": 0,
    "forecast": 0,
    "correlation": 0,
    "stats": 1,
    "signs": 1,
    "cumulative": 1,
    "change": 1,
    "candlestick": 1,
    "level": 2,
    "percent_series": 2,
    "indicator": 2,
    "cells": 3,
}
_CHANGE_TITLES = (
    "over-period change",
    "over-year change",
    "over-quarter change",
    "over-month change",
)


def result_kind(frame: pd.DataFrame) -> str:
    """The kind of answer a frame gives: period_return, cagr, volatility, drawdown, … or cells."""
    kind = frame.attrs.get("kind")
    title = str(frame.attrs.get("title") or "")
    columns = {str(c) for c in frame.columns}
    if kind == "forecast":
        return "forecast"
    if kind == "matrix":
        return "correlation"
    if kind == "ohlcv":
        return "candlestick"
    if kind == "indicator":
        return "indicator"
    if isinstance(frame.index, pd.DatetimeIndex) and "date" not in columns:
        unit = str(frame.attrs.get("unit") or "")
        if frame.attrs.get("amount") is not None:
            return "growth"
        if title.lower().startswith("cumulative return"):
            return "cumulative"
        if unit == "%" and title.lower().endswith(_CHANGE_TITLES):
            return "change"
        return "percent_series" if unit == "%" else "level"
    if {"period", "value", "group"} <= columns:
        return "period_extremes"
    if {"high", "low", "range"} <= columns:
        return "high_low_range"
    if {"count", "sessions"} <= columns:
        return "count"
    if {"buys", "invested", "value"} <= columns:
        return "contributions"
    if {"mean_return_pct", "periods", "first_date"} <= columns:
        return "conditional"
    if {"up", "down", "periods"} <= columns:
        return "signs"
    if {"fast_ma", "slow_ma", "crosses"} <= columns:
        return "crosses"
    if {"sessions", "end_date", "ties"} <= columns:
        return "streak"
    if {"level", "date", "sessions_searched"} <= columns:
        return "first_past"
    if {"value", "other_value", "difference"} <= columns:
        return "figure_difference"
    if {"times", "denominator_value"} <= columns:
        return "ratio"
    if {"extreme_value", "from_day_pct"} <= columns:
        return "from_day"
    if "distance_pct" in columns:
        return "distance"
    if {"date", "return_pct"} <= columns:
        return "extreme_days"
    for column, found in (
        ("group", "top_bottom"),
        ("max_drawdown_pct", "drawdown"),
        ("annualized_volatility_pct", "volatility"),
        ("annualized_return_pct", "cagr"),
        ("sharpe", "sharpe"),
    ):
        if column in columns:
            return found
    if "return_pct" in columns:
        return "extreme_days" if "date" in columns else "period_return"
    if columns and columns <= STAT_COLUMNS | {"observations"}:
        return "stats"
    return "cells"


def headline(key: list[Step]) -> Step | None:
    """The key result that answers the question: the most specific kind, the first shown."""
    frames = [s for s in key if isinstance(s.value, pd.DataFrame)]
    if not frames:
        return None
    return min(frames, key=lambda s: _PRIORITY[result_kind(s.value)])


@dataclass
class Said:
    """What the answer sentences need besides the facts: words, window, the frames by name."""

    w: Words
    when: str = ""  # "in 2021", "2021年", "from 2019-12-28 to 2022-12-28"
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    entities: int = 0  # how many entities the question named
    # Each result's inputs by name (the outputs its call refers to), to trace a figure back.
    inputs: dict[str, list[str]] = field(default_factory=dict)

    def source_title(self, step: Step) -> str:
        """The title of the frame a result was computed from (e.g. "Adjusted close")."""
        for name in refs_in(step.call.args):
            frame = self.frames.get(name)
            if frame is not None and frame.attrs.get("title"):
                return str(frame.attrs["title"])
        return ""


def window_words(intent: Intent | None, zh: bool) -> str:
    """The intent's window as a reader says it: a calendar year, half, quarter or month by its
    name, any other window by its two days. A multi-part question has no one window: each
    part's figures carry their own dates."""
    if intent is None or intent.start is None or intent.end is None or intent.parts:
        return ""
    return window_phrase(intent.start, intent.end, zh)


def window_phrase(start: date, end: date, zh: bool) -> str:
    """A window as a reader says it ("in 2021", 2021年第一季度, "from D to D")."""
    nxt = end + timedelta(days=1)
    if start.day == 1 and nxt.day == 1 and start.year == end.year:
        months = (end.month - start.month) + 1
        if months == 12:
            return f"{start.year}年" if zh else f"in {start.year}"
        if months == 6 and start.month in {1, 7}:
            half = 1 if start.month == 1 else 2
            return (
                f"{start.year}年{'上' if half == 1 else '下'}半年"
                if zh
                else f"in H{half} {start.year}"
            )
        if months == 3 and start.month in {1, 4, 7, 10}:
            quarter = (start.month - 1) // 3 + 1
            return (
                f"{start.year}年第{'一二三四'[quarter - 1]}季度"
                if zh
                else f"in Q{quarter} {start.year}"
            )
        if months == 1:
            return (
                f"{start.year}年{start.month}月"
                if zh
                else f"in {date(start.year, start.month, 1):%B %Y}"
            )
    return f"{start}至{end}" if zh else f"from {start} to {end}"
