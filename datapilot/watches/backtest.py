"""Backtest an alert over history: every day it would have fired, with the value.

    result = backtest(spec, data, date(2022, 1, 1), date(2022, 12, 31))
    result.model_dump(mode="json")   # {"watch": {…understood…}, "fired": [{"date", "value", …}]}

The closes are the owner's data (`DataAccess.for_owner`): an alert sees what its owner sees.
A price entity is read by its traded close where the data have one on every day, else by its
adjusted close (as answers read them); a series entity by its values.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from datapilot.core.intent import PRICE_KINDS
from datapilot.core.watches import Condition, Firing, WatchSpec
from datapilot.data.access import DataAccess
from datapilot.engine.facts import format_value
from datapilot.watches.evaluate import evaluate


class BacktestResult(BaseModel):
    """What `watch backtest --json` prints and `POST /api/v1/watches/backtest` returns."""

    watch: dict[str, Any] = Field(description="What the sentence was understood as.")
    start: date
    end: date
    fired: list[Firing] = Field(default_factory=list)
    no_data: list[str] = Field(
        default_factory=list, description="Entities with no closes in the window."
    )


def entity_closes(data: DataAccess, entity_id: str, end: date) -> pd.Series:
    """An entity's daily closes (or a series' values) up to `end`, on a date index."""
    entity = data.catalog.get(entity_id)
    kind = entity.kind if entity is not None else "stock"
    warehouse = data.warehouse
    if kind in PRICE_KINDS:
        rows = warehouse.prices([entity_id], None, end)
        if rows.empty:
            return pd.Series(dtype=float)
        raw = rows["close"]
        values = raw if raw.notna().all() else rows["adj_close"].fillna(raw)
    else:
        rows = warehouse.series([entity_id], None, end)
        if rows.empty:
            return pd.Series(dtype=float)
        values = rows["value"]
    index = pd.DatetimeIndex(pd.to_datetime(rows["date"]), name="date")
    return pd.Series(values.to_numpy(dtype=float), index=index, name=entity_id).dropna()


def understood(spec: WatchSpec) -> dict[str, Any]:
    """The spec as shown before it is saved: its fields, plus one line saying what it does."""
    shown = spec.model_dump(mode="json")
    shown["understood"] = understood_line(spec)
    return shown


def understood_line(spec: WatchSpec) -> str:
    """One line saying what the watch does, in the watch's language."""
    zh = spec.language == "zh"
    names = ", ".join([*(e.id for e in spec.entities), *spec.waiting_for_data])
    if zh:
        what = spec.condition.describe(zh) if spec.condition else f"定期报告：{spec.question}"
        when = spec.schedule.describe(zh) if spec.schedule else "数据更新时"
        kind = "提醒" if spec.kind == "alert" else "报告"
        return f"{kind}（{names or '问题'}）：{what}；{when}"
    what = spec.condition.describe() if spec.condition else f"report: {spec.question}"
    when = spec.schedule.describe() if spec.schedule else "when the data change"
    return f"{spec.kind} on {names or 'the question'}: {what}; {when}"


def firing_line(firing: Firing, condition: Condition, zh: bool = False) -> str:
    """One day an alert fired, its value written as answers write figures."""
    unit = "%" if condition.percent else None
    value, threshold = format_value(firing.value, unit), format_value(firing.threshold, unit)
    if condition.measure == "ma_cross":
        compared = f"均线 {threshold}" if zh else f"moving average {threshold}"
    else:
        compared = f"阈值 {threshold}" if zh else f"threshold {threshold}"
    shown = f"（{compared}）" if zh else f"({compared})"
    return f"{firing.date}  {firing.entity}  {value}  {shown}"


def backtest(spec: WatchSpec, data: DataAccess, start: date, end: date) -> BacktestResult:
    """Every day in `start..end` on which the alert `spec` would have fired."""
    if spec.condition is None:
        raise ValueError("only an alert can be backtested: a report has no condition")
    if end < start:
        raise ValueError(f"the backtest ends ({end}) before it starts ({start})")
    fired: list[Firing] = []
    missing: list[str] = list(spec.waiting_for_data)
    for entity in spec.entities:
        closes = entity_closes(data, entity.id, end)
        if closes[closes.index >= pd.Timestamp(start)].empty:
            missing.append(entity.id)
            continue
        fired += evaluate(spec.condition, closes, start, end, entity=entity.id).firings
    fired.sort(key=lambda f: (f.date, f.entity))
    return BacktestResult(
        watch=understood(spec), start=start, end=end, fired=fired, no_data=missing
    )
