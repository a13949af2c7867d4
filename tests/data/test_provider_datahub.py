"""The datahub provider served the real published files from `tests/fixtures/datahub` (respx)."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import httpx
import pandas as pd
import pytest
import respx
from support import paths

from datapilot.data.catalog import Catalog
from datapilot.data.providers.datahub import BASE_URL, FILES, DatahubProvider
from datapilot.data.providers.http import HttpClient, ProviderError, RateLimiter
from datapilot.data.providers.router import Router
from datapilot.data.warehouse import Warehouse

DATAHUB = paths.FIXTURES / "datahub"


def rows(name: str) -> list[dict[str, str]]:
    with (DATAHUB / f"{name}.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def served() -> respx.MockRouter:
    """Every datahub file at its `main` URL, as the repository publishes it."""
    with respx.mock(assert_all_called=False) as mock:
        for key, file in FILES.items():
            mock.get(file.url(BASE_URL)).mock(
                return_value=httpx.Response(200, text=(DATAHUB / f"{key}.csv").read_text("utf-8"))
            )
        yield mock


def provider() -> DatahubProvider:
    client = HttpClient("datahub", rate=RateLimiter(1000), backoff=0, offline=lambda: False)
    return DatahubProvider(client=client)


def test_sp500_since_1871_and_cape(served) -> None:
    hub = provider()
    level = hub.download("SP500_MONTHLY", "series", None, None).series
    raw = rows("sp500-monthly")
    assert level["date"].iloc[0] == pd.Timestamp("1871-01-01")
    assert level["value"].iloc[0] == float(raw[0]["SP500"])
    assert len(level) == sum(float(r["SP500"]) != 0 for r in raw)
    cape = hub.download("SP500_CAPE", "series", date(2000, 1, 1), date(2000, 12, 31)).series
    expected = [float(r["PE10"]) for r in raw if r["Date"].startswith("2000-")]
    assert cape["value"].tolist() == expected
    tail = hub.download("SP500_CAPE", "series", None, None).series
    assert (tail["value"] > 0).all()  # months padded with 0 are missing, not zero


def test_fred_ids_served_from_datahub_files(served) -> None:
    hub = provider()
    gs10 = hub.download("GS10", "series", None, None).series
    assert (gs10["date"].iloc[0], gs10["value"].iloc[0]) == (pd.Timestamp("1953-04-01"), 2.83)
    cpi = hub.download("CPIAUCNS", "series", date(2020, 1, 1), date(2020, 12, 31)).series
    expected = [float(r["Index"]) for r in rows("cpi-us-monthly") if r["Date"].startswith("2020-")]
    assert cpi["value"].tolist() == expected
    wti = hub.download("DCOILWTICO", "series", date(2020, 4, 20), date(2020, 4, 20)).series
    assert wti["value"].tolist() == [-36.98]  # the day WTI went negative


def test_vix_prices_and_world_gdp(served) -> None:
    hub = provider()
    vix = hub.download("^VIX", "prices", date(2020, 3, 16), date(2020, 3, 16)).prices
    raw = next(r for r in rows("vix-daily") if r["DATE"] == "2020-03-16")
    assert vix[["open", "high", "low", "close"]].iloc[0].tolist() == [
        float(raw[k]) for k in ("OPEN", "HIGH", "LOW", "CLOSE")
    ]
    gdp = hub.download("GDP.CHN", "series", date(2022, 1, 1), None)
    expected = {int(r["Year"]): float(r["Value"]) for r in rows("gdp-world-annual")
                if r["Country Code"] == "CHN" and int(r["Year"]) >= 2022}  # fmt: skip
    assert dict(zip(gdp.series["date"].dt.year, gdp.series["value"], strict=True)) == expected
    assert gdp.entity.name == "GDP of China (current USD)"
    assert gdp.entity.frequency == "annual"


def test_constituent_financials_as_snapshot_ratios(served) -> None:
    facts = provider().download("AAPL", "fundamentals", None, None).fundamentals
    raw = next(r for r in rows("sp500-financials") if r["Symbol"] == "AAPL")
    values = dict(zip(facts["field"], facts["value"], strict=True))
    assert values["pe"] == float(raw["Price/Earnings"])
    assert values["dividend_yield"] == pytest.approx(float(raw["Dividend Yield"]) * 100)
    assert values["market_cap"] == float(raw["Market Cap"])
    assert set(facts["period"]) == {"snapshot"}
    with pytest.raises(ProviderError, match="not in the S&P 500 financials file"):
        provider().download("ZZZZ", "fundamentals", None, None)


def test_search_constituents_indicators_and_countries(served) -> None:
    hub = provider()
    assert hub.search("Apple")[0].id == "AAPL"
    assert hub.search("Berkshire Hathaway")[0].id == "BRK-B"
    assert hub.search("Shiller PE")[0].id == "SP500_CAPE"
    assert hub.search("China GDP")[0].id == "GDP.CHN"


def test_each_file_is_downloaded_once(served) -> None:
    hub = provider()
    hub.download("SP500_MONTHLY", "series", None, None)
    hub.download("SP500_CAPE", "series", None, None)
    url = FILES["sp500-monthly"].url(BASE_URL)
    assert sum(1 for call in served.calls if str(call.request.url) == url) == 1


def test_falls_back_to_master_branch() -> None:
    file = FILES["us10y-monthly"]
    with respx.mock() as mock:
        mock.get(file.url(BASE_URL)).mock(return_value=httpx.Response(404))
        mock.get(file.url(BASE_URL, branch="master")).mock(
            return_value=httpx.Response(200, text="Date,Rate\n1953-04-01,2.83\n1953-05-01,3.05\n")
        )
        frame = provider().download("GS10", "series", None, None).series
    assert frame["value"].tolist() == [2.83, 3.05]


def test_fetched_into_the_warehouse_and_catalog(served, tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    catalog = Catalog([])
    report = Router([provider()], warehouse, catalog).ensure(["SP500_CAPE", "GDP.USA", "^VIX"])
    assert [i.status for i in report.items] == ["fetched"] * 3
    series = warehouse.series(["SP500_CAPE"], date(1929, 9, 1), date(1929, 9, 1))
    assert series["value"].tolist() == [
        float(r["PE10"]) for r in rows("sp500-monthly") if r["Date"] == "1929-09-01"
    ]
    assert catalog.get("GDP.USA").name == "GDP of United States (current USD)"
    assert catalog.get("^VIX").kind == "index"
