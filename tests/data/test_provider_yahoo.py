"""Yahoo Finance through a fake `yfinance` module injected at the provider's import hook."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from datapilot.data import fundamentals as fundamentals_module
from datapilot.data import news as news_module
from datapilot.data.catalog import Catalog
from datapilot.data.providers import yahoo
from datapilot.data.providers.http import MissingExtraError, OfflineError, RateLimiter
from datapilot.data.providers.router import Router
from datapilot.data.providers.yahoo import YahooProvider
from datapilot.data.warehouse import Warehouse


def history(start: str, periods: int) -> pd.DataFrame:
    """Yahoo-shaped daily bars: tz-aware index, Adj Close below Close (dividends)."""
    index = pd.bdate_range(start, periods=periods, tz="America/New_York", name="Date")
    close = 100 + np.arange(periods, dtype=float)
    return pd.DataFrame(
        {
            "Open": close - 0.5,
            "High": close + 1,
            "Low": close - 1,
            "Close": close,
            "Adj Close": close * 0.98,
            "Volume": np.full(periods, 1_000_000),
        },
        index=index,
    )


def statement(rows: dict[str, list[float]], ends: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, index=pd.to_datetime(ends)).T


INFO = {
    "quoteType": "EQUITY",
    "longName": "NVIDIA Corporation",
    "shortName": "NVIDIA Corp",
    "sector": "Technology",
    "industry": "Semiconductors",
    "country": "United States",
    "currency": "USD",
    "financialCurrency": "USD",
    "fullTimeEmployees": 29600,
    "trailingPE": 65.2,
    "returnOnEquity": 1.1518,
    "marketCap": 3_000_000_000_000,
    "profitMargins": 0.5585,
    "longBusinessSummary": "NVIDIA makes GPUs.",
}


class FakeTicker:
    instances: ClassVar[list[FakeTicker]] = []

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol
        self.history_calls: list[dict[str, Any]] = []
        self.history_metadata: dict[str, Any] = {}
        FakeTicker.instances.append(self)

    def history(self, **kwargs: Any) -> pd.DataFrame:
        self.history_calls.append(kwargs)
        if self.symbol == "NOPE":
            return pd.DataFrame()
        self.history_metadata = {"instrumentType": "EQUITY", "longName": "NVIDIA Corporation"}
        return history("2024-01-02", 30)

    @property
    def info(self) -> dict[str, Any]:
        return dict(INFO)

    income_stmt = statement(
        {"Total Revenue": [60_922e6, 26_974e6], "Net Income": [29_760e6, 4_368e6],
         "Diluted EPS": [1.19, 0.17]},
        ["2024-01-28", "2023-01-29"],
    )  # fmt: skip
    quarterly_income_stmt = statement({"Total Revenue": [26_044e6]}, ["2024-04-28"])
    balance_sheet = statement(
        {"Stockholders Equity": [42_978e6, 22_101e6]}, ["2024-01-28", "2023-01-29"]
    )
    quarterly_balance_sheet = pd.DataFrame()
    cashflow = statement({"Free Cash Flow": [26_947e6]}, ["2024-01-28"])
    quarterly_cashflow = pd.DataFrame()

    @property
    def news(self) -> list[dict[str, Any]]:
        return [
            {"id": "1", "content": {"title": "Nvidia beats estimates", "summary": "Revenue up.",
             "pubDate": "2024-05-22T20:30:00Z", "provider": {"displayName": "Reuters"},
             "canonicalUrl": {"url": "https://example.com/a"}}},
            {"uuid": "2", "title": "Old-format headline", "publisher": "Yahoo",
             "link": "https://example.com/b", "providerPublishTime": 1716400000},
        ]  # fmt: skip


class FakeSearch:
    def __init__(self, query: str, max_results: int = 8, **_: Any) -> None:
        self.quotes = [
            {"symbol": "NVDA", "shortname": "NVIDIA Corporation", "quoteType": "EQUITY"},
            {"symbol": "600519.SS", "shortname": "KWEICHOW MOUTAI", "quoteType": "EQUITY"},
            {"symbol": "000300.SS", "shortname": "CSI 300 Index", "quoteType": "INDEX"},
            {"symbol": "NVDA240621C00100000", "quoteType": "OPTION"},
        ][:max_results]


@pytest.fixture
def fake_yf(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    module = SimpleNamespace(Ticker=FakeTicker, Search=FakeSearch)
    FakeTicker.instances.clear()
    monkeypatch.setattr(yahoo, "load_yfinance", lambda: module)
    return module


def provider() -> YahooProvider:
    return YahooProvider(rate=RateLimiter(1000))


def test_prices_are_tidy_in_the_window_with_adjusted_close(fake_yf) -> None:
    download = provider().download("NVDA", "prices", date(2024, 1, 10), date(2024, 1, 31))
    frame = download.prices
    expected = history("2024-01-02", 30)
    expected.index = expected.index.tz_localize(None)
    expected = expected.loc["2024-01-10":"2024-01-31"]
    assert frame["date"].tolist() == list(expected.index)
    assert frame["close"].tolist() == expected["Close"].tolist()
    assert frame["adj_close"].tolist() == pytest.approx(expected["Adj Close"].tolist())
    call = FakeTicker.instances[-1].history_calls[-1]
    assert call["start"] == "2024-01-10" and call["end"] == "2024-02-01"  # Yahoo's end is exclusive
    assert call["auto_adjust"] is False
    assert download.entity.name == "NVIDIA Corporation" and download.entity.kind == "stock"


def test_shanghai_ids_map_to_yahoo_symbols(fake_yf) -> None:
    provider().download("600519.SH", "prices", None, None)
    assert FakeTicker.instances[-1].symbol == "600519.SS"
    assert FakeTicker.instances[-1].history_calls[-1]["period"] == "max"


def test_empty_history_is_a_clear_per_entity_error(fake_yf) -> None:
    with pytest.raises(yahoo.ProviderError, match="no prices for NOPE"):
        provider().download("NOPE", "prices", None, None)


def test_fundamentals_statements_and_ratios(fake_yf) -> None:
    facts = provider().download("NVDA", "fundamentals", None, None).fundamentals

    def one(field: str, period: str, end: str | None = None) -> float:
        rows = facts[(facts["field"] == field) & (facts["period"] == period)]
        if end:
            rows = rows[rows["period_end"] == pd.Timestamp(end)]
        assert len(rows) == 1
        return float(rows["value"].iloc[0])

    assert one("revenue", "annual", "2024-01-28") == 60_922e6
    assert one("revenue", "quarterly") == 26_044e6
    assert one("equity", "annual", "2023-01-29") == 22_101e6
    assert one("eps_diluted", "annual", "2024-01-28") == 1.19
    assert one("pe", "snapshot") == 65.2
    assert one("roe", "snapshot") == pytest.approx(115.18)  # Yahoo's fraction, in percent
    assert one("net_margin", "snapshot") == pytest.approx(55.85)
    assert set(facts.loc[facts["field"] == "eps_diluted", "unit"]) == {"USD/share"}


def test_profile_and_news_in_both_yfinance_shapes(fake_yf) -> None:
    profile = provider().download("NVDA", "profile", None, None).profile
    assert (profile.name, profile.sector, profile.employees) == (
        "NVIDIA Corporation", "Technology", 29600,
    )  # fmt: skip
    news = provider().download("NVDA", "news", None, None).news
    assert news["title"].tolist() == ["Nvidia beats estimates", "Old-format headline"]
    assert news["publisher"].tolist() == ["Reuters", "Yahoo"]
    assert news["published"].iloc[0] == pd.Timestamp("2024-05-22 20:30:00")
    assert news["published"].iloc[1] == pd.Timestamp(1716400000, unit="s")


def test_search_maps_quote_types_and_suffixes(fake_yf) -> None:
    found = provider().search("nvidia")
    assert [(e.id, e.kind) for e in found] == [
        ("NVDA", "stock"), ("600519.SH", "stock"), ("000300.SS", "index"),
    ]  # fmt: skip


def test_missing_yfinance_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry makes any import of the name fail, installed or not.
    monkeypatch.setitem(sys.modules, "yfinance", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'datapilot\[live\]'"):
        provider().download("NVDA", "prices", None, None)


def test_offline_refuses_before_calling_yfinance(fake_yf, monkeypatch) -> None:
    from datapilot.settings import get_settings

    monkeypatch.setattr(get_settings(), "offline", True)
    with pytest.raises(OfflineError):
        provider().download("NVDA", "prices", None, None)
    assert FakeTicker.instances == []


def test_fetched_fundamentals_and_news_are_queryable(fake_yf, tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    catalog = Catalog([])
    router = Router([provider()], warehouse, catalog)
    report = router.ensure(["NVDA"], datasets=["prices", "fundamentals", "news", "profile"])
    assert [i.status for i in report.items] == ["fetched"] * 4

    table = fundamentals_module.fundamentals_table(warehouse, "NVDA", ["revenue", "net_income"])
    assert table.loc["2024-01-28", "revenue"] == 60_922e6
    assert table.index.name == "date"
    assert table.attrs["sources"] == ["yahoo"]
    margin = table["net_income"] / table["revenue"] * 100
    assert margin.loc["2024-01-28"] == pytest.approx(29_760 / 60_922 * 100)
    latest = fundamentals_module.latest_values(warehouse, ["NVDA"], ["pe", "revenue"])
    assert dict(zip(latest["field"], latest["value"], strict=True))["pe"] == 65.2

    headlines = news_module.news(warehouse, ["NVDA"], limit=5)
    assert headlines["title"].iloc[0] == "Nvidia beats estimates"  # newest first
    assert fundamentals_module.profile(warehouse, "NVDA").industry == "Semiconductors"
    nvda = catalog.get("NVDA")
    assert nvda.name == "NVIDIA Corporation" and nvda.available

    # Refetching replaces rather than duplicates.
    router.store(provider().download("NVDA", "news", None, None), "yahoo", "news")
    assert len(news_module.news(warehouse, ["NVDA"])) == 2


def test_interfaces_read_what_live_providers_stored(fake_yf, tmp_path: Path) -> None:
    from datapilot.interfaces import reference
    from datapilot.interfaces.context import InterfaceContext

    warehouse, catalog = Warehouse(tmp_path / "w.duckdb"), Catalog([])
    Router([provider()], warehouse, catalog).ensure(["NVDA"], datasets=["fundamentals", "news"])
    ctx = InterfaceContext(warehouse=warehouse, catalog=catalog, today=date(2024, 6, 1))
    table = reference.get_fundamentals(ctx, "NVDA", ["revenue", "pe"])
    assert table["revenue"].dropna().tolist() == [26_974e6, 60_922e6]
    assert table["pe"].dropna().tolist() == [65.2]  # the snapshot row, dated when fetched
    headlines = reference.get_news(ctx, "NVDA", 1)
    assert headlines["title"].tolist() == ["Nvidia beats estimates"]
