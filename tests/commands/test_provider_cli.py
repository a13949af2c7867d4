"""`datapilot data fetch` and `datapilot data search` with a fake live provider."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest
from typer.testing import CliRunner

import datapilot.data as data
from datapilot.cli import app
from datapilot.core.intent import EntityKind
from datapilot.data.access import DataAccess
from datapilot.data.catalog import Catalog, Entity
from datapilot.data.providers import router
from datapilot.data.providers.http import ProviderError
from datapilot.data.providers.live import Dataset, Download, LiveProvider
from datapilot.data.warehouse import Warehouse

runner = CliRunner()


class FakeProvider(LiveProvider):
    """Daily closes for the ids it knows; an error for the others."""

    name: ClassVar[str] = "fake"
    title: ClassVar[str] = "Fake"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"stock"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"prices"})

    def __init__(self, ids: set[str]) -> None:
        self.ids = ids
        self.calls: list[str] = []

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        return True

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        self.calls.append(entity_id)
        if entity_id not in self.ids:
            raise ProviderError(f"fake: unknown symbol {entity_id}")
        dates = pd.bdate_range("2024-01-02", periods=20)
        frame = pd.DataFrame({"id": entity_id, "date": dates, "close": range(100, 120)})
        entity = Entity(id=entity_id, kind="stock", name=f"{entity_id} Corp", source=self.name)
        return Download(entity=entity, prices=frame)

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        return [Entity(id=i, kind="stock", name=f"{i} Corp", source=self.name) for i in self.ids]


@pytest.fixture
def live(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[Warehouse, Catalog, FakeProvider]:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    catalog = Catalog([Entity(id="AAA", kind="stock", name="Alpha Inc", available=False)])
    provider = FakeProvider({"AAA", "BBB"})
    # The commands' data: this warehouse and catalog.
    opened = lambda settings: DataAccess(settings, warehouse=warehouse, catalog=catalog)  # noqa: E731
    monkeypatch.setattr(data, "open_data", opened)
    monkeypatch.setattr(router, "live_providers", lambda settings=None, names=None: [provider])
    return warehouse, catalog, provider


def test_fetch_reports_each_entity_and_caches(live) -> None:
    warehouse, _, provider = live
    result = runner.invoke(app, ["data", "fetch", "AAA", "ZZZ", "--from", "2024-01-01"])
    assert result.exit_code == 0, result.output  # partial success is success
    assert "fetched" in result.output and "failed" in result.output
    assert "unknown symbol ZZZ" in result.output
    assert len(warehouse.prices(["AAA"])) > 0

    again = runner.invoke(app, ["data", "fetch", "AAA"])
    assert "fresh" in again.output
    assert provider.calls.count("AAA") == 1
    forced = runner.invoke(app, ["data", "fetch", "AAA", "--force"])
    assert "fetched" in forced.output
    assert provider.calls.count("AAA") == 2


def test_fetch_fails_when_nothing_arrives(live) -> None:
    result = runner.invoke(app, ["data", "fetch", "ZZZ", "--what", "prices"])
    assert result.exit_code == 1
    assert "unknown symbol ZZZ" in result.output


def test_fetch_rejects_bad_input(live) -> None:
    bad_dataset = runner.invoke(app, ["data", "fetch", "AAA", "--what", "candles"])
    assert bad_dataset.exit_code == 1 and "unknown dataset(s) candles" in bad_dataset.output
    bad_provider = runner.invoke(app, ["data", "fetch", "AAA", "--provider", "bloomberg"])
    assert bad_provider.exit_code == 1 and "unknown data provider" in bad_provider.output


def test_fetch_refuses_offline(live, monkeypatch: pytest.MonkeyPatch) -> None:
    from datapilot.settings import get_settings

    monkeypatch.setattr(get_settings(), "offline", True)
    result = runner.invoke(app, ["data", "fetch", "AAA"])
    assert result.exit_code == 1
    assert "offline mode forbids fetching" in result.output
    assert live[2].calls == []


def test_search_lists_local_and_live_matches_and_registers_them(live) -> None:
    _, catalog, _ = live
    result = runner.invoke(app, ["data", "search", "BBB Corp"])
    assert result.exit_code == 0, result.output
    assert "BBB" in result.output
    assert catalog.get("BBB") is not None and not catalog.get("BBB").available
