"""Checks the acquisition readers share: live fetching, catalog checks, sources and no-data errors.

Not interfaces themselves: the readers in `prices`, `indicators` and `reference` call them.
Every reader checks its ids against the catalog, so an unknown id, an entity without data or an
entity of the wrong kind fails with a message saying what exists instead. When a live provider is
configured (and the request allows the network), the check first lets the providers fill the
warehouse (the request's `DataAccess.ensure`); their notices ("as of …", failures) become notes.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date
from typing import TYPE_CHECKING

import pandas as pd
from rapidfuzz import fuzz

from datapilot.core.intent import PRICE_KINDS, SERIES_KINDS
from datapilot.data.catalog import Entity
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import InterfaceError

if TYPE_CHECKING:
    from datapilot.data.providers.live import Dataset

_KIND_WORD = {
    "macro": "macro series",
    "commodity": "commodity series",
    "factor": "factor series",
    "etf": "ETF",
    "table": "client table",
}
_KIND_HINT = {
    "macro": "get_series",
    "commodity": "get_series",
    "factor": "get_series",
    "stock": "get_prices",
    "etf": "get_prices",
    "index": "get_index_levels or get_prices",
    "fund": "get_prices",
    "table": "get_client_table",
}


def fetch_live(
    ctx: InterfaceContext,
    ids: list[str],
    start: date | None,
    end: date | None,
    dataset: Dataset | None,
) -> None:
    """Let the configured live providers fetch what the warehouse lacks or holds stale for `ids`
    (`dataset` None = whatever each id's kind needs); their notices go to `ctx.notes`.

    Returns at once, importing nothing, when the request brought no data access, no live provider
    is configured (the default) or the settings or the request are offline."""
    if ctx.offline or ctx.data is None or not ctx.data.live_fetching():
        return
    from datapilot.data.warehouse_file import WarehouseError

    try:
        report = ctx.data.ensure(ids, start, end, None if dataset is None else [dataset])
    except WarehouseError as error:
        # E.g. another process holds the file: answer from the local copy and say why.
        ctx.notes.append(f"Live data for {', '.join(ids)} could not be stored: {error}")
        return
    ctx.notes.extend(report.notices)


def _dataset_for(kinds: Collection[str]) -> Dataset | None:
    if kinds and set(kinds) <= PRICE_KINDS:
        return "prices"
    if kinds and set(kinds) <= SERIES_KINDS:
        return "series"
    return None


def check_entity(
    ctx: InterfaceContext,
    entity_id: str,
    kinds: Collection[str],
    need_data: bool = True,
    *,
    start: date | None = None,
    end: date | None = None,
    dataset: Dataset | None = None,
) -> Entity:
    """The catalog entity for `entity_id`: one of `kinds`, with prices/series unless not needed.

    Live providers fetch it first (see `fetch_live`): `dataset` defaults to the kinds' table."""
    fetch_live(ctx, [entity_id], start, end, dataset or _dataset_for(kinds))
    return _checked(ctx, entity_id, kinds, need_data)


def _checked(
    ctx: InterfaceContext, entity_id: str, kinds: Collection[str], need_data: bool
) -> Entity:
    entity = ctx.catalog.get(entity_id)
    if entity is None:
        raise unknown_entity(ctx, entity_id)
    if need_data and not getattr(entity, "available", True):
        raise InterfaceError(
            f"{entity.id} ({entity.name}) has no data in the local warehouse. Fetch it with a live "
            "provider (`datapilot data fetch`) or import a file (`datapilot data import`)."
        )
    if entity.kind not in kinds:
        raise InterfaceError(
            f"{entity.id} ({entity.name}) is {_a(_KIND_WORD.get(entity.kind, entity.kind))}, "
            f"which this interface does not read; use {_KIND_HINT.get(entity.kind, 'get_series')}."
        )
    return entity


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiouAEIOU" else f"a {noun}"


# How close (rapidfuzz ratio, 0–100) an unknown id must be to an entity's id or one of its names
# to be offered: "AAPLE" → AAPL, while "NOPE" is not Sinopec (600028.SH), which only contains it.
_SUGGEST_RATIO = 75


def _close_to(wanted: str, entity: Entity) -> bool:
    key = wanted.casefold()
    names = [entity.id, entity.name, *entity.aliases]
    return any(fuzz.ratio(key, name.casefold()) >= _SUGGEST_RATIO for name in names)


def unknown_entity(ctx: InterfaceContext, entity_id: str) -> InterfaceError:
    """The error for an id the catalog lacks, suggesting genuinely close matches only."""
    suggestions = [
        m.entity.id
        for m in (ctx.catalog.lookup(entity_id, limit=3) or [])
        if _close_to(entity_id, m.entity)
    ]
    hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
    return InterfaceError(
        f"Unknown entity {entity_id!r}.{hint} `datapilot data status` lists what is available."
    )


def check_entities(
    ctx: InterfaceContext,
    ids: list[str],
    kinds: Collection[str],
    *,
    start: date | None = None,
    end: date | None = None,
) -> list[Entity]:
    """Check several ids at once (one live fetch for all); duplicates are dropped, order kept."""
    if not ids:
        raise InterfaceError("Give at least one entity id.")
    fetch_live(ctx, ids, start, end, _dataset_for(kinds))
    entities = [_checked(ctx, entity_id, kinds, True) for entity_id in ids]
    return list({entity.id: entity for entity in entities}.values())


def cite(ctx: InterfaceContext, entities: list[Entity]) -> list[str]:
    """Record and return the catalog's data sources of `entities` (no warehouse query)."""
    names = {name.strip() for e in entities for name in e.source.split(",") if name.strip()}
    ctx.sources.update(names)
    return sorted(names)


def record_sources(ctx: InterfaceContext, frame: pd.DataFrame) -> list[str]:
    """Record the sources the warehouse says a query's rows came from."""
    sources = sorted(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return sources


def data_span(entity: Entity) -> str:
    """The dates an entity has data for, as words (`from … to …`)."""
    if entity.first and entity.last:
        return f"from {entity.first} to {entity.last}"
    return "over no dates yet"


def no_data(entities: list[Entity], start: date | None, end: date | None) -> InterfaceError:
    """The error for a window without rows, naming the dates each entity does have."""
    return no_values("data", [f"{e.id} has data {data_span(e)}" for e in entities], start, end)


def no_values(what: str, spans: list[str], start: date | None, end: date | None) -> InterfaceError:
    """The error for a window without `what` (data, volume), with where each one has it."""
    return InterfaceError(
        f"No {what} between {start or 'the beginning'} and {end or 'the end'}: {'; '.join(spans)}."
    )
