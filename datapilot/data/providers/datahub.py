"""Public-domain datasets of the datahub.io `datasets` organisation, read from their repositories.

S&P 500 monthly since 1871 (Shiller: price, dividends, earnings, CAPE), S&P 500 constituents
and their financials, US CPI since 1913, GDP of every country, the 10-year yield since 1953,
VIX, WTI and Brent. Each file is one CSV download, kept for the process and stored in the
warehouse, so the cache policy decides when it is downloaded again.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import ClassVar

import pandas as pd

from datapilot.core.intent import EntityKind, Frequency
from datapilot.data.catalog import Entity
from datapilot.data.providers.http import HttpClient, ProviderError, RateLimiter
from datapilot.data.providers.live import (
    FUNDAMENTAL_COLUMNS,
    PRICE_COLUMNS,
    SERIES_COLUMNS,
    Dataset,
    Download,
    LiveProvider,
    clip_window,
    require_rows,
    snapshot_rows,
    to_dates,
)
from datapilot.data.providers.matching import first_of_each_id, rank_entities

BASE_URL = "https://raw.githubusercontent.com/datasets"
GDP_ID = re.compile(r"^GDP\.([A-Z]{3})$")


@dataclass(frozen=True)
class DatahubFile:
    repo: str
    path: str

    def url(self, base: str = BASE_URL, branch: str = "main") -> str:
        return f"{base}/{self.repo}/{branch}/{self.path}"


FILES: dict[str, DatahubFile] = {
    "sp500-monthly": DatahubFile("s-and-p-500", "data/data.csv"),
    "sp500-daily": DatahubFile("s-and-p-500", "archive/fred_sp500.csv"),
    "sp500-constituents": DatahubFile("s-and-p-500-companies", "data/constituents.csv"),
    "sp500-financials": DatahubFile(
        "s-and-p-500-companies-financials", "data/constituents-financials.csv"
    ),
    "cpi-us-monthly": DatahubFile("cpi-us", "data/cpiai.csv"),
    "gdp-world-annual": DatahubFile("gdp", "data/gdp.csv"),
    "us10y-monthly": DatahubFile("bond-yields-us-10y", "data/monthly.csv"),
    "vix-daily": DatahubFile("finance-vix", "data/vix-daily.csv"),
    "wti-daily": DatahubFile("oil-prices", "data/wti-daily.csv"),
    "brent-daily": DatahubFile("oil-prices", "data/brent-daily.csv"),
}


@dataclass(frozen=True)
class DatahubSeries:
    """One column of one file, as an entity."""

    file: str
    column: str
    entity: Entity
    zero_is_missing: bool = False


def _entity(
    sid: str,
    name: str,
    kind: EntityKind,
    frequency: Frequency,
    units: str,
    aliases: list[str],
) -> Entity:
    return Entity(
        id=sid,
        kind=kind,
        name=name,
        aliases=aliases,
        frequency=frequency,
        units=units,
        source="datahub",
    )


# Series that are also FRED series keep the FRED id, so either provider can fill them.
SERIES: dict[str, DatahubSeries] = {
    s.entity.id: s
    for s in [
        DatahubSeries("sp500-monthly", "SP500", _entity(
            "SP500_MONTHLY", "S&P 500 monthly average level since 1871 (Shiller)", "macro",
            "monthly", "index points",
            ["S&P 500 since 1871", "long-run S&P 500", "Shiller S&P 500", "标普500长期"]),
            zero_is_missing=True),
        DatahubSeries("sp500-monthly", "PE10", _entity(
            "SP500_CAPE", "S&P 500 cyclically adjusted P/E (CAPE, Shiller PE10)", "macro",
            "monthly", "ratio",
            ["CAPE", "Shiller PE", "PE10", "cyclically adjusted PE", "席勒市盈率",
             "周期调整市盈率"]), zero_is_missing=True),
        DatahubSeries("sp500-monthly", "Dividend", _entity(
            "SP500_DIVIDEND", "S&P 500 dividends per share (Shiller, annualised)", "macro",
            "monthly", "index points", ["S&P 500 dividends", "标普500股息"]),
            zero_is_missing=True),
        DatahubSeries("sp500-monthly", "Earnings", _entity(
            "SP500_EARNINGS", "S&P 500 earnings per share (Shiller, annualised)", "macro",
            "monthly", "index points", ["S&P 500 earnings", "标普500盈利"]),
            zero_is_missing=True),
        DatahubSeries("sp500-monthly", "Real Price", _entity(
            "SP500_REAL", "S&P 500 real (inflation-adjusted) level (Shiller)", "macro",
            "monthly", "index points, real", ["real S&P 500", "标普500实际价格"]),
            zero_is_missing=True),
        DatahubSeries("sp500-daily", "SP500", _entity(
            "SP500", "S&P 500 index level (FRED daily series)", "macro", "daily",
            "index points", ["FRED SP500"])),
        DatahubSeries("cpi-us-monthly", "Index", _entity(
            "CPIAUCNS", "US Consumer Price Index (not seasonally adjusted)", "macro", "monthly",
            "index 1982-1984=100", ["CPI since 1913", "CPI NSA", "美国CPI未季调"])),
        DatahubSeries("us10y-monthly", "Rate", _entity(
            "GS10", "10-Year Treasury Yield (monthly)", "macro", "monthly", "%",
            ["monthly 10-year yield", "10年期美债收益率月度"])),
        DatahubSeries("wti-daily", "Price", _entity(
            "DCOILWTICO", "WTI Crude Oil Price", "commodity", "daily", "USD per barrel",
            ["WTI", "crude oil", "WTI原油"])),
        DatahubSeries("brent-daily", "Price", _entity(
            "DCOILBRENTEU", "Brent Crude Oil Price", "commodity", "daily", "USD per barrel",
            ["Brent", "Brent crude", "布伦特原油"])),
    ]
}  # fmt: skip

VIX = _entity("^VIX", "CBOE Volatility Index", "index", "daily", "index points", ["VIX"])
# sp500-financials columns → (field, unit, scale); Dividend Yield is a fraction there.
FINANCIAL_FIELDS: dict[str, tuple[str, str, float]] = {
    "Price": ("price", "USD", 1.0),
    "Price/Earnings": ("pe", "ratio", 1.0),
    "Dividend Yield": ("dividend_yield", "%", 100.0),
    "Earnings/Share": ("eps", "USD/share", 1.0),
    "52 Week Low": ("low_52w", "USD", 1.0),
    "52 Week High": ("high_52w", "USD", 1.0),
    "Market Cap": ("market_cap", "USD", 1.0),
    "EBITDA": ("ebitda", "USD", 1.0),
    "Price/Sales": ("ps", "ratio", 1.0),
    "Price/Book": ("pb", "ratio", 1.0),
}


def read_csv(text: str, name: str) -> pd.DataFrame:
    try:
        return pd.read_csv(io.StringIO(text))
    except (ValueError, pd.errors.ParserError) as error:
        raise ProviderError(f"datahub: {name} is not a readable CSV ({error})") from error


def parse_series(table: pd.DataFrame, spec: DatahubSeries) -> pd.DataFrame:
    """One value column against the file's first (date) column."""
    values = pd.to_numeric(table[spec.column], errors="coerce")
    if spec.zero_is_missing:
        # The Shiller file pads months not yet published with zeros.
        values = values.where(values != 0)
    dates = to_dates(table.iloc[:, 0])
    frame = pd.DataFrame({"id": spec.entity.id, "date": dates, "value": values})
    return frame.dropna(subset=["date", "value"]).reset_index(drop=True)[SERIES_COLUMNS]


