"""Live data on demand: choose providers, apply the cache policy, store, grow the catalog.

`ensure(ids, start, end)` is the hook readers call before reading the warehouse: it returns at
once when no live provider is configured, never opens a socket offline, and reports per entity
(fetched / fresh / stale with an "as of" notice / failed) without raising.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from typing import TYPE_CHECKING

import pandas as pd
from pydantic import BaseModel, Field

from datapilot.core.intent import PRICE_KINDS, SERIES_KINDS, EntityKind
from datapilot.data import text
from datapilot.data.cache import CachePolicy, FetchRecord, fetch_records, log_fetch_in, utc_now
from datapilot.data.catalog import Entity, with_coverage
from datapilot.data.providers.http import ProviderError
from datapilot.data.providers.live import Dataset, Download, EntityFetch, FetchReport, LiveProvider
from datapilot.data.providers.names import provider_names
from datapilot.plugins import providers as provider_factories

if TYPE_CHECKING:
    from datapilot.data.catalog import Catalog
    from datapilot.data.warehouse import Warehouse
    from datapilot.settings import Settings

MAX_PARALLEL = 4

_instances: dict[tuple[str, str], LiveProvider] = {}
_instances_lock = threading.Lock()


class SearchResult(BaseModel):
    """Entities found by name, best first, and the providers that could not answer."""

    entities: list[Entity] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)


def live_providers(settings: Settings, names: Sequence[str] | None = None) -> list[LiveProvider]:
    """Provider instances, shared per process so their rate limits hold across requests."""
    return [_instance(name, settings) for name in provider_names(settings, names)]


def _instance(name: str, settings: Settings) -> LiveProvider:
    key_text = settings.fred_api_key.get_secret_value() if settings.fred_api_key else ""
    config = {"fred": key_text, "sec": settings.sec_user_agent or ""}.get(name, "")
    with _instances_lock:
        if (name, config) not in _instances:
            _instances[(name, config)] = provider_factories()[name](settings)
        return _instances[(name, config)]


class Router:
    """Runs the cache policy over a list of providers against one warehouse and catalog."""

    def __init__(
        self,
        providers: Sequence[LiveProvider],
        warehouse: Warehouse,
        catalog: Catalog,
        *,
        policy: CachePolicy | None = None,
        offline: bool = False,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self.providers = list(providers)
        self.warehouse = warehouse
        self.catalog = catalog
        self.policy = policy or CachePolicy()
        self.offline = offline
        self.now = now
        self._catalog_lock = threading.Lock()
        #: Called after each download is stored (replicas share it: `data.shared`).
        self.on_stored: Callable[[Download, str], None] | None = None

    # ---- ensure ---------------------------------------------------------------------------

    def ensure(
        self,
        ids: Sequence[str],
        start: date | None = None,
        end: date | None = None,
        datasets: Sequence[Dataset] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> FetchReport:
        """Make the warehouse hold fresh enough data for each id, as far as possible;
        `progress(done, total)` hears of each id done."""
        wanted = list(dict.fromkeys(i.strip().upper() for i in ids if i.strip()))
        report = FetchReport()
        if not wanted or not self.providers:
            return report
        records = fetch_records(self.warehouse, wanted)
        workers = min(MAX_PARALLEL, len(wanted))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ensure") as pool:
            outcomes = pool.map(
                lambda entity_id: self._ensure_one(entity_id, start, end, datasets, records),
                wanted,
            )
            for done, items in enumerate(outcomes, 1):
                report.items.extend(items)
                if progress is not None:
                    progress(done, len(wanted))
        return report

    def _ensure_one(
        self,
        entity_id: str,
        start: date | None,
        end: date | None,
        datasets: Sequence[Dataset] | None,
        records: dict[tuple[str, str], list[FetchRecord]],
    ) -> list[EntityFetch]:
        known = self.catalog.get(entity_id)
        kind = known.kind if known else None
        items: list[EntityFetch] = []
        for dataset in datasets or _default_datasets(kind):
            candidates = [p for p in self.providers if p.serves(entity_id, dataset, kind)]
            if not candidates:
                continue
            item = self._ensure_dataset(
                entity_id, dataset, start, end, candidates, records.get((entity_id, dataset), [])
            )
            if item is None:
                continue
            if datasets is None and item.ok:
                # An id of unknown kind found its dataset: the other one's failure is no news.
                return [item]
            items.append(item)
        return items

    def _ensure_dataset(
        self,
        entity_id: str,
        dataset: Dataset,
        start: date | None,
        end: date | None,
        candidates: list[LiveProvider],
        records: list[FetchRecord],
    ) -> EntityFetch | None:
        decision = self.policy.decide(records, start, end, self.now(), dataset)
        latest = max(records, key=lambda r: r.fetched_at) if records else None
        if decision.action == "local" and decision.record is not None:
            return EntityFetch(
                id=entity_id,
                dataset=dataset,
                status="fresh",
                provider=decision.record.provider,
                rows=decision.record.rows,
                as_of=decision.record.fetched_at,
                message=decision.reason,
            )
        if latest is None and self._local_history_covers(entity_id, dataset, start, end):
            return None  # bundled or imported data already hold this settled window
        if self.offline:
            return self._fallback(
                entity_id, dataset, latest, "offline mode; not refreshed", offline=True
            )
        errors = []
        for provider in candidates:
            try:
                download = provider.download(entity_id, dataset, None, None)
                rows = self.store(download, provider.name, dataset)
            except ProviderError as error:
                errors.append(str(error))
                continue
            return EntityFetch(
                id=entity_id,
                dataset=dataset,
                status="fetched",
                provider=provider.name,
                rows=rows,
                as_of=self.now(),
            )
        return self._fallback(entity_id, dataset, latest, "could not refresh: " + "; ".join(errors))

    def _fallback(
        self,
        entity_id: str,
        dataset: Dataset,
        latest: FetchRecord | None,
        reason: str,
        offline: bool = False,
    ) -> EntityFetch | None:
        """Serve the local copy with an "as of" notice, or say there is nothing to serve."""
        if latest is not None:
            return EntityFetch(
                id=entity_id,
                dataset=dataset,
                status="stale",
                provider=latest.provider,
                rows=latest.rows,
                as_of=latest.fetched_at,
                message=reason,
            )
        if self._has_local(entity_id, dataset):
            return (
                None
                if offline
                else EntityFetch(
                    id=entity_id,
                    dataset=dataset,
                    status="stale",
                    message=reason,
                )
            )
        hint = (
            "offline mode forbids fetching it (drop --offline / unset DATAPILOT_OFFLINE)"
            if offline
            else reason
        )
        return EntityFetch(
            id=entity_id,
            dataset=dataset,
            status="failed",
            message=f"no local {dataset} for {entity_id}; {hint}",
        )

    def _coverage(self, entity_id: str, dataset: Dataset) -> pd.DataFrame | None:
        """The warehouse coverage rows of the table this dataset lives in (prices or series)."""
        table = dataset if dataset in ("prices", "series") else None
        if table is None:
            return None
        coverage = self.warehouse.coverage(entity_id)
        return coverage[coverage["table"] == table]

    def _has_local(self, entity_id: str, dataset: Dataset) -> bool:
        coverage = self._coverage(entity_id, dataset)
        return coverage is not None and not coverage.empty

    def _local_history_covers(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> bool:
        """Whether data no live provider fetched already cover a window that has settled."""
        coverage = self._coverage(entity_id, dataset)
        if coverage is None or coverage.empty or end is None:
            return False
        if end >= (self.now() - self.policy.settle).date():
            return False
        first, last = coverage["first"].min(), coverage["last"].max()
        return (start is None or first.date() <= start) and last.date() >= end

    # ---- storing --------------------------------------------------------------------------

    def store(self, download: Download, provider: str, dataset: Dataset) -> int:
        """Write a download and its fetch record in one transaction, then register the entity."""
        from datapilot.data.fundamentals import write_fundamentals_in, write_profile_in
        from datapilot.data.news import write_news_in
        from datapilot.data.warehouse import write_prices_in, write_series_in

        fetched_at = self.now()
        with self.warehouse.transaction() as connection:
            rows = 0
            if download.prices is not None:
                rows += write_prices_in(connection, download.prices, provider)
            if download.series is not None:
                rows += write_series_in(connection, download.series, provider)
            if download.fundamentals is not None:
                rows += write_fundamentals_in(connection, download.fundamentals, provider)
            if download.news is not None:
                rows += write_news_in(connection, download.news, provider)
            if download.profile is not None:
                rows += write_profile_in(connection, download.profile, provider)
            record = FetchRecord(
                id=download.entity.id,
                dataset=dataset,
                provider=provider,
                fetched_at=fetched_at,
                rows=rows,
            )
            log_fetch_in(connection, record)
        self.register([download.entity], available=True)
        if self.on_stored is not None:
            self.on_stored(download, provider)
        _announce(self.warehouse, download)
        return rows

    # ---- catalog --------------------------------------------------------------------------

    def register(self, entities: Sequence[Entity], available: bool) -> list[Entity]:
        """Add discovered entities to the catalog (and persist them), keeping names unique:
        an alias another entity already owns is dropped rather than stolen. An entity with data
        takes its first/last dates, sources and frequency from the warehouse coverage."""
        added: list[Entity] = []
        with self._catalog_lock:
            owners = _name_owners(self.catalog)
            for entity in entities:
                existing = self.catalog.get(entity.id)
                merged = _merge(existing, entity, owners, available)
                if merged is not None and available:
                    merged = with_coverage(merged, self.warehouse.coverage(merged.id))
                if merged is None or merged == existing:
                    continue
                try:
                    self.catalog.add(merged)
                except ValueError:
                    continue  # a name clash the checks above missed; keep the catalog valid
                for name in {merged.name, *merged.aliases}:
                    owners.setdefault(text.key(name), merged.id.upper())
                added.append(merged)
            if added:
                self.warehouse.write_entities(added)
        return added

    # ---- search ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, register: bool = True) -> SearchResult:
        """Catalog matches first, then each provider's, deduplicated; live hits join the catalog."""
        result = SearchResult()
        found: dict[str, Entity] = {
            m.entity.id: m.entity for m in self.catalog.lookup(query, limit)
        }
        live: list[Entity] = []
        for provider in self.providers:
            if self.offline:
                result.errors.append(f"{provider.name}: not searched (offline mode)")
                continue
            try:
                hits = provider.search(query, limit)
            except ProviderError as error:
                result.errors.append(str(error))
                continue
            for entity in hits:
                if entity.id not in found:
                    found[entity.id] = entity
                    live.append(entity)
        if register and live:
            self.register(live, available=False)
        result.entities = [self.catalog.get(i) or e for i, e in found.items()][:limit]
        return result


