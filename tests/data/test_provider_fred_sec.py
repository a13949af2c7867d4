"""FRED and SEC EDGAR against recorded responses (respx; no network)."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path

import httpx
import pandas as pd
import pytest
import respx
from support import paths

from datapilot.data.providers.fred import API_URL, GRAPH_URL, FredProvider
from datapilot.data.providers.http import HttpClient, ProviderError, RateLimiter
from datapilot.data.providers.sec import (
    FACTS_URL,
    TICKERS_URL,
    SecProvider,
    parse_companyfacts,
)

RECORDINGS = paths.RECORDINGS


def client(name: str) -> HttpClient:
    return HttpClient(name, rate=RateLimiter(1000), backoff=0, offline=lambda: False)


def recorded(path: str) -> str:
    return (RECORDINGS / path).read_text(encoding="utf-8")


# --- FRED -------------------------------------------------------------------------------------


def test_fred_without_key_reads_fredgraph_csv_within_the_window() -> None:
    provider = FredProvider(client=client("fred"))
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(GRAPH_URL).mock(
            return_value=httpx.Response(200, text=recorded("fred/fredgraph_UNRATE.csv"))
        )
        download = provider.download("UNRATE", "series", date(2020, 1, 1), date(2020, 6, 30))
        params = dict(route.calls.last.request.url.params)
    assert params == {"id": "UNRATE", "cosd": "2020-01-01", "coed": "2020-06-30"}
    rows = list(csv.DictReader(recorded("fred/fredgraph_UNRATE.csv").splitlines()))
    expected = [
        float(r["UNRATE"]) for r in rows if "2020-01-01" <= r["observation_date"] <= "2020-06-30"
    ]
    frame = download.series
    assert list(frame.columns) == ["id", "date", "value"]
    assert frame["value"].tolist() == expected
    assert frame["value"].max() == 14.8  # April 2020
    assert frame["date"].iloc[0] == pd.Timestamp("2020-01-01")
    assert download.entity.name == "US Unemployment Rate"
    assert download.entity.units == "%"


def test_fred_missing_values_are_dropped_and_unknown_ids_get_an_inferred_frequency() -> None:
    text = "observation_date,MYSERIES\n2024-01-01,1.5\n2024-02-01,.\n2024-03-01,\n2024-04-01,2.0\n"
    text += "2024-05-01,2.5\n"
    provider = FredProvider(client=client("fred"))
    with respx.mock(assert_all_called=False) as mock:
        mock.get(GRAPH_URL).mock(return_value=httpx.Response(200, text=text))
        download = provider.download("MYSERIES", "series", None, None)
    assert download.series["value"].tolist() == [1.5, 2.0, 2.5]
    assert download.entity.frequency == "monthly"
    assert download.entity.kind == "macro"


def test_fred_unknown_series_says_so() -> None:
    provider = FredProvider(client=client("fred"))
    with respx.mock(assert_all_called=False) as mock:
        mock.get(GRAPH_URL).mock(return_value=httpx.Response(404, text="<html>Not found</html>"))
        with pytest.raises(ProviderError, match="FRED has no series 'NOPE'"):
            provider.download("NOPE", "series", None, None)


def test_fred_with_key_uses_the_api_and_its_metadata() -> None:
    provider = FredProvider(api_key="k123", client=client("fred"))
    with respx.mock(assert_all_called=False) as mock:
        observations = mock.get(f"{API_URL}/series/observations").mock(
            return_value=httpx.Response(200, text=recorded("fred/observations_GDPC1.json"))
        )
        mock.get(f"{API_URL}/series").mock(
            return_value=httpx.Response(200, text=recorded("fred/series_GDPC1.json"))
        )
        download = provider.download("GDPC1", "series", date(2022, 1, 1), date(2023, 12, 31))
        params = dict(observations.calls.last.request.url.params)
    assert params["api_key"] == "k123"
    assert params["file_type"] == "json"
    assert params["observation_start"] == "2022-01-01"
    payload = json.loads(recorded("fred/observations_GDPC1.json"))
    expected = [float(o["value"]) for o in payload["observations"] if o["value"] != "."]
    assert download.series["value"].tolist() == expected  # the "." observation is dropped
    assert download.entity.frequency == "quarterly"


def test_fred_search_uses_the_builtin_map_in_english_and_chinese() -> None:
    provider = FredProvider(client=client("fred"))
    assert provider.search("core CPI")[0].id == "CPILFESL"
    assert provider.search("美国失业率")[0].id == "UNRATE"
    assert provider.search("10年期美债收益率")[0].id == "DGS10"
    assert provider.search("nonfarm payrolls")[0].id == "PAYEMS"
    assert provider.search("housing starts")[0].id == "HOUST"


def test_fred_search_with_key_adds_api_hits() -> None:
    provider = FredProvider(api_key="k", client=client("fred"))
    with respx.mock(assert_all_called=False) as mock:
        mock.get(f"{API_URL}/series/search").mock(
            return_value=httpx.Response(200, text=recorded("fred/search_copper.json"))
        )
        found = provider.search("copper price", limit=5)
    assert [e.id for e in found][:2] == ["PCOPPUSDM", "WPU102502"]
    assert found[0].frequency == "monthly"
    assert found[0].name == "Global price of Copper"


# --- SEC --------------------------------------------------------------------------------------


def sec_mock(mock: respx.MockRouter) -> None:
    mock.get(TICKERS_URL).mock(
        return_value=httpx.Response(200, text=recorded("sec/company_tickers.json"))
    )
    mock.get(FACTS_URL.format(cik=320193)).mock(
        return_value=httpx.Response(200, text=recorded("sec/CIK0000320193.json"))
    )


def value(frame: pd.DataFrame, field: str, period_end: str, period: str = "annual") -> float:
    rows = frame[
        (frame["field"] == field)
        & (frame["period_end"] == pd.Timestamp(period_end))
        & (frame["period"] == period)
    ]
    assert len(rows) == 1, (field, period_end, rows)
    return float(rows["value"].iloc[0])


def test_sec_fundamentals_by_ticker_through_the_cik_map() -> None:
    provider = SecProvider(user_agent="Jane Doe jane@example.com", client=client("sec"))
    with respx.mock(assert_all_called=False) as mock:
        sec_mock(mock)
        download = provider.download("AAPL", "fundamentals", None, None)
    facts = download.fundamentals
    assert download.entity.name == "Apple Inc."
    # Revenue follows the tag switch: SalesRevenueNet (FY2017) then RevenueFromContract… (FY2023).
    assert value(facts, "revenue", "2017-09-30") == 229_234_000_000
    assert value(facts, "revenue", "2023-09-30") == 383_285_000_000
    # Quarterly facts come from 10-Q three-month durations only (not the nine-month figure).
    assert value(facts, "net_income", "2023-07-01", "quarterly") == 19_881_000_000
    # Derived ratios checked against the recorded inputs.
    assert value(facts, "roe", "2023-09-30") == pytest.approx(96_995 / 62_146 * 100)
    assert value(facts, "net_margin", "2022-09-24") == pytest.approx(99_803 / 394_328 * 100)
    assert value(facts, "free_cash_flow", "2023-09-30") == 110_543_000_000 - 10_959_000_000
    assert value(facts, "debt_to_equity", "2023-09-30") == pytest.approx(290_437 / 62_146)
    assert set(facts["unit"][facts["field"] == "eps_diluted"]) == {"USD/shares"}


def test_sec_latest_filing_wins_for_a_restated_period() -> None:
    def fact(val: int, filed: str) -> dict:
        return {"start": "2022-01-01", "end": "2022-12-31", "val": val, "fy": 2023, "fp": "FY",
                "form": "10-K", "filed": filed}  # fmt: skip

    payload = {"facts": {"us-gaap": {"NetIncomeLoss": {"units": {"USD": [
        fact(100, "2023-02-01"), fact(90, "2024-02-01")
    ]}}}}}  # fmt: skip
    facts = parse_companyfacts(payload, "X")
    assert value(facts, "net_income", "2022-12-31") == 90


def test_sec_window_keeps_the_report_before_the_start() -> None:
    provider = SecProvider(client=client("sec"))
    with respx.mock(assert_all_called=False) as mock:
        sec_mock(mock)
        facts = provider.download("AAPL", "fundamentals", date(2023, 1, 1), None).fundamentals
    annual_ends = sorted(set(facts.loc[facts["period"] == "annual", "period_end"]))
    assert annual_ends == [pd.Timestamp("2022-09-24"), pd.Timestamp("2023-09-30")]


def test_sec_unknown_ticker_and_refusal_are_explained() -> None:
    provider = SecProvider(client=client("sec"))
    with respx.mock(assert_all_called=False) as mock:
        sec_mock(mock)
        with pytest.raises(ProviderError, match="not in SEC's ticker list"):
            provider.download("ZZZZ", "fundamentals", None, None)
    refused = SecProvider(client=client("sec"))
    with respx.mock(assert_all_called=False) as mock:
        mock.get(TICKERS_URL).mock(return_value=httpx.Response(403))
        with pytest.raises(ProviderError, match="DATAPILOT_SEC_USER_AGENT"):
            refused.download("AAPL", "fundamentals", None, None)


def test_sec_search_by_company_name() -> None:
    provider = SecProvider(client=client("sec"))
    with respx.mock(assert_all_called=False) as mock:
        sec_mock(mock)
        found = provider.search("microsoft")
        by_ticker = provider.search("TSLA")
    assert found[0].id == "MSFT"
    assert found[0].kind == "stock"
    assert by_ticker[0].name == "Tesla, Inc."


def test_any_fred_id_can_be_fetched_by_the_router(tmp_path: Path) -> None:
    from datapilot.data.catalog import Catalog
    from datapilot.data.providers.router import Router
    from datapilot.data.warehouse import Warehouse

    text = "observation_date,PCOPPUSDM\n2024-01-01,8340.5\n2024-02-01,8309.2\n2024-03-01,8678.4\n"
    warehouse, catalog = Warehouse(tmp_path / "w.duckdb"), Catalog([])
    router = Router([FredProvider(client=client("fred"))], warehouse, catalog)
    with respx.mock() as mock:
        mock.get(GRAPH_URL).mock(return_value=httpx.Response(200, text=text))
        report = router.ensure(["PCOPPUSDM"])
    assert [(i.dataset, i.status) for i in report.items] == [("series", "fetched")]
    assert warehouse.series(["PCOPPUSDM"])["value"].tolist() == [8340.5, 8309.2, 8678.4]
    assert catalog.get("PCOPPUSDM").kind == "macro"