def parse_vix(table: pd.DataFrame) -> pd.DataFrame:
    """`DATE,OPEN,HIGH,LOW,CLOSE` → tidy prices (VIX has no volume)."""
    columns = {column.lower(): column for column in table.columns}
    frame = pd.DataFrame({"id": "^VIX", "date": to_dates(table[columns["date"]])})
    for name in ("open", "high", "low", "close"):
        frame[name] = pd.to_numeric(table[columns[name]], errors="coerce")
    frame["adj_close"] = frame["close"]
    frame["volume"] = float("nan")
    return frame.dropna(subset=["date", "close"]).reset_index(drop=True)[PRICE_COLUMNS]


def parse_gdp(table: pd.DataFrame, country_code: str) -> pd.DataFrame:
    """`Country Name,Country Code,Year,Value` → one country's annual GDP (current USD)."""
    rows = table[table["Country Code"] == country_code]
    frame = pd.DataFrame(
        {
            "id": f"GDP.{country_code}",
            "date": pd.to_datetime(rows["Year"].astype(int).astype(str) + "-01-01").to_numpy(),
            "value": pd.to_numeric(rows["Value"], errors="coerce").to_numpy(),
        }
    )
    return frame.dropna().sort_values("date").reset_index(drop=True)


def gdp_entity(country_code: str, country_name: str) -> Entity:
    return _entity(
        f"GDP.{country_code}",
        f"GDP of {country_name} (current USD)",
        "macro",
        "annual",
        "USD",
        [f"{country_name} GDP", f"GDP of {country_name}"],
    )


def _tickers(table: pd.DataFrame) -> pd.Series:
    """The Symbol column in Datapilot's (Yahoo's) spelling: BRK.B → BRK-B."""
    return table["Symbol"].astype(str).str.upper().str.replace(".", "-", regex=False)