def _default_datasets(kind: EntityKind | None) -> tuple[Dataset, ...]:
    if kind in PRICE_KINDS:
        return ("prices",)
    if kind in SERIES_KINDS:
        return ("series",)
    return ("prices", "series")


def _name_owners(catalog: Catalog) -> dict[str, str]:
    owners: dict[str, str] = {}
    for entity in catalog.entities():
        for name in {entity.name, *entity.aliases, *getattr(entity, "weak_aliases", [])}:
            owners.setdefault(text.key(name), entity.id.upper())
    return owners


def _merge(
    existing: Entity | None, found: Entity, owners: dict[str, str], available: bool
) -> Entity | None:
    """The catalog entry after a discovery: new aliases added, availability and source updated."""
    entity_id = (existing or found).id.upper()

    def free(name: str) -> bool:
        key = text.key(name)
        return bool(key) and owners.get(key, entity_id) == entity_id

    if existing is None:
        name = found.name if free(found.name) else f"{found.name} ({found.id})"
        if not free(name):
            return None
        aliases = [a for a in dict.fromkeys(found.aliases) if free(a) and a != name]
        return found.model_copy(update={"name": name, "aliases": aliases, "available": available})
    aliases = list(existing.aliases)
    for alias in [found.name, *found.aliases]:
        if alias not in aliases and alias != existing.name and free(alias):
            aliases.append(alias)
    sources = [s for s in (existing.source or "").split(", ") if s]
    if available and found.source and found.source not in sources:
        sources.append(found.source)
    return existing.model_copy(
        update={
            "aliases": aliases,
            "available": existing.available or available,
            "source": ", ".join(sources),
        }
    )


def _announce(warehouse: Warehouse, download: Download) -> None:
    """Tell the warehouse's listeners (watches) which dated rows came (`data.changes`)."""
    from datapilot.data.changes import DataChange, announce

    frames = [f for f in (download.prices, download.series) if f is not None and not f.empty]
    if not frames:
        return
    dates = pd.concat([pd.to_datetime(f["date"]) for f in frames])
    change = DataChange(
        path=warehouse.path,
        ids=(download.entity.id,),
        owner=None,
        origin="fetch",
        first=dates.min().date(),
        last=dates.max().date(),
    )
    announce(change)
