"""Reference data: company info, entity lists, index members, fundamentals, news and fund NAV.

Company info, the entity list and constituents come from the catalog (and the warehouse's member
lists); fundamentals, news and fund NAV from tables only live providers fill, failing with a
message saying how to fetch them when the warehouse has none.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

import pandas as pd

from datapilot.core.intent import PRICE_KINDS, SERIES_KINDS, EntityKind
from datapilot.data.catalog import Entity
from datapilot.data.duckdb_engine import duckdb
from datapilot.interfaces.checks import (
    check_entity,
    cite,
    fetch_live,
    unknown_entity,
)
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import require_column, tag
from datapilot.interfaces.registry import InterfaceError, interface


def _entity_row(entity: Entity) -> dict[str, Any]:
    return {
        "id": entity.id,
        "name": entity.name,
        "kind": entity.kind,
        "frequency": entity.frequency,
        "units": entity.units,
        "source": entity.source,
        "first": entity.first,
        "last": entity.last,
    }


@interface("acquisition", "frame")
def get_company_info(
    ctx: InterfaceContext,
    entity: Annotated[str, "Any entity id."],
) -> pd.DataFrame:
    """What the catalog knows about one entity: a one-row table with name, kind, aliases, frequency,
    units, source, first and last date."""
    fetch_live(ctx, [entity], None, None, None)
    found = ctx.catalog.get(entity)
    if found is None:
        raise unknown_entity(ctx, entity)
    row = _entity_row(found) | {"aliases": "; ".join(found.aliases)}
    frame = pd.DataFrame([row]).set_index("id")
    return tag(
        frame,
        kind="cross_section",
        title=f"{found.name}",
        sources=cite(ctx, [found]) if getattr(found, "available", True) else [],
    )


def _catalog_entities(ctx: InterfaceContext, kind: EntityKind | None) -> list[Entity]:
    entities = ctx.catalog.entities(kind=kind, available=True)
    return [e for e in entities if getattr(e, "available", True)]


@interface("acquisition", "frame")
def list_entities(
    ctx: InterfaceContext,
    kind: Annotated[
        Literal["stock", "etf", "index", "macro", "commodity", "factor", "fund"] | None,
        "Only entities of this kind; None = all.",
    ] = None,
) -> pd.DataFrame:
    """Entities that have data in the warehouse, one row per id: name, kind, frequency, units,
    source, first, last."""
    entities = _catalog_entities(ctx, kind)
    if not entities:
        raise InterfaceError(
            f"No {kind or ''} entities have data yet; run `datapilot data status`."
        )
    frame = pd.DataFrame([_entity_row(e) for e in entities]).set_index("id").sort_index()
    return tag(
        frame, kind="cross_section", title="Available entities" + (f" ({kind})" if kind else "")
    )


@interface("acquisition", "frame")
def get_constituents(
    ctx: InterfaceContext,
    index: Annotated[str, "Index id, e.g. ^GSPC."],
) -> pd.DataFrame:
    """Member stocks of an index that the warehouse holds data for: one row per id with name, first
    and last date."""
    found = check_entity(ctx, index, {"index"})
    members_of = getattr(ctx.warehouse, "constituents", None)
    members: list[Entity] = []
    if callable(members_of):
        ids = list(members_of(found.id))
        members = [e for e in (ctx.catalog.get(i) for i in ids) if e is not None]
    elif found.id == "^GSPC":
        # Offline, the bundled stocks are all S&P 500 large caps; say it is only a subset.
        members = _catalog_entities(ctx, "stock")
        ctx.notes.append(
            f"{len(members)} S&P 500 stocks are bundled offline; the full membership needs a "
            "live provider."
        )
    if not members:
        raise InterfaceError(
            f"The warehouse holds no member list for {found.id} ({found.name}); constituents "
            "offline exist only for ^GSPC (the bundled subset of S&P 500 stocks)."
        )
    frame = pd.DataFrame([_entity_row(e) for e in members]).set_index("id").sort_index()
    frame = frame[["name", "kind", "first", "last"]]
    return tag(
        frame,
        kind="cross_section",
        title=f"Members of {found.name}",
        sources=cite(ctx, [found]),
        index=found.id,
    )


def _live_reader(module: str, name: str) -> Callable[..., pd.DataFrame] | None:
    """A reader of data only live providers fill, when this installation has it."""
    try:
        return getattr(importlib.import_module(f"datapilot.data.{module}"), name)
    except (ImportError, AttributeError):
        return None


def _live_only(ctx: InterfaceContext, reader: Any, what: str, *args: Any) -> pd.DataFrame:
    """Read data only live providers fill; explain how to get them when there are none."""
    frame = None
    if reader is not None:
        try:
            frame = reader(ctx.warehouse, *args)
        except duckdb.CatalogException:  # the table appears with the first live fetch
            frame = None
    if frame is None or len(frame) == 0:
        raise InterfaceError(
            f"No {what} in the local warehouse: the bundled data hold prices and series only. "
            "Fetch them with a live provider (`datapilot data fetch`)."
        )
    return frame


@interface("acquisition", "frame")
def get_fundamentals(
    ctx: InterfaceContext,
    entity: Annotated[str, "One stock id."],
    fields: Annotated[
        list[str] | None, "Fields such as revenue, net_income, eps; None = all."
    ] = None,
    period: Literal["annual", "quarterly"] = "annual",
) -> pd.DataFrame:
    """Reported financial statement figures of a company by fiscal period end, one column per
    field (needs data from a live provider)."""
    found = check_entity(ctx, entity, {"stock"}, need_data=False, dataset="fundamentals")
    reader = _live_reader("fundamentals", "fundamentals_table")
    frame = _live_only(ctx, reader, f"fundamentals for {found.id}", found.id, fields, period)
    if fields:
        frame = frame[[require_column(frame, f) for f in fields]]
    sources = list(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return tag(
        frame,
        kind="timeseries",
        title=f"{found.name} fundamentals ({period})",
        sources=sources,
        units=frame.attrs.get("units"),
        entity=found.id,
    )


@interface("acquisition", "frame")
def get_news(
    ctx: InterfaceContext,
    entity: Annotated[str, "One entity id."],
    limit: Annotated[int, "Most recent items returned."] = 10,
) -> pd.DataFrame:
    """Recent news headlines about an entity (needs data from a live provider)."""
    found = check_entity(ctx, entity, PRICE_KINDS | SERIES_KINDS, need_data=False, dataset="news")
    reader = _live_reader("news", "news")
    frame = _live_only(ctx, reader, f"news for {found.id}", found.id, limit)
    sources = list(frame.attrs.get("sources", []))
    ctx.sources.update(sources)
    return tag(
        frame.head(limit), kind="cross_section", title=f"News about {found.name}", sources=sources
    )


@interface("acquisition", "frame")
def get_fund_nav(
    ctx: InterfaceContext,
    entity: Annotated[str, "One fund id."],
    start: date | None = None,
    end: date | None = None,
) -> pd.DataFrame:
    """Net asset value per unit of a mutual fund over time: columns nav and accumulated_nav
    (distributions added back); needs data from a live provider."""
    found = check_entity(
        ctx, entity, {"fund"}, need_data=False, start=start, end=end, dataset="prices"
    )
    reader = _live_reader("funds", "fund_nav")
    frame = _live_only(ctx, reader, f"NAV for {found.id}", found.id, start, end)
    return tag(
        frame,
        kind="timeseries",
        unit=found.units,
        title=f"{found.name} NAV",
        sources=cite(ctx, [found]),
        entity=found.id,
    )