def parse_financials(table: pd.DataFrame, ticker: str, as_of: date) -> pd.DataFrame:
    """One company's row of `constituents-financials.csv` as dated snapshot ratios."""
    rows = table[_tickers(table) == ticker.upper()]
    if rows.empty:
        return pd.DataFrame(columns=FUNDAMENTAL_COLUMNS)
    row = rows.iloc[0]
    figures = []
    for column, (field, unit, scale) in FINANCIAL_FIELDS.items():
        value = pd.to_numeric(row.get(column), errors="coerce")
        if pd.notna(value):
            figures.append((field, float(value) * scale, unit))
    return snapshot_rows(ticker.upper(), as_of, figures)


def constituent_entities(table: pd.DataFrame) -> list[Entity]:
    """S&P 500 members (`Symbol,Security,GICS Sector,…`) as stock entities."""
    return [
        Entity(
            id=symbol,
            kind="stock",
            name=str(security),
            aliases=[str(security)],
            units="USD",
            source="datahub",
        )
        for symbol, security in zip(_tickers(table), table["Security"], strict=True)
    ]


class DatahubProvider(LiveProvider):
    name: ClassVar[str] = "datahub"
    title: ClassVar[str] = "datahub.io public datasets"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"macro", "commodity", "index", "stock"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"prices", "series", "fundamentals"})

    def __init__(self, client: HttpClient | None = None, base_url: str = BASE_URL) -> None:
        self.client = client or HttpClient(self.name, rate=RateLimiter(5, 1.0), timeout=60.0)
        self.base_url = base_url.rstrip("/")
        self._tables: dict[str, pd.DataFrame] = {}
        self._lock = threading.Lock()

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        if entity_id in SERIES or entity_id == "^VIX" or GDP_ID.match(entity_id):
            return True
        return kind == "stock"  # constituents' financials; tried after richer providers

    def serves(self, entity_id: str, dataset: Dataset, kind: EntityKind | None = None) -> bool:
        if entity_id in SERIES or GDP_ID.match(entity_id):
            return dataset == "series"
        if entity_id == "^VIX":
            return dataset == "prices"
        return dataset == "fundamentals" and kind == "stock"

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        if entity_id in SERIES and dataset == "series":
            spec = SERIES[entity_id]
            frame = parse_series(self.table(spec.file), spec)
            frame = require_rows(clip_window(frame, start, end), self.name, entity_id, "values")
            return Download(entity=spec.entity, series=frame)
        if entity_id == "^VIX" and dataset == "prices":
            frame = clip_window(parse_vix(self.table("vix-daily")), start, end)
            return Download(entity=VIX, prices=require_rows(frame, self.name, entity_id, "prices"))
        if (match := GDP_ID.match(entity_id)) and dataset == "series":
            table = self.table("gdp-world-annual")
            code = match.group(1)
            frame = require_rows(
                clip_window(parse_gdp(table, code), start, end), self.name, entity_id, "GDP values"
            )
            names = table.loc[table["Country Code"] == code, "Country Name"]
            return Download(entity=gdp_entity(code, str(names.iloc[0])), series=frame)
        if dataset == "fundamentals":
            table = self.table("sp500-financials")
            facts = parse_financials(table, entity_id, datetime.now(UTC).date())
            if facts.empty:
                raise ProviderError(f"datahub: {entity_id} is not in the S&P 500 financials file")
            name = table.loc[_tickers(table) == entity_id.upper(), "Name"].iloc[0]
            entity = Entity(id=entity_id.upper(), kind="stock", name=str(name), source=self.name)
            return Download(entity=entity, fundamentals=facts)
        raise ProviderError(f"datahub: no {dataset} for {entity_id}")

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        fixed = [*(spec.entity for spec in SERIES.values()), VIX]
        found = rank_entities(text, fixed, limit, cutoff=85)
        found += rank_entities(text, constituent_entities(self.table("sp500-constituents")), limit)
        gdp = self.table("gdp-world-annual")[["Country Code", "Country Name"]].drop_duplicates()
        countries = [gdp_entity(code, name) for code, name in gdp.itertuples(index=False)]
        if "gdp" in text.lower():
            found += rank_entities(text, countries, limit, cutoff=85)
        return first_of_each_id(found, limit)

    def table(self, key: str) -> pd.DataFrame:
        """One datahub file as a frame, downloaded once per process."""
        with self._lock:
            if key in self._tables:
                return self._tables[key]
        file = FILES[key]
        try:
            text = self.client.get_text(file.url(self.base_url))
        except ProviderError as error:
            if error.status != 404:
                raise
            # Some dataset repositories still publish from `master`.
            text = self.client.get_text(file.url(self.base_url, branch="master"))
        table = read_csv(text, key)
        with self._lock:
            self._tables[key] = table
        return table
