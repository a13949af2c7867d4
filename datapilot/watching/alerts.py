"""An alert evaluated over the rows of its data not read yet, in date order, for its owner.

The watch's `state` keeps, per entity, the last date read and whether the condition held then:
a state condition fires on a day it holds after a day it did not, and re-arms when it stops
holding; an event condition fires on each day it holds. The first time an entity's data are
read, the rows before the change that brought them (or all rows, on a schedule) are history:
nothing fires for them, they only set whether the condition already holds.

Evaluations of one watch are serialised by the store (a write transaction that reads the state
and writes it back), so two replicas told of the same rows record each firing once.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.core.watches import Condition, Firing, WatchEvent, WatchInfo
from datapilot.data.changes import DataChange
from datapilot.settings import Settings
from datapilot.store.models import Watch
from datapilot.store.watches import WatchRuns

if TYPE_CHECKING:
    from datapilot.data.access import DataAccess
    from datapilot.store import Store

log = logging.getLogger(__name__)


def closes(data: DataAccess, entity_id: str) -> pd.Series:
    """The entity's daily closes (prices) or values (series) as its owner reads them, by date."""
    prices = data.warehouse.prices([entity_id])
    if not prices.empty:
        column = prices["close"].where(prices["close"].notna(), prices["adj_close"])
        found = pd.Series(column.to_numpy(dtype=float), index=pd.to_datetime(prices["date"]))
    else:
        values = data.warehouse.series([entity_id])
        found = pd.Series(
            values["value"].to_numpy(dtype=float), index=pd.to_datetime(values["date"])
        )
    return found.dropna().sort_index()


def evaluate_alert(
    settings: Settings,
    store: Store,
    watch: WatchInfo,
    due_at: datetime | None = None,
    late: bool = False,
    change: DataChange | None = None,
) -> list[WatchEvent]:
    """Read the alert's new rows and record a firing event for each day it fires (blocking)."""
    from datapilot.data import open_data

    condition = watch.spec.condition
    if condition is None:
        return []
    data = open_data(settings).for_owner(watch.owner_id)
    fired: list[WatchEvent] = []
    with store.session(write=True) as session:
        # The row lock (PostgreSQL) or the write lock (SQLite): one evaluation at a time.
        session.get(Watch, watch.id, with_for_update=True)
        runs = WatchRuns(session, settings)
        state = runs.state(watch.id)
        for entity in watch.spec.entity_ids:
            series = closes(data, entity)
            if series.empty:
                continue
            memory = state.get(entity, {})
            new_memory, firings = _read_new_rows(condition, entity, series, memory, change)
            state[entity] = new_memory
            for firing in firings:
                event = runs.record(
                    watch.id,
                    kind="alert",
                    due_at=due_at,
                    day=firing.date,
                    entity=entity,
                    value=firing.value,
                    threshold=firing.threshold,
                    result=firing.model_dump(mode="json"),
                    late=late,
                )
                fired.append(event)
        runs.set_state(watch.id, state)
    return fired


def _read_new_rows(
    condition: Condition,
    entity: str,
    series: pd.Series,
    memory: dict[str, Any],
    change: DataChange | None,
) -> tuple[dict[str, Any], list[Firing]]:
    """The rows after the last one read, in date order: the firings, and the new memory."""
    frame = measure(condition, series)
    last = memory.get("last")
    if last is not None:
        start = pd.Timestamp(last) + pd.Timedelta(days=1)
        held = bool(memory.get("holds", False))
    else:
        # First read: history up to the change (or all of it) only says whether it holds.
        first = change.first if change is not None else None
        start = pd.Timestamp(first) if first else frame.index[-1] + pd.Timedelta(days=1)
        before = frame[frame.index < start]
        held = bool(before["holds"].iloc[-1]) if not before.empty else False
    firings = []
    for moment, row in frame[frame.index >= start].iterrows():
        holds = bool(row["holds"])
        if holds and (condition.behaviour == "event" or not held):
            firings.append(
                Firing(
                    date=moment.date(),
                    entity=entity,
                    value=float(row["value"]),
                    threshold=float(row["threshold"]),
                    close=float(series.loc[moment]),
                )
            )
        held = holds
    return {"last": frame.index[-1].date().isoformat(), "holds": held}, firings


def measure(condition: Condition, series: pd.Series) -> pd.DataFrame:
    """Per day: the measure's value, what it is compared with, and whether the condition holds."""
    raise NotImplementedError  # replaced by the evaluation of `watches`
