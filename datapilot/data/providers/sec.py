"""SEC EDGAR: reported fundamentals of US-listed companies from XBRL `companyfacts`.

SEC asks every client to send a User-Agent naming who is calling (`DATAPILOT_SEC_USER_AGENT`,
e.g. "Jane Doe jane@example.com") and to stay under 10 requests a second.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar

import pandas as pd

from datapilot.core.intent import EntityKind
from datapilot.data.catalog import Entity
from datapilot.data.providers.http import HttpClient, ProviderError, RateLimiter
from datapilot.data.providers.live import FUNDAMENTAL_COLUMNS, Dataset, Download, LiveProvider
from datapilot.data.providers.matching import rank_entities

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
FACTS_URL = "https://data.sec.gov/api/xbrl/companyfacts/CIK{cik:010d}.json"
DEFAULT_USER_AGENT = "Datapilot (set DATAPILOT_SEC_USER_AGENT to 'Your Name you@example.com')"


@dataclass(frozen=True)
class Concept:
    """A field and the us-gaap tags that report it, preferred first."""

    field: str
    statement: str
    tags: tuple[str, ...]
    unit: str = "USD"
    instant: bool = False


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        "revenue",
        "income",
        (
            "Revenues",
            "RevenueFromContractWithCustomerExcludingAssessedTax",
            "SalesRevenueNet",
            "RevenueFromContractWithCustomerIncludingAssessedTax",
        ),
    ),
    Concept("cost_of_revenue", "income", ("CostOfRevenue", "CostOfGoodsAndServicesSold")),
    Concept("gross_profit", "income", ("GrossProfit",)),
    Concept("operating_income", "income", ("OperatingIncomeLoss",)),
    Concept("net_income", "income", ("NetIncomeLoss",)),
    Concept("eps_basic", "income", ("EarningsPerShareBasic",), unit="USD/shares"),
    Concept("eps_diluted", "income", ("EarningsPerShareDiluted",), unit="USD/shares"),
    Concept("total_assets", "balance", ("Assets",), instant=True),
    Concept("total_liabilities", "balance", ("Liabilities",), instant=True),
    Concept(
        "equity",
        "balance",
        (
            "StockholdersEquity",
            "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
        ),
        instant=True,
    ),
    Concept("cash", "balance", ("CashAndCashEquivalentsAtCarryingValue",), instant=True),
    Concept("current_assets", "balance", ("AssetsCurrent",), instant=True),
    Concept("current_liabilities", "balance", ("LiabilitiesCurrent",), instant=True),
    Concept("operating_cash_flow", "cashflow", ("NetCashProvidedByUsedInOperatingActivities",)),
    Concept("capex", "cashflow", ("PaymentsToAcquirePropertyPlantAndEquipment",)),
    Concept(
        "dividends_paid", "cashflow", ("PaymentsOfDividends", "PaymentsOfDividendsCommonStock")
    ),
)

_ANNUAL_FORMS = {"10-K", "10-K/A", "20-F", "20-F/A", "40-F", "40-F/A"}
_QUARTER_FORMS = {"10-Q", "10-Q/A"}


def parse_company_tickers(payload: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """`company_tickers.json` (`{"0": {cik_str, ticker, title}, …}`) → ticker → (CIK, name)."""
    tickers: dict[str, tuple[int, str]] = {}
    for row in payload.values():
        ticker = str(row["ticker"]).upper()
        tickers.setdefault(ticker, (int(row["cik_str"]), str(row["title"])))
    return tickers


def _facts_frame(units: dict[str, list[dict[str, Any]]], unit: str) -> pd.DataFrame:
    rows = units.get(unit, [])
    frame = pd.DataFrame(rows, columns=["start", "end", "val", "fp", "form", "filed"])
    frame["end"] = pd.to_datetime(frame["end"], errors="coerce")
    frame["start"] = pd.to_datetime(frame["start"], errors="coerce")
    frame["filed"] = pd.to_datetime(frame["filed"], errors="coerce")
    return frame.dropna(subset=["end", "val"])


def _select(frame: pd.DataFrame, concept: Concept, period: str) -> pd.DataFrame:
    """Facts of one period kind, one value per period end (the latest filing wins)."""
    forms = _ANNUAL_FORMS if period == "annual" else _QUARTER_FORMS
    chosen = frame[frame["form"].isin(forms)]
    if concept.instant:
        if period == "annual":
            chosen = chosen[chosen["fp"] == "FY"]
    else:
        days = (chosen["end"] - chosen["start"]).dt.days
        low, high = (330, 400) if period == "annual" else (80, 100)
        chosen = chosen[(days >= low) & (days <= high)]
    chosen = chosen.sort_values("filed").drop_duplicates("end", keep="last")
    return chosen[["end", "val"]]


def parse_companyfacts(payload: dict[str, Any], entity_id: str) -> pd.DataFrame:
    """Annual (10-K) and quarterly (10-Q) values of `CONCEPTS`, plus derived ratios.

    Companies change tags over time (e.g. `SalesRevenueNet` → `RevenueFromContract…`), so for
    each period the first tag in preference order that reports it is used.
    """
    gaap = payload.get("facts", {}).get("us-gaap", {})
    parts: list[pd.DataFrame] = []
    for concept in CONCEPTS:
        for period in ("annual", "quarterly"):
            merged: dict[pd.Timestamp, float] = {}
            for tag in concept.tags:
                units = gaap.get(tag, {}).get("units", {})
                picked = _select(_facts_frame(units, concept.unit), concept, period)
                for end, value in zip(picked["end"], picked["val"], strict=True):
                    merged.setdefault(end, float(value))
            if merged:
                parts.append(
                    pd.DataFrame(
                        {
                            "id": entity_id,
                            "period_end": list(merged),
                            "period": period,
                            "statement": concept.statement,
                            "field": concept.field,
                            "value": list(merged.values()),
                            "unit": concept.unit,
                        }
                    )
                )
    if not parts:
        raise ProviderError(f"sec: no US-GAAP financial statements reported for {entity_id}")
    facts = pd.concat(parts, ignore_index=True)
    facts = pd.concat([facts, derive_ratios(facts)], ignore_index=True)
    return facts.sort_values(["period", "period_end", "statement", "field"]).reset_index(drop=True)


def derive_ratios(facts: pd.DataFrame) -> pd.DataFrame:
    """Margins, ROE, ROA, leverage and free cash flow from reported values of the same period."""
    wide = facts.pivot_table(
        index=["id", "period", "period_end"], columns="field", values="value", aggfunc="first"
    )

    def column(name: str) -> pd.Series:
        return wide[name] if name in wide else pd.Series(float("nan"), index=wide.index)

    revenue, equity = column("revenue"), column("equity")
    ratios = {
        "gross_margin": (column("gross_profit") / revenue * 100, "%"),
        "operating_margin": (column("operating_income") / revenue * 100, "%"),
        "net_margin": (column("net_income") / revenue * 100, "%"),
        "roe": (column("net_income") / equity * 100, "%"),
        "roa": (column("net_income") / column("total_assets") * 100, "%"),
        "debt_to_equity": (column("total_liabilities") / equity, "ratio"),
        "current_ratio": (column("current_assets") / column("current_liabilities"), "ratio"),
        "free_cash_flow": (column("operating_cash_flow") - column("capex"), "USD"),
    }
    parts = []
    for field, (values, unit) in ratios.items():
        values = values.dropna()
        if field in {"roe", "roa"}:
            # Quarterly income over a point-in-time balance is not an annual return.
            values = values[values.index.get_level_values("period") == "annual"]
        if values.empty:
            continue
        part = values.rename("value").reset_index()
        part["statement"] = "cashflow" if field == "free_cash_flow" else "ratios"
        part["field"] = field
        part["unit"] = unit
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=FUNDAMENTAL_COLUMNS)
    return pd.concat(parts, ignore_index=True)[FUNDAMENTAL_COLUMNS]


class SecProvider(LiveProvider):
    name: ClassVar[str] = "sec"
    title: ClassVar[str] = "SEC EDGAR"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"stock"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"fundamentals"})

    def __init__(self, user_agent: str | None = None, client: HttpClient | None = None) -> None:
        self.client = client or HttpClient(
            self.name,
            rate=RateLimiter(10, 1.0),
            timeout=30.0,
            headers={"User-Agent": user_agent or DEFAULT_USER_AGENT},
        )
        self._tickers: dict[str, tuple[int, str]] | None = None
        self._lock = threading.Lock()

    def tickers(self) -> dict[str, tuple[int, str]]:
        """Ticker → (CIK, company name), downloaded once per process."""
        with self._lock:
            if self._tickers is None:
                self._tickers = parse_company_tickers(self._get_json(TICKERS_URL))
            return self._tickers

    def cik(self, ticker: str) -> int:
        found = self.tickers().get(ticker.upper())
        if found is None:
            raise ProviderError(f"sec: {ticker} is not in SEC's ticker list (US listings only)")
        return found[0]

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        if kind is not None and kind != "stock":
            return False
        return entity_id.replace("-", "").replace(".", "").isalpha() and len(entity_id) <= 6

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        if dataset != "fundamentals":
            raise ProviderError(f"sec: serves fundamentals only, not {dataset}")
        cik = self.cik(entity_id)
        payload = self._get_json(FACTS_URL.format(cik=cik))
        facts = parse_companyfacts(payload, entity_id.upper())
        if start is not None:
            # Keep the latest period before the window too, so "the last report" is answerable.
            facts = facts[facts["period_end"] >= pd.Timestamp(start) - pd.DateOffset(years=1)]
        if end is not None:
            facts = facts[facts["period_end"] <= pd.Timestamp(end)]
        name = str(payload.get("entityName") or self.tickers()[entity_id.upper()][1])
        entity = Entity(id=entity_id.upper(), kind="stock", name=name, source=self.name)
        return Download(entity=entity, fundamentals=facts.reset_index(drop=True))

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        entities = (
            Entity(id=ticker, kind="stock", name=name, source=self.name)
            for ticker, (_, name) in self.tickers().items()
        )
        return rank_entities(text, entities, limit)

    def _get_json(self, url: str) -> Any:
        try:
            return self.client.get_json(url)
        except ProviderError as error:
            if error.status == 403:
                raise ProviderError(
                    "sec: SEC refused the request (HTTP 403); set DATAPILOT_SEC_USER_AGENT to "
                    "'Your Name you@example.com' as SEC requires",
                    status=403,
                ) from error
            if error.status == 404:
                raise ProviderError(
                    "sec: SEC has no XBRL financial data for this company", status=404
                ) from error
            raise
