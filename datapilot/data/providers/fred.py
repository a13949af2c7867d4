"""FRED (Federal Reserve Bank of St. Louis): any series by id.

Without a key it reads the public `fredgraph.csv` download; with `FRED_API_KEY` it uses the
FRED API (`series/observations`, `series`, `series/search`), which also enables live search.
"""

from __future__ import annotations

import io
import re
from datetime import date
from typing import Any, ClassVar

import pandas as pd

from datapilot.core.intent import EntityKind
from datapilot.data.catalog import Entity
from datapilot.data.providers.fred_series import FRED_SERIES
from datapilot.data.providers.http import HttpClient, ProviderError, RateLimiter
from datapilot.data.providers.live import (
    SERIES_COLUMNS,
    Dataset,
    Download,
    LiveProvider,
    clip_window,
    infer_frequency,
    require_rows,
    to_dates,
)
from datapilot.data.providers.matching import rank_entities

GRAPH_URL = "https://fred.stlouisfed.org/graph/fredgraph.csv"
API_URL = "https://api.stlouisfed.org/fred"
SERIES_ID = re.compile(r"^[A-Z0-9][A-Z0-9_]{1,29}$")
_FREQUENCIES = {"d": "daily", "w": "weekly", "bw": "weekly", "m": "monthly", "q": "quarterly"}


def parse_fredgraph_csv(text: str, series_id: str) -> pd.DataFrame:
    """`observation_date,ID` (older files: `DATE,ID`) rows; `.` or blank values become NaN."""
    if not text.lstrip().lower().startswith(("observation_date", "date")):
        raise ProviderError(f"fred: FRED has no series {series_id!r} (unexpected response)")
    raw = pd.read_csv(io.StringIO(text), na_values=["."], dtype=str)
    if raw.shape[1] < 2:
        raise ProviderError(f"fred: the download for {series_id} has no value column")
    frame = pd.DataFrame(
        {
            "id": series_id,
            "date": to_dates(raw.iloc[:, 0]),
            "value": pd.to_numeric(raw.iloc[:, 1], errors="coerce"),
        }
    )
    return frame.dropna(subset=["date"]).reset_index(drop=True)[SERIES_COLUMNS]


def parse_observations(payload: dict[str, Any], series_id: str) -> pd.DataFrame:
    """The FRED API `series/observations` JSON (`observations: [{date, value}]`); `.` → NaN."""
    observations = payload.get("observations")
    if observations is None:
        message = payload.get("error_message", "no observations in the response")
        raise ProviderError(f"fred: {series_id}: {message}")
    raw = pd.DataFrame(observations, columns=["date", "value"])
    frame = pd.DataFrame(
        {
            "id": series_id,
            "date": to_dates(raw["date"]),
            "value": pd.to_numeric(raw["value"], errors="coerce"),
        }
    )
    return frame.dropna(subset=["date"]).reset_index(drop=True)[SERIES_COLUMNS]


def entity_from_series_meta(meta: dict[str, Any]) -> Entity:
    """An entity from one item of the API's `seriess` list."""
    frequency = _FREQUENCIES.get(str(meta.get("frequency_short", "")).lower(), "annual")
    first, last = meta.get("observation_start"), meta.get("observation_end")
    return Entity(
        id=meta["id"],
        kind="macro",
        name=meta.get("title", meta["id"]),
        frequency=frequency,  # type: ignore[arg-type]
        units=meta.get("units_short") or meta.get("units", ""),
        source="fred",
        first=date.fromisoformat(first) if first else None,
        last=date.fromisoformat(last) if last else None,
    )


class FredProvider(LiveProvider):
    name: ClassVar[str] = "fred"
    title: ClassVar[str] = "FRED (St. Louis Fed)"
    kinds: ClassVar[frozenset[EntityKind]] = frozenset({"macro", "commodity"})
    datasets: ClassVar[frozenset[Dataset]] = frozenset({"series"})

    def __init__(self, api_key: str | None = None, client: HttpClient | None = None) -> None:
        self.api_key = api_key or None
        # FRED's API allows 120 requests a minute; the graph download has no published limit.
        self.client = client or HttpClient(self.name, rate=RateLimiter(2, 1.0), timeout=30.0)

    def claims(self, entity_id: str, kind: EntityKind | None = None) -> bool:
        if entity_id in FRED_SERIES:
            return True
        # An id of unknown kind may be any FRED series; the router tries it after price sources.
        return (kind is None or kind in self.kinds) and bool(SERIES_ID.match(entity_id))

    def download(
        self, entity_id: str, dataset: Dataset, start: date | None, end: date | None
    ) -> Download:
        if dataset != "series":
            raise ProviderError(f"fred: serves series only, not {dataset}")
        try:
            if self.api_key:
                frame = self._observations(entity_id, start, end)
            else:
                frame = self._graph_csv(entity_id, start, end)
        except ProviderError as error:
            if error.status in {400, 404}:
                raise ProviderError(
                    f"fred: FRED has no series {entity_id!r}; search with "
                    "`datapilot data search NAME`",
                    status=error.status,
                ) from error
            raise
        entity = self._entity(entity_id, frame)  # frequency from every date, missing values too
        frame = clip_window(frame.dropna(subset=["value"]), start, end)
        frame = require_rows(frame, self.name, entity_id, "observations")
        return Download(entity=entity, series=frame)

    def search(self, text: str, limit: int = 10) -> list[Entity]:
        found = rank_entities(text, FRED_SERIES.values(), limit)
        if self.api_key and len(found) < limit:
            payload = self.client.get_json(
                f"{API_URL}/series/search",
                {
                    "search_text": text,
                    "api_key": self.api_key,
                    "file_type": "json",
                    "order_by": "popularity",
                    "limit": limit,
                },
            )
            known = {entity.id for entity in found}
            for meta in payload.get("seriess", []):
                if meta.get("id") not in known:
                    found.append(entity_from_series_meta(meta))
        return found[:limit]

    def _graph_csv(self, series_id: str, start: date | None, end: date | None) -> pd.DataFrame:
        params: dict[str, str] = {"id": series_id}
        if start:
            params["cosd"] = start.isoformat()
        if end:
            params["coed"] = end.isoformat()
        return parse_fredgraph_csv(self.client.get_text(GRAPH_URL, params), series_id)

    def _observations(self, series_id: str, start: date | None, end: date | None) -> pd.DataFrame:
        params: dict[str, str] = {
            "series_id": series_id,
            "api_key": self.api_key or "",
            "file_type": "json",
        }
        if start:
            params["observation_start"] = start.isoformat()
        if end:
            params["observation_end"] = end.isoformat()
        payload = self.client.get_json(f"{API_URL}/series/observations", params)
        return parse_observations(payload, series_id)

    def _entity(self, series_id: str, frame: pd.DataFrame) -> Entity:
        known = FRED_SERIES.get(series_id)
        if known is None and self.api_key:
            payload = self.client.get_json(
                f"{API_URL}/series",
                {"series_id": series_id, "api_key": self.api_key, "file_type": "json"},
            )
            metas = payload.get("seriess") or []
            known = entity_from_series_meta(metas[0]) if metas else None
        entity = known or Entity(
            id=series_id,
            kind="macro",
            name=series_id,
            frequency=infer_frequency(frame["date"]),
            source="fred",
        )
        return entity
