"""The catalog is built once per version of the warehouse: a later process reads it from the data
dir, and a write to the warehouse (an import, a fetch) builds it again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from datapilot.data import catalog_cache
from datapilot.data.catalog import Catalog
from datapilot.data.warehouse import Warehouse


@pytest.fixture()
def warehouse(tmp_path: Path) -> Iterator[Warehouse]:
    warehouse = Warehouse(tmp_path / "warehouse.duckdb")
    yield warehouse
    warehouse.close()


def _closes(entity_id: str, start: str, end: str) -> pd.DataFrame:
    days = pd.bdate_range(start, end)
    return pd.DataFrame({"id": entity_id, "date": days, "close": 100.0 + len(days)})


def _never_built(*args: object, **kwargs: object) -> Catalog:
    raise AssertionError("the catalog was built, not read from the cache")


def test_the_same_warehouse_reads_its_catalog_back(
    warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse.write_prices(_closes("AAPL", "2021-01-04", "2021-03-31"), "mine")
    built = catalog_cache.load_catalog(warehouse, tmp_path)
    assert catalog_cache.cache_path(tmp_path).is_file()
    monkeypatch.setattr(Catalog, "load", _never_built)
    # Nor are its ~300 entities' names checked again: they were when it was built.
    monkeypatch.setattr("datapilot.data.catalog.check_names", _never_built)
    read = catalog_cache.load_catalog(warehouse, tmp_path)
    assert read.entities() == built.entities()
    assert read.rules == built.rules
    apple = read.get("AAPL")
    assert apple is not None and apple.available
    assert (apple.first, apple.last) == (date(2021, 1, 4), date(2021, 3, 31))
    assert [m.entity.id for m in read.mentions("Apple closing price")] == ["AAPL"]


def test_a_write_to_the_warehouse_builds_it_again(warehouse: Warehouse, tmp_path: Path) -> None:
    warehouse.write_prices(_closes("AAPL", "2021-01-04", "2021-03-31"), "mine")
    before = catalog_cache.load_catalog(warehouse, tmp_path)
    assert not before.get("MSFT").available  # type: ignore[union-attr]
    warehouse.write_prices(_closes("MSFT", "2021-01-04", "2021-02-26"), "mine")
    warehouse.write_prices(_closes("AAPL", "2021-04-01", "2021-04-30"), "mine")
    after = catalog_cache.load_catalog(warehouse, tmp_path)
    assert after.get("MSFT").available  # type: ignore[union-attr]
    assert after.get("AAPL").last == date(2021, 4, 30)  # type: ignore[union-attr]


def test_a_damaged_cache_is_built_again(warehouse: Warehouse, tmp_path: Path) -> None:
    warehouse.write_prices(_closes("AAPL", "2021-01-04", "2021-03-31"), "mine")
    catalog_cache.load_catalog(warehouse, tmp_path)
    path = catalog_cache.cache_path(tmp_path)
    path.write_text("{not json", encoding="utf-8")
    assert catalog_cache.load_catalog(warehouse, tmp_path).get("AAPL").available  # type: ignore[union-attr]
    assert path.read_text(encoding="utf-8").startswith("{")
    assert '"key"' in path.read_text(encoding="utf-8")


QUESTIONS = [
    "Apple closing price",
    "Microsfot and Amazn in 2021",  # misspellings
    "苹果和微软谁涨得多",
    "Micros vs the Nasdaq Composite",  # the start of one name; the longest span
    "10-year treasury bond yields",  # a plural
]


def _found(catalog: Catalog) -> list[list[tuple[str, str]]]:
    return [[(m.entity.id, m.matched) for m in catalog.mentions(q)] for q in QUESTIONS]


def test_the_name_index_is_read_back_with_the_catalog(
    warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse.write_prices(_closes("AAPL", "2021-01-04", "2021-03-31"), "mine")
    catalog_cache.load_catalog(warehouse, tmp_path)
    fresh = Catalog.load(warehouse, tmp_path)  # built here, as before any cache
    expected, looked_up = _found(fresh), [m.entity.id for m in fresh.lookup("Microsft")]
    assert ("AAPL", "Apple") in expected[0] and ("MSFT", "Microsfot") in expected[1]

    def never_indexed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the name index was built, not read from the cache")

    monkeypatch.setattr("datapilot.data.matcher.Matcher.__init__", never_indexed)
    read = catalog_cache.load_catalog(warehouse, tmp_path)
    assert _found(read) == expected
    assert [m.entity.id for m in read.lookup("Microsft")] == looked_up


def test_a_damaged_name_index_is_built_again(warehouse: Warehouse, tmp_path: Path) -> None:
    import json

    warehouse.write_prices(_closes("AAPL", "2021-01-04", "2021-03-31"), "mine")
    expected = _found(catalog_cache.load_catalog(warehouse, tmp_path))
    path = catalog_cache.cache_path(tmp_path)
    body = json.loads(path.read_text(encoding="utf-8"))
    body["index"]["matcher"]["_names"] = 7
    path.write_text(json.dumps(body), encoding="utf-8")
    assert _found(catalog_cache.load_catalog(warehouse, tmp_path)) == expected


def test_an_entity_added_after_reading_is_found(warehouse: Warehouse, tmp_path: Path) -> None:
    from datapilot.data.entity import Entity

    catalog_cache.load_catalog(warehouse, tmp_path)
    read = catalog_cache.load_catalog(warehouse, tmp_path)
    zebra = Entity(id="ZZQX", kind="stock", name="Zebra Quixote Inc.", aliases=["Zebra Quixote"])
    read.add(zebra)
    assert [m.entity.id for m in read.mentions("Zebra Quixote since 2020")] == ["ZZQX"]
