"""Rows added to a warehouse, told to whoever listens to that file.

Every write a user makes — a file imported (`data import`, the API, the page, a replica replaying
another's import) or rows fetched live (`data fetch`, a provider's refresh while answering) —
ends with `announce`; a server's watches listen (`listen`) and evaluate their alerts over the new
rows. Listeners are kept per warehouse file, as the replicas' log is (`data.shared`): two data
dirs in one process (tests, several apps) never hear each other's changes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)
Origin = Literal["import", "fetch"]


@dataclass(frozen=True)
class DataChange:
    """Rows of `ids` written to the warehouse at `path`, dated `first`..`last` when known;
    `owner` a user's import (only that user reads it), None: everyone's data."""

    path: Path
    ids: tuple[str, ...]
    owner: str | None
    origin: Origin
    first: date | None = None
    last: date | None = None


Listener = Callable[[DataChange], None]
_listeners: dict[Path, list[Listener]] = {}
_lock = threading.Lock()


def listen(path: Path, listener: Listener) -> Callable[[], None]:
    """Call `listener` after each change of the warehouse at `path`; returns the way to stop.

    A listener runs in the writer's thread: it should hand the work on (a scheduler's job), not
    do it there."""
    key = path.resolve()
    with _lock:
        _listeners.setdefault(key, []).append(listener)

    def stop() -> None:
        with _lock:
            listeners = _listeners.get(key, [])
            if listener in listeners:
                listeners.remove(listener)
            if not listeners:
                _listeners.pop(key, None)

    return stop


def announce(change: DataChange) -> None:
    """Tell the listeners of `change.path`; a failing listener is logged and never fails the
    write, which is done already."""
    with _lock:
        listeners = list(_listeners.get(change.path.resolve(), ()))
    for listener in listeners:
        try:
            listener(change)
        except Exception:
            log.exception("a listener of data changes failed on %s", change.ids)
