"""Yahoo Finance through `yfinance` (extra `datapilot[live]`): prices, fundamentals, profile, news.

yfinance talks to Yahoo with curl_cffi, so its calls are bounded with a deadline here rather
than through an httpx timeout, and every call is rate limited (Yahoo publishes no limit and
throttles bursts).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from types import ModuleType
from typing import Any, ClassVar

import pandas as pd

from datapilot.core.intent import EntityKind
from datapilot.data.catalog import Entity
from datapilot.data.providers.http import (
    ProviderError,
    RateLimiter,
    call_library,
    import_extra,
    refuse_if_offline,
)
from datapilot.data.providers.live import (
    FUNDAMENTAL_COLUMNS,
    NEWS_COLUMNS,
    PRICE_COLUMNS,
    CompanyProfile,
    Dataset,
    Download,
    LiveProvider,
    clip_window,
    require_rows,
    snapshot_rows,
    to_dates,
)

TICKER = re.compile(r"^\^?[A-Z0-9][A-Z0-9.\-=]{0,14}$")
QUOTE_KINDS: dict[str, EntityKind] = {
    "EQUITY": "stock",
    "ETF": "etf",
    "INDEX": "index",
    "MUTUALFUND": "fund",
    "FUTURE": "commodity",
}
# Yahoo's statement rows (pretty names) that other layers ask for by a stable field name.
STATEMENT_FIELDS: dict[str, str] = {
    "Total Revenue": "revenue",
    "Cost Of Revenue": "cost_of_revenue",
    "Gross Profit": "gross_profit",
    "Operating Income": "operating_income",
    "Net Income": "net_income",
    "Basic EPS": "eps_basic",
    "Diluted EPS": "eps_diluted",
    "EBITDA": "ebitda",
    "Total Assets": "total_assets",
    "Total Liabilities Net Minority Interest": "total_liabilities",
    "Stockholders Equity": "equity",
    "Cash And Cash Equivalents": "cash",
    "Current Assets": "current_assets",
    "Current Liabilities": "current_liabilities",
    "Total Debt": "total_debt",
    "Operating Cash Flow": "operating_cash_flow",
    "Capital Expenditure": "capex",
    "Free Cash Flow": "free_cash_flow",
    "Cash Dividends Paid": "dividends_paid",
}
# `Ticker.info` keys → (field, unit, scale). Yahoo reports ROE and margins as fractions.
INFO_RATIOS: dict[str, tuple[str, str, float]] = {
    "trailingPE": ("pe", "ratio", 1.0),
    "forwardPE": ("forward_pe", "ratio", 1.0),
    "priceToBook": ("pb", "ratio", 1.0),
    "priceToSalesTrailing12Months": ("ps", "ratio", 1.0),
    "returnOnEquity": ("roe", "%", 100.0),
    "returnOnAssets": ("roa", "%", 100.0),
    "profitMargins": ("net_margin", "%", 100.0),
    "grossMargins": ("gross_margin", "%", 100.0),
    "operatingMargins": ("operating_margin", "%", 100.0),
    "debtToEquity": ("debt_to_equity_pct", "%", 1.0),
    "marketCap": ("market_cap", "currency", 1.0),
    "trailingEps": ("eps_ttm", "currency", 1.0),
    "beta": ("beta", "ratio", 1.0),
}


def load_yfinance() -> ModuleType:
    """Import yfinance on first use; say which extra to install when it is missing."""
    return import_extra("yahoo", "yfinance", "live")


def to_yahoo_symbol(entity_id: str) -> str:
    """Datapilot ids → Yahoo symbols (Shanghai `.SH` is `.SS` on Yahoo)."""
    return re.sub(r"\.SH$", ".SS", entity_id)


def from_yahoo_symbol(symbol: str, kind: EntityKind = "stock") -> str:
    """Yahoo symbols → Datapilot ids: Shanghai stocks are `.SH`; indices keep Yahoo's `.SS`."""
    symbol = symbol.upper()
    return symbol if kind == "index" else re.sub(r"\.SS$", ".SH", symbol)


