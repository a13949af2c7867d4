"""What the front ends (the CLI, the API, a chat) do with a sentence: read it as its owner's
watch, backtest it over its owner's data, and show a stored watch the same way everywhere."""

from __future__ import annotations

from datetime import date
from typing import Any

from datapilot.brains.offline.vocab import default_vocab
from datapilot.core.watches import WatchEvent, WatchInfo, WatchSpec
from datapilot.data.access import DataAccess, open_data
from datapilot.engine.facts import format_number
from datapilot.settings import Settings
from datapilot.watches.backtest import BacktestResult, backtest, understood
from datapilot.watches.mine import with_my_fund
from datapilot.watches.reading import read_watch


def owner_data(settings: Settings, owner: str | None) -> DataAccess:
    """The data `owner` reads: everyone's, and their own imports."""
    return open_data(settings).for_owner(owner)


def understand(
    sentence: str, settings: Settings, owner: str | None, *, data: DataAccess | None = None
) -> WatchSpec:
    """The watch `sentence` asks for, read against the owner's catalog ("my fund" is the one
    entity the owner's imports hold); raises `WatchRefused`."""
    data = data or owner_data(settings, owner)
    text, mine = with_my_fund(sentence, data, owner)
    spec = read_watch(
        text,
        data.catalog,
        default_vocab(settings.data_dir),
        today=settings.effective_today(),
        timezone=settings.watch_timezone,
    )
    if mine is None:
        return spec
    return spec.model_copy(update={"text": sentence, "trace": [mine, *spec.trace]})


def backtest_sentence(
    sentence: str, settings: Settings, owner: str | None, start: date, end: date
) -> BacktestResult:
    """Read `sentence` as an alert and backtest it over the owner's data."""
    data = owner_data(settings, owner)
    return backtest(understand(sentence, settings, owner, data=data), data, start, end)


def watch_view(info: WatchInfo) -> dict[str, Any]:
    """A stored watch as the API returns it and `watch list --json` prints it (no secret)."""
    shown = understood(info.spec)
    shown.update(
        id=info.id,
        status=info.status,
        channels=info.channels.model_dump(mode="json"),
        has_secret=info.has_secret,
        unread=info.unread,
        created_at=info.created_at.isoformat(),
        updated_at=info.updated_at.isoformat(),
    )
    return shown


def event_line(event: WatchEvent) -> str:
    """One line of a watch's history: when, the result, each channel's delivery, any error."""
    when = event.fired_at.strftime("%Y-%m-%d %H:%M:%S")
    what = (
        f"{event.entity} {event.date} {format_number(event.value)} "
        f"(threshold {format_number(event.threshold)})"
        if event.value is not None and event.threshold is not None
        else event.status
    )
    sent = ", ".join(f"{d.channel}: {d.state}" for d in event.deliveries) or "no deliveries"
    late = " late" if event.late else ""
    error = f"  error: {event.error}" if event.error else ""
    return f"{when}{late}  {what}  [{sent}]{error}"
