"""News headlines in the warehouse, filled by live providers (Yahoo, akshare)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

import pandas as pd

from datapilot.data.cache import read_table, registered, utc_now
from datapilot.data.duckdb_engine import duckdb
from datapilot.data.providers.live import NEWS_COLUMNS

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS news (
    id VARCHAR NOT NULL, published TIMESTAMP, title VARCHAR NOT NULL, summary VARCHAR,
    url VARCHAR, publisher VARCHAR, source VARCHAR NOT NULL, fetched_at TIMESTAMP NOT NULL)
"""


def write_news_in(connection: duckdb.DuckDBPyConnection, frame: pd.DataFrame, source: str) -> int:
    """Store headlines `[id, published, title, summary, url, publisher]`; a headline already
    stored for the same entity (same title) is replaced, so refetching never duplicates."""
    missing = [c for c in ("id", "title") if c not in frame.columns]
    if missing:
        raise ValueError(f"news rows lack column(s) {missing}")
    rows = frame.reindex(columns=NEWS_COLUMNS).copy()
    rows["id"] = rows["id"].astype(str).str.upper()
    rows["published"] = pd.to_datetime(rows["published"], errors="coerce")
    for column in ("summary", "url", "publisher"):
        rows[column] = rows[column].fillna("").astype(str)
    rows = rows.dropna(subset=["title"]).drop_duplicates(["id", "title"], keep="last")
    connection.execute(_SCHEMA)
    if rows.empty:
        return 0
    with registered(connection, "incoming_news", rows):
        connection.execute(
            "DELETE FROM news n USING incoming_news i WHERE n.id = i.id AND n.title = i.title"
        )
        connection.execute(
            "INSERT INTO news SELECT id, published, title, summary, url, publisher, $source, $now "
            "FROM incoming_news",
            {"source": source, "now": utc_now()},
        )
    return len(rows)


def news(
    warehouse: Warehouse,
    ids: str | Sequence[str],
    limit: int = 20,
    start: date | None = None,
    end: date | None = None,
) -> pd.DataFrame:
    """Headlines about one or more entities, newest first:
    `[id, published, title, publisher, url, summary, source]`; `attrs["sources"]` as usual."""
    ids = [ids] if isinstance(ids, str) else list(ids)
    frame = read_table(
        warehouse,
        "SELECT id, published, title, publisher, url, summary, source FROM news "
        "WHERE list_contains($ids, id) AND ($start IS NULL OR published >= $start) "
        "AND ($end IS NULL OR published < $end) "
        "ORDER BY published DESC NULLS LAST, title LIMIT $limit",
        {
            "ids": [i.strip().upper() for i in ids],
            "start": start,
            "end": end + timedelta(days=1) if end else None,
            "limit": int(limit),
        },
    )
    if frame.empty:
        return pd.DataFrame(columns=["id", "published", "title", "publisher", "url", "summary"])
    frame = frame.reset_index(drop=True)
    frame.attrs["sources"] = sorted(frame["source"].unique())
    return frame