def parse_history(history: pd.DataFrame, entity_id: str) -> pd.DataFrame:
    """`Ticker.history(auto_adjust=False)` (Open … Adj Close, Volume; tz-aware index) → tidy."""
    if history is None or history.empty:
        return pd.DataFrame(columns=PRICE_COLUMNS)
    frame = pd.DataFrame(
        {
            "id": entity_id,
            "date": to_dates(history.index).to_numpy(),
            "open": pd.to_numeric(history.get("Open"), errors="coerce").to_numpy(),
            "high": pd.to_numeric(history.get("High"), errors="coerce").to_numpy(),
            "low": pd.to_numeric(history.get("Low"), errors="coerce").to_numpy(),
            "close": pd.to_numeric(history["Close"], errors="coerce").to_numpy(),
            "adj_close": pd.to_numeric(
                history.get("Adj Close", history["Close"]), errors="coerce"
            ).to_numpy(),
            "volume": pd.to_numeric(history.get("Volume"), errors="coerce").to_numpy(),
        }
    )
    frame = frame.dropna(subset=["date", "close"])
    return frame.drop_duplicates("date", keep="last").sort_values("date").reset_index(drop=True)


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def parse_statement(
    table: pd.DataFrame | None, entity_id: str, statement: str, period: str, currency: str
) -> pd.DataFrame:
    """A yfinance statement (rows = line items, columns = period ends) → long rows."""
    if table is None or table.empty:
        return pd.DataFrame(columns=FUNDAMENTAL_COLUMNS)
    long = table.rename_axis(index="label", columns="period_end").stack().rename("value")
    long = long.reset_index()
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset=["value"])
    labels = long["label"].astype(str)
    long["field"] = [STATEMENT_FIELDS.get(label, _snake(label)) for label in labels]
    long["period_end"] = to_dates(long["period_end"]).to_numpy()
    long["id"] = entity_id
    long["period"] = period
    long["statement"] = statement
    long["unit"] = [
        f"{currency}/share" if field.startswith("eps") else currency for field in long["field"]
    ]
    return long.drop_duplicates(["period_end", "field"])[FUNDAMENTAL_COLUMNS]


def parse_info_ratios(info: dict[str, Any], entity_id: str, as_of: date) -> pd.DataFrame:
    """Current valuation and profitability ratios from `Ticker.info`, dated `as_of`."""
    currency = str(info.get("currency") or "USD")
    figures = []
    for key, (field, unit, scale) in INFO_RATIOS.items():
        value = info.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            figures.append((field, float(value) * scale, currency if unit == "currency" else unit))
    return snapshot_rows(entity_id, as_of, figures)


def parse_profile(info: dict[str, Any], entity_id: str) -> CompanyProfile:
    employees = info.get("fullTimeEmployees")
    return CompanyProfile(
        id=entity_id,
        name=str(info.get("longName") or info.get("shortName") or entity_id),
        sector=info.get("sector"),
        industry=info.get("industry"),
        country=info.get("country"),
        currency=info.get("currency"),
        exchange=info.get("fullExchangeName") or info.get("exchange"),
        website=info.get("website"),
        employees=int(employees) if isinstance(employees, int | float) else None,
        summary=info.get("longBusinessSummary"),
    )


def parse_news(items: list[dict[str, Any]], entity_id: str) -> pd.DataFrame:
    """`Ticker.news` in either shape yfinance has returned (flat, or nested under `content`)."""
    rows = []
    for item in items or []:
        content = item.get("content")
        if isinstance(content, dict):
            url = (content.get("canonicalUrl") or content.get("clickThroughUrl") or {}).get("url")
            published = pd.to_datetime(content.get("pubDate"), errors="coerce", utc=True)
            title, summary = content.get("title"), content.get("summary")
            publisher = (content.get("provider") or {}).get("displayName")
        else:
            url, title, summary = item.get("link"), item.get("title"), item.get("summary")
            stamp = item.get("providerPublishTime")
            published = pd.to_datetime(stamp, unit="s", utc=True) if stamp else pd.NaT
            publisher = item.get("publisher")
        if title:
            rows.append(
                {
                    "id": entity_id,
                    "published": published,
                    "title": str(title),
                    "summary": summary or "",
                    "url": url or "",
                    "publisher": publisher or "",
                }
            )
    frame = pd.DataFrame(rows, columns=NEWS_COLUMNS)
    frame["published"] = pd.to_datetime(frame["published"], utc=True).dt.tz_localize(None)
    return frame


def entity_from_quote(quote: dict[str, Any]) -> Entity | None:
    """A search hit (`Search(...).quotes` item) as an entity, or None for unsupported types."""
    kind = QUOTE_KINDS.get(str(quote.get("quoteType", "")).upper())
    symbol = quote.get("symbol")
    if kind is None or not symbol:
        return None
    name = quote.get("longname") or quote.get("shortname") or symbol
    aliases = [alias for alias in {quote.get("shortname"), quote.get("longname")} if alias]
    return Entity(
        id=from_yahoo_symbol(symbol, kind), kind=kind, name=name, aliases=aliases, source="yahoo"
    )


