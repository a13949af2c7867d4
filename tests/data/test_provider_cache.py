"""The live-data cache policy end to end: TTL, settled history, offline and failure fallbacks
with "as of" notices, partial failure, provider order and catalog growth."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import ClassVar

import duckdb
import pandas as pd
import pytest

from datapilot.core.intent import EntityKind
from datapilot.data.cache import CachePolicy, FetchRecord, registered
from datapilot.data.catalog import Catalog, Entity
from datapilot.data.providers.http import OfflineError, ProviderError
from datapilot.data.providers.live import Dataset, Download, LiveProvider
from datapilot.data.providers.router import Router, provider_names
from datapilot.data.warehouse import Warehouse

T0 = datetime(2024, 6, 3, 12, 0)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class FakeProvider(LiveProvider):
    """Serves daily closes 100, 101, … for any id in `closes`; fails for the others."""

    name: ClassVar[str] = "fake"
    title: ClassVar[str] = "Fake"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"stock", "macro"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"prices", "series"})

    def __init__(self, ids: set[str], name: str = "fake", offset: float = 0.0) -> None:
        self.ids = ids
        self.calls: list[str] = []
        self.failing = False
        self.name = name  # type: ignore[misc]
        self.offset = offset

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        return True

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        self.calls.append(entity_id)
        if self.failing:
            raise ProviderError(f"{self.name}: service unavailable")
        if entity_id not in self.ids:
            raise ProviderError(f"{self.name}: unknown symbol {entity_id}")
        dates = pd.bdate_range("2024-01-02", "2024-05-31")
        closes = [100.0 + self.offset + i for i in range(len(dates))]
        entity = Entity(id=entity_id, kind="stock", name=f"{entity_id} Corp", source=self.name,
                        aliases=[f"{entity_id} Corporation"])  # fmt: skip
        if dataset == "series":
            frame = pd.DataFrame({"id": entity_id, "date": dates, "value": closes})
            return Download(entity=entity.model_copy(update={"kind": "macro"}), series=frame)
        frame = pd.DataFrame(
            {"id": entity_id, "date": dates, "close": closes, "adj_close": closes, "volume": 1e6}
        )
        return Download(entity=entity, prices=frame)

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        return [Entity(id=i, kind="stock", name=f"{i} Corp", source=self.name) for i in self.ids]


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path / "warehouse.duckdb")


@pytest.fixture
def catalog() -> Catalog:
    return Catalog(
        [
            Entity(id="AAA", kind="stock", name="Alpha Inc", available=False),
            Entity(id="OLD", kind="stock", name="Old Data Co"),
        ]
    )


def make_router(
    warehouse: Warehouse, catalog: Catalog, providers: list[LiveProvider], clock: Clock, **kw
) -> Router:
    return Router(providers, warehouse, catalog, now=clock, **kw)


def test_fresh_data_is_served_locally_until_its_ttl_passes(warehouse, catalog) -> None:
    clock, provider = Clock(), FakeProvider({"AAA"})
    policy = CachePolicy.from_hours({"prices": 12})
    router = make_router(warehouse, catalog, [provider], clock, policy=policy)

    first = router.ensure(["AAA"], date(2024, 1, 1), None)
    assert first.get("AAA").status == "fetched"
    assert first.get("AAA").rows == len(pd.bdate_range("2024-01-02", "2024-05-31"))

    clock.now = T0 + timedelta(hours=11)
    second = router.ensure(["AAA"], date(2024, 3, 1), None)
    assert second.get("AAA").status == "fresh"
    assert second.get("AAA").as_of == T0
    assert provider.calls == ["AAA"]

    clock.now = T0 + timedelta(hours=13)
    third = router.ensure(["AAA"], date(2024, 3, 1), None)
    assert third.get("AAA").status == "fetched"
    assert provider.calls == ["AAA", "AAA"]


def test_a_settled_window_never_goes_stale(warehouse, catalog) -> None:
    clock, provider = Clock(), FakeProvider({"AAA"})
    router = make_router(warehouse, catalog, [provider], clock)
    router.ensure(["AAA"], date(2024, 1, 1), date(2024, 2, 29))
    clock.now = T0 + timedelta(days=60)
    report = router.ensure(["AAA"], date(2024, 1, 1), date(2024, 2, 29))
    assert report.get("AAA").status == "fresh"
    assert "settled" in report.get("AAA").message
    assert provider.calls == ["AAA"]
    # A window reaching past the fetch is not settled: refetched.
    assert (
        router.ensure(["AAA"], date(2024, 1, 1), date(2024, 7, 31)).get("AAA").status == "fetched"
    )


def test_stale_and_offline_serves_local_data_with_an_as_of_notice(warehouse, catalog) -> None:
    clock, provider = Clock(), FakeProvider({"AAA"})
    make_router(warehouse, catalog, [provider], clock).ensure(["AAA"])
    clock.now = T0 + timedelta(days=3)
    offline = make_router(warehouse, catalog, [provider], clock, offline=True)
    report = offline.ensure(["AAA"], date(2024, 1, 1), None)
    item = report.get("AAA")
    assert item.status == "stale"
    assert item.as_of == T0
    assert report.notices == [
        "AAA: prices as of 2024-06-03 12:00 UTC (offline mode; not refreshed)"
    ]
    assert provider.calls == ["AAA"]  # no download attempted offline
    assert report.ok
    assert len(warehouse.prices(["AAA"], date(2024, 1, 1))) == item.rows


def test_stale_and_provider_down_serves_local_data_with_the_reason(warehouse, catalog) -> None:
    clock, provider = Clock(), FakeProvider({"AAA"})
    router = make_router(warehouse, catalog, [provider], clock)
    router.ensure(["AAA"])
    provider.failing = True
    clock.now = T0 + timedelta(days=2)
    item = router.ensure(["AAA"]).get("AAA")
    assert item.status == "stale"
    assert item.notice == (
        "AAA: prices as of 2024-06-03 12:00 UTC (could not refresh: fake: service unavailable)"
    )
    last = warehouse.prices(["AAA"]).iloc[-1]
    assert last["close"] == 100.0 + len(pd.bdate_range("2024-01-02", "2024-05-31")) - 1


def test_partial_failure_reports_per_entity_and_keeps_what_arrived(warehouse, catalog) -> None:
    clock, provider = Clock(), FakeProvider({"AAA", "BBB"})
    report = make_router(warehouse, catalog, [provider], clock).ensure(
        ["AAA", "ZZZ", "BBB"], datasets=["prices"]
    )
    assert [i.status for i in report.items] == ["fetched", "failed", "fetched"]
    assert report.ok
    assert [f.id for f in report.failed] == ["ZZZ"]
    assert (
        report.get("ZZZ").message
        == "no local prices for ZZZ; could not refresh: fake: unknown symbol ZZZ"
    )
    assert set(warehouse.prices(["AAA", "BBB", "ZZZ"])["id"]) == {"AAA", "BBB"}


def test_offline_without_local_data_is_a_clear_error(warehouse, catalog) -> None:
    provider = FakeProvider({"AAA"})
    report = make_router(warehouse, catalog, [provider], Clock(), offline=True).ensure(["AAA"])
    assert report.get("AAA").status == "failed"
    assert "offline mode forbids fetching it" in report.get("AAA").message
    assert provider.calls == []


def test_providers_are_tried_in_order(warehouse, catalog) -> None:
    first, second = FakeProvider(set(), name="first"), FakeProvider({"AAA"}, name="second")
    report = make_router(warehouse, catalog, [first, second], Clock()).ensure(["AAA"])
    assert report.get("AAA").provider == "second"
    assert first.calls == second.calls == ["AAA"]
    assert warehouse.sources("AAA") == ["second"]


def test_bundled_history_covering_a_settled_window_needs_no_fetch(warehouse, catalog) -> None:
    dates = pd.bdate_range("2015-01-01", "2020-12-31")
    warehouse.write_prices(pd.DataFrame({"id": "OLD", "date": dates, "close": 1.0}), "bundled")
    provider = FakeProvider({"OLD"})
    router = make_router(warehouse, catalog, [provider], Clock())
    assert router.ensure(["OLD"], date(2018, 1, 1), date(2019, 12, 31)).items == []
    assert provider.calls == []
    assert router.ensure(["OLD"], date(2018, 1, 1), None).get("OLD").status == "fetched"


def test_fetched_entities_join_the_catalog_and_persist(warehouse, catalog) -> None:
    router = make_router(warehouse, catalog, [FakeProvider({"NEWCO", "AAA"})], Clock())
    assert catalog.get("NEWCO") is None
    router.ensure(["NEWCO", "AAA"], datasets=["prices"])
    found = catalog.get("NEWCO")
    assert found is not None and found.available
    assert found.name == "NEWCO Corp"
    assert catalog.lookup("NEWCO Corporation")[0].entity.id == "NEWCO"
    # A directory entity keeps its name, gains the provider's, and now has data.
    alpha = catalog.get("AAA")
    assert alpha.name == "Alpha Inc" and alpha.available and alpha.source == "fake"
    reloaded = Catalog.load(warehouse)
    assert reloaded.get("NEWCO") is not None


def test_a_fetched_entity_knows_the_dates_its_data_cover(warehouse, catalog) -> None:
    router = make_router(warehouse, catalog, [FakeProvider({"NEWCO"})], Clock())
    router.search("NEWCO")  # discovered by name first: no data, no dates
    assert catalog.get("NEWCO").first is None
    router.ensure(["NEWCO"], datasets=["prices"])
    stored = warehouse.prices(["NEWCO"])["date"]  # what the fake served, as the warehouse holds it
    found = catalog.get("NEWCO")
    assert (found.first, found.last) == (stored.min().date(), stored.max().date())
    assert found.frequency == "daily"
    reloaded = Catalog.load(warehouse).get("NEWCO")
    assert (reloaded.first, reloaded.last) == (found.first, found.last)


def test_search_grows_the_catalog_without_stealing_names(warehouse, catalog) -> None:
    provider = FakeProvider({"XYZ"})
    provider.search = lambda text, limit=10: [  # type: ignore[method-assign]
        Entity(id="XYZ", kind="stock", name="Xyz Holdings", aliases=["Alpha Inc", "Xyz"]),
    ]
    result = make_router(warehouse, catalog, [provider], Clock()).search("xyz holdings")
    assert "XYZ" in [e.id for e in result.entities]
    added = catalog.get("XYZ")
    assert added is not None and not added.available
    assert "Alpha Inc" not in added.aliases  # already AAA's name
    assert catalog.lookup("Alpha Inc")[0].entity.id == "AAA"


def test_search_reports_providers_that_cannot_answer(warehouse, catalog) -> None:
    provider = FakeProvider(set())

    def refuse(text: str, limit: int = 10) -> list[Entity]:
        raise OfflineError("fake: network access is disabled (offline mode)")

    provider.search = refuse  # type: ignore[method-assign]
    result = make_router(warehouse, catalog, [provider], Clock()).search("Alpha")
    assert result.entities[0].id == "AAA"
    assert result.errors == ["fake: network access is disabled (offline mode)"]


def test_cache_policy_decisions() -> None:
    policy = CachePolicy.from_hours({"news": 1})
    record = FetchRecord(id="X", dataset="news", provider="p", fetched_at=T0)
    assert policy.decide([], None, None, T0, "news").action == "fetch"
    assert policy.decide([record], None, None, T0 + timedelta(minutes=59), "news").action == "local"
    assert policy.decide([record], None, None, T0 + timedelta(minutes=61), "news").action == "fetch"
    partial = FetchRecord(
        id="X", dataset="prices", provider="p", start=date(2024, 1, 1), fetched_at=T0
    )
    assert policy.decide([partial], date(2023, 1, 1), None, T0, "prices").action == "fetch"
    assert policy.decide([partial], date(2024, 2, 1), None, T0, "prices").action == "local"


def test_provider_settings_are_validated() -> None:
    from datapilot.settings import Settings

    assert provider_names(Settings(providers=["bundled", "yfinance", "FRED", "yahoo"])) == [
        "yahoo",
        "fred",
    ]
    with pytest.raises(ValueError, match="unknown data provider 'bloomberg'"):
        provider_names(Settings(providers=["bloomberg"]))


def test_ensure_returns_at_once_without_live_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    from datapilot.data.access import DataAccess
    from datapilot.settings import Settings

    def no_warehouse(self: DataAccess) -> None:
        raise AssertionError("the warehouse must not be opened")

    monkeypatch.setattr(DataAccess, "warehouse", property(no_warehouse))
    access = DataAccess(Settings(providers=["bundled"]))  # the request's data: no live provider
    assert access.ensure(["AAPL"], date(2024, 1, 1)).items == []


def test_a_registered_frame_is_readable_only_inside_its_block() -> None:
    connection = duckdb.connect()
    rows = pd.DataFrame({"id": ["A", "B"], "value": [1.5, 2.5]})
    with registered(connection, "incoming", rows):
        assert connection.execute("SELECT sum(value) FROM incoming").fetchall() == [(4.0,)]
    with pytest.raises(duckdb.CatalogException):
        connection.execute("SELECT * FROM incoming")
    with pytest.raises(ZeroDivisionError), registered(connection, "incoming", rows):
        1 / 0  # noqa: B018
    with pytest.raises(duckdb.CatalogException):
        connection.execute("SELECT * FROM incoming")
