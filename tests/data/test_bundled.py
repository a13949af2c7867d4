"""Bundled data: every entity and its date range, idempotent and interruption-safe seeding."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from datapilot.data import seeding
from datapilot.data.providers import bundled
from datapilot.data.providers.bundled import BundledProvider, package_file
from datapilot.data.seeding import is_seeded, seed
from datapilot.data.warehouse import Warehouse


def raw_range(package: str, *parts: str, date_format: str | None = None) -> tuple[date, date]:
    frame = pd.read_csv(package_file(package, *parts), encoding="utf-8-sig")
    dates = pd.to_datetime(frame.iloc[:, 0].astype(str), format=date_format)
    return dates.min().date(), dates.max().date()


@pytest.mark.parametrize(
    ("ids", "kind", "first", "last"),
    [
        (["AAPL", "MSFT", "JPM", "XOM", "RRC"], "stock", date(1990, 1, 2), date(2022, 12, 28)),
        (["^GSPC"], "index", date(1990, 1, 2), date(2022, 12, 28)),
        (["MTUM", "QUAL", "SIZE", "USMV", "VLUE"], "etf", date(2014, 1, 2), date(2022, 12, 28)),
        (["^IXIC"], "index", date(1999, 1, 4), date(2018, 12, 31)),
        (["IBM"], "stock", date(2000, 3, 1), date(2013, 3, 1)),
        (["GOOG"], "stock", date(2004, 8, 19), date(2013, 3, 1)),
        (["FB"], "stock", date(2012, 5, 18), date(2013, 3, 1)),
        (
            ["GDPC1", "UNRATE", "CPIAUCSL", "M1SL", "TB3MS"],
            "macro",
            date(1959, 1, 1),
            date(2009, 7, 1),
        ),
    ],
)
def test_bundled_entities_and_ranges(data, ids, kind, first, last) -> None:
    for entity_id in ids:
        entity = data.catalog.get(entity_id)
        assert entity.available and entity.kind == kind
        assert (entity.first, entity.last) == (first, last), entity_id


def test_arch_ranges_match_the_shipped_files(data) -> None:
    cases = {
        "^VIX": raw_range("arch", "data", "vix", "vix.csv.gz", date_format="%m/%d/%Y"),
        "DCOILWTICO": raw_range("arch", "data", "wti", "wti.csv.gz", date_format="%m/%d/%Y"),
        "CPILFESL": raw_range(
            "arch", "data", "core_cpi", "core-cpi.csv.gz", date_format="%m/%d/%Y"
        ),
        "AAA": raw_range("arch", "data", "default", "default.csv.gz", date_format="%m/%d/%Y"),
    }
    for entity_id, (first, last) in cases.items():
        entity = data.catalog.get(entity_id)
        assert (entity.first, entity.last) == (first, last), entity_id
    # Monthly series are dated on the first of the month, as FRED does.
    crude_first, crude_last = raw_range("arch", "data", "crude", "crude.csv.gz")
    brent = data.catalog.get("MCOILBRENTEU")
    assert brent.first == crude_first.replace(day=1) and brent.last == crude_last.replace(day=1)
    assert data.catalog.get("FF_MKT_RF").first == date(1926, 7, 1)
    assert data.catalog.get("FF_SMB").kind == "factor"


def test_wti_skips_missing_values(data) -> None:
    raw = pd.read_csv(package_file("arch", "data", "wti", "wti.csv.gz"))
    numeric = pd.to_numeric(raw["DCOILWTICO"], errors="coerce")
    assert numeric.isna().any()  # the file does have gaps
    stored = data.warehouse.series(["DCOILWTICO"])
    assert len(stored) == numeric.notna().sum()
    assert stored["value"].notna().all()


def test_status_lists_every_bundled_entity(data) -> None:
    from typer.testing import CliRunner

    from datapilot.cli import app

    result = CliRunner().invoke(app, ["data", "status"])
    assert result.exit_code == 0, result.output
    for entity_id in data.warehouse.coverage()["id"].unique():
        assert entity_id in result.output
    assert "2022-12-28" in result.output and "1959-01-01" in result.output


@pytest.fixture(scope="module")
def seeded_once(tmp_path_factory) -> tuple[Path, seeding.SeedReport]:
    path = tmp_path_factory.mktemp("seed") / "warehouse.duckdb"
    return path, seed(path, show_progress=False)


def test_seeding_is_fast_and_idempotent(seeded_once) -> None:
    path, report = seeded_once
    assert report.seconds < 20
    assert is_seeded(path)
    first = Warehouse(path).coverage()
    again = seed(path, show_progress=False)
    assert again.rows == report.rows
    pd.testing.assert_frame_equal(Warehouse(path).coverage(), first)
    assert not list(path.parent.glob("*.seeding-*"))


def test_interrupted_seed_is_never_used(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "warehouse.duckdb"
    real = BundledProvider.datasets

    def interrupted(self) -> list:
        datasets = real(self)

        def stop() -> pd.DataFrame:
            raise KeyboardInterrupt

        return [*datasets[:3], bundled.Dataset("boom", "arch", "series", stop)]

    monkeypatch.setattr(BundledProvider, "datasets", interrupted)
    with pytest.raises(KeyboardInterrupt):
        seed(path, show_progress=False)
    assert not path.exists()
    assert not list(tmp_path.glob("*.seeding-*"))
    assert not is_seeded(path)
    monkeypatch.setattr(BundledProvider, "datasets", real)
    seed(path, show_progress=False)
    assert is_seeded(path)


def test_leftovers_of_a_killed_seed_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "warehouse.duckdb"
    dead = 2**22 + 12345  # above the default pid_max, so no such process
    leftover = tmp_path / f"warehouse.duckdb.seeding-{dead}"
    leftover.write_bytes(b"half a database")
    seed(path, show_progress=False)
    assert not leftover.exists() and is_seeded(path)


def test_a_changed_bundle_reseeds_and_keeps_your_data(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "warehouse.duckdb"
    seed(path, show_progress=False)
    warehouse = Warehouse(path)
    mine = pd.DataFrame(
        {"id": "MINE", "date": pd.date_range("2024-01-01", periods=3), "value": 1.5}
    )
    warehouse.write_series(mine, "import:mine.csv", priority=100)
    with warehouse.transaction() as connection:
        connection.execute("CREATE TABLE notes AS SELECT 42 AS answer")
    warehouse.close()
    monkeypatch.setattr(seeding, "SCHEMA_VERSION", "next")
    assert not is_seeded(path)
    seed(path, show_progress=False)
    assert is_seeded(path)
    reopened = Warehouse(path)
    assert list(reopened.series(["MINE"])["value"]) == [1.5, 1.5, 1.5]
    assert reopened.query("SELECT answer FROM notes")["answer"].tolist() == [42]
    assert "import:mine.csv" in reopened.sources("MINE")
    assert len(reopened.prices(["AAPL"])) > 8000


def test_get_warehouse_seeds_once(data) -> None:
    from datapilot.data import get_warehouse
    from datapilot.settings import get_settings

    path = get_settings().warehouse_path
    before = os.stat(path).st_mtime_ns
    assert get_warehouse() is data.warehouse
    assert os.stat(path).st_mtime_ns == before