class YahooProvider(LiveProvider):
    name: ClassVar[str] = "yahoo"
    title: ClassVar[str] = "Yahoo Finance"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset(
        {"stock", "etf", "index", "fund", "commodity"}
    )
    datasets: ClassVar[frozenset[Dataset]] = frozenset(
        {"prices", "fundamentals", "profile", "news"}
    )

    def __init__(self, timeout: float = 30.0, rate: RateLimiter | None = None) -> None:
        self.timeout = timeout
        self.rate = rate or RateLimiter(2, 1.0)

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        if kind is not None and kind not in self.kinds:
            return False
        return bool(TICKER.match(entity_id)) and not entity_id.endswith(".OF")

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        ticker = self._call(lambda yf: yf.Ticker(to_yahoo_symbol(entity_id)), "open ticker")
        if dataset == "prices":
            prices = self._prices(ticker, entity_id, start, end)
            # history() fills history_metadata with name and instrument type at no extra request.
            meta = self._call(lambda _: ticker.history_metadata or {}, f"{entity_id} metadata")
            entity = self._entity(entity_id, {**meta, "quoteType": meta.get("instrumentType")})
            return Download(entity=entity, prices=prices)
        info: dict[str, Any] = self._call(lambda _: ticker.info or {}, f"{entity_id} profile")
        entity = self._entity(entity_id, info)
        if dataset == "profile":
            return Download(entity=entity, profile=parse_profile(info, entity_id))
        if dataset == "fundamentals":
            return Download(entity=entity, fundamentals=self._fundamentals(ticker, entity_id, info))
        if dataset == "news":
            items = self._call(lambda _: ticker.news, f"{entity_id} news")
            news = require_rows(parse_news(items, entity_id), self.name, entity_id, "news")
            return Download(entity=entity, news=news)
        raise ProviderError(f"yahoo: does not serve {dataset}")

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        result = self._call(
            lambda yf: yf.Search(text, max_results=limit, news_count=0, lists_count=0),
            f"search {text!r}",
        )
        found = (entity_from_quote(quote) for quote in result.quotes)
        return [entity for entity in found if entity is not None][:limit]

    def _call(self, func: Any, what: str) -> Any:
        refuse_if_offline(self.name)
        yf = load_yfinance()
        return call_library(self.name, what, lambda: func(yf), rate=self.rate, timeout=self.timeout)

    def _prices(
        self, ticker: Any, entity_id: str, start: date | None, end: date | None
    ) -> pd.DataFrame:
        kwargs: dict[str, Any] = {"interval": "1d", "auto_adjust": False, "actions": False}
        if start is None:
            kwargs["period"] = "max"
        else:
            kwargs["start"] = start.isoformat()
            # Yahoo's `end` is exclusive.
            kwargs["end"] = ((end or datetime.now(UTC).date()) + timedelta(days=1)).isoformat()
        history = self._call(lambda _: ticker.history(**kwargs), f"{entity_id} prices")
        frame = clip_window(parse_history(history, entity_id), start, end)
        return require_rows(frame, self.name, entity_id, "prices")

    def _fundamentals(self, ticker: Any, entity_id: str, info: dict[str, Any]) -> pd.DataFrame:
        currency = str(info.get("financialCurrency") or info.get("currency") or "USD")
        sources = [
            ("income_stmt", "income", "annual"),
            ("quarterly_income_stmt", "income", "quarterly"),
            ("balance_sheet", "balance", "annual"),
            ("quarterly_balance_sheet", "balance", "quarterly"),
            ("cashflow", "cashflow", "annual"),
            ("quarterly_cashflow", "cashflow", "quarterly"),
        ]
        parts = [parse_info_ratios(info, entity_id, datetime.now(UTC).date())]
        for attribute, statement, period in sources:
            what = f"{entity_id} {attribute}"
            table = self._call(lambda _, a=attribute: getattr(ticker, a), what)
            parts.append(parse_statement(table, entity_id, statement, period, currency))
        parts = [part for part in parts if not part.empty]
        if not parts:
            raise ProviderError(f"yahoo: no fundamentals for {entity_id}")
        return pd.concat(parts, ignore_index=True)

    def _entity(self, entity_id: str, info: dict[str, Any]) -> Entity:
        kind = QUOTE_KINDS.get(str(info.get("quoteType", "")).upper(), "stock")
        name = str(info.get("longName") or info.get("shortName") or entity_id)
        aliases = [a for a in {info.get("shortName"), info.get("longName")} if a and a != name]
        return Entity(
            id=entity_id,
            kind=kind,
            name=name,
            aliases=aliases,
            units=str(info.get("currency") or ""),
            source=self.name,
        )
