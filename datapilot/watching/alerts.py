"""An alert evaluated over the rows of its data not read yet, in date order, for its owner,
by the watches' pure evaluation (`watches.evaluate`).

The watch's `state` keeps, per entity, where live watching began (`base`: the first new row it
was told of, or the day after the last row when a schedule read it first), whether the condition
held just before (`base_holding`), the last day read (`last`) and whether the condition held then
(`holding`: armed when false). Each evaluation runs from the base with that state, so a drawdown
is from the running peak since the base and a state condition that fired stays quiet until it
stops holding; only days after `last` are recorded. History before the base never fires.

Evaluations of one watch are serialised by the store (the watch's row locked while its state is
read and written back), so two replicas told of the same rows record each firing once.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.core.watches import Condition, Firing, WatchEvent, WatchInfo
from datapilot.data.changes import DataChange
from datapilot.settings import Settings
from datapilot.store.models import Watch
from datapilot.store.watches import WatchRuns
from datapilot.watches.backtest import entity_closes
from datapilot.watches.evaluate import evaluate

if TYPE_CHECKING:
    from datapilot.store import Store

log = logging.getLogger(__name__)
_END = date(9999, 12, 31)  # every row, whatever its date


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
    data = open_data(settings).for_owner(watch.owner_id)  # what its owner reads, no more
    fired: list[WatchEvent] = []
    with store.session(write=True) as session:
        # The row lock (PostgreSQL; SQLite's write lock is the database's): one at a time.
        if session.get(Watch, watch.id, with_for_update=True) is None:
            return []  # deleted meanwhile
        runs = WatchRuns(session, settings)
        state = runs.state(watch.id)
        for entity in watch.spec.entity_ids:
            closes = entity_closes(data, entity, _END)
            if closes.empty:
                continue  # waiting for data
            state[entity], firings = read_new_rows(
                condition, entity, closes, state.get(entity, {}), change
            )
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


def read_new_rows(
    condition: Condition,
    entity: str,
    closes: pd.Series,
    memory: dict[str, Any],
    change: DataChange | None,
) -> tuple[dict[str, Any], list[Firing]]:
    """The firings on days after the last one read, and the entity's new memory."""
    first_day = pd.Timestamp(closes.index[0]).date()
    last_day = pd.Timestamp(closes.index[-1]).date()
    if "base" not in memory:
        # First read: the rows before the change that brought them (all, on a schedule) are
        # history; they only say whether the condition already holds.
        told = change.first if change is not None and entity in change.ids else None
        base = max(told, first_day) if told else last_day + timedelta(days=1)
        history = evaluate(condition, closes, first_day, base - timedelta(days=1), entity=entity)
        memory = {"base": base.isoformat(), "base_holding": history.holding, "last": None}
    base = date.fromisoformat(memory["base"])
    result = evaluate(condition, closes, base, _END, entity=entity, holding=memory["base_holding"])
    last = date.fromisoformat(memory["last"]) if memory.get("last") else None
    new = [f for f in result.firings if last is None or f.date > last]
    through = result.through or (date.fromisoformat(memory["last"]) if last else None)
    memory = {
        **memory,
        "last": through.isoformat() if through else None,
        "holding": result.holding,
    }
    return memory, new
