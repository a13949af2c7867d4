"""Company fundamentals and profiles in the warehouse, filled by live providers.

`fundamentals` holds long rows (id, period_end, period, statement, field, value, unit, source,
fetched_at): reported statement lines (SEC, Yahoo, akshare), derived ratios and dated snapshots
(P/E, market cap …). `profiles` holds one descriptive row per company and source.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Literal

import pandas as pd

from datapilot.data.cache import read_table, registered, utc_now
from datapilot.data.duckdb_engine import duckdb
from datapilot.data.providers.live import FUNDAMENTAL_COLUMNS, CompanyProfile

if TYPE_CHECKING:
    from datapilot.data.warehouse import Warehouse

Period = Literal["annual", "quarterly", "snapshot"]
# Where two sources report the same figure, the filing itself wins over aggregators.
SOURCE_PREFERENCE = ("sec", "yahoo", "akshare", "datahub")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fundamentals (
    id VARCHAR NOT NULL, period_end DATE NOT NULL, period VARCHAR NOT NULL,
    statement VARCHAR NOT NULL, field VARCHAR NOT NULL, value DOUBLE NOT NULL, unit VARCHAR,
    source VARCHAR NOT NULL, fetched_at TIMESTAMP NOT NULL);
CREATE TABLE IF NOT EXISTS profiles (
    id VARCHAR NOT NULL, source VARCHAR NOT NULL, name VARCHAR, sector VARCHAR, industry VARCHAR,
    country VARCHAR, currency VARCHAR, exchange VARCHAR, website VARCHAR, employees BIGINT,
    summary VARCHAR, fetched_at TIMESTAMP NOT NULL, PRIMARY KEY (id, source));
"""


def write_fundamentals_in(
    connection: duckdb.DuckDBPyConnection, frame: pd.DataFrame, source: str
) -> int:
    """Store long fundamentals rows of one source, replacing the same (id, period, field)."""
    missing = [c for c in FUNDAMENTAL_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"fundamentals rows lack column(s) {missing}")
    rows = frame[FUNDAMENTAL_COLUMNS].copy()
    rows["id"] = rows["id"].astype(str).str.upper()
    rows["period_end"] = pd.to_datetime(rows["period_end"]).dt.date
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    rows["unit"] = rows["unit"].fillna("").astype(str)
    rows = rows.dropna(subset=["period_end", "value"])
    rows = rows.drop_duplicates(["id", "period_end", "period", "field"], keep="last")
    connection.execute(_SCHEMA)
    if rows.empty:
        return 0
    with registered(connection, "incoming_fundamentals", rows):
        connection.execute(
            "DELETE FROM fundamentals f USING incoming_fundamentals i WHERE f.source = $source "
            "AND f.id = i.id AND f.period_end = i.period_end AND f.period = i.period "
            "AND f.field = i.field",
            {"source": source},
        )
        connection.execute(
            "INSERT INTO fundamentals SELECT id, period_end, period, statement, field, value, "
            "unit, $source, $now FROM incoming_fundamentals",
            {"source": source, "now": utc_now()},
        )
    return len(rows)


def write_profile_in(
    connection: duckdb.DuckDBPyConnection, profile: CompanyProfile, source: str
) -> int:
    connection.execute(_SCHEMA)
    connection.execute(
        "INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            profile.id.upper(),
            source,
            profile.name,
            profile.sector,
            profile.industry,
            profile.country,
            profile.currency,
            profile.exchange,
            profile.website,
            profile.employees,
            profile.summary,
            utc_now(),
        ],
    )
    return 1


def fundamentals(
    warehouse: Warehouse,
    ids: Sequence[str],
    fields: Sequence[str] | None = None,
    period: Period | None = None,
    start: date | None = None,
    end: date | None = None,
) -> pd.DataFrame:
    """Long rows `[id, period_end, period, statement, field, value, unit, source]`, one per
    (id, period, period end, field): the most preferred source's (SEC, Yahoo, akshare, datahub)."""
    frame = read_table(
        warehouse,
        "SELECT id, period_end, period, statement, field, value, unit, source FROM fundamentals "
        "WHERE list_contains($ids, id) AND ($period IS NULL OR period = $period) "
        "AND ($start IS NULL OR period_end >= $start) AND ($end IS NULL OR period_end <= $end)",
        {"ids": [i.strip().upper() for i in ids], "period": period, "start": start, "end": end},
    )
    if frame.empty:
        return pd.DataFrame(columns=[*FUNDAMENTAL_COLUMNS, "source"])
    if fields:
        frame = frame[frame["field"].isin(list(fields))]
    rank = {name: index for index, name in enumerate(SOURCE_PREFERENCE)}
    frame = frame.assign(_rank=frame["source"].map(rank).fillna(len(rank)))
    frame = frame.sort_values(["id", "period", "period_end", "field", "_rank"])
    frame = frame.drop_duplicates(["id", "period", "period_end", "field"], keep="first")
    frame["period_end"] = pd.to_datetime(frame["period_end"])
    return frame.drop(columns="_rank").reset_index(drop=True)


def fundamentals_table(
    warehouse: Warehouse,
    entity_id: str,
    fields: Sequence[str] | None = None,
    period: Period | Sequence[Period] = "annual",
) -> pd.DataFrame:
    """One company's figures as a wide time series: `date` index (period end), one column per
    field; `attrs` carry units and sources. A single period brings the latest snapshot ratios
    (P/E, market cap …, dated when fetched) along; pass a list to choose exactly."""
    periods = [period, "snapshot"] if isinstance(period, str) else list(period)
    long = fundamentals(warehouse, [entity_id], fields)
    long = long[long["period"].isin(periods)]
    if long.empty:
        return pd.DataFrame()
    wide = long.pivot_table(index="period_end", columns="field", values="value", aggfunc="first")
    wide.index = pd.DatetimeIndex(wide.index, name="date")
    wide.columns.name = None
    wide.attrs["units"] = dict(zip(long["field"], long["unit"], strict=True))
    wide.attrs["sources"] = sorted(long["source"].unique())
    return wide.sort_index()


def latest_values(warehouse: Warehouse, ids: Sequence[str], fields: Sequence[str]) -> pd.DataFrame:
    """The most recent value of each field per company, across periods (a snapshot wins over an
    older annual report): `[id, field, value, unit, period_end, period, source]`."""
    long = fundamentals(warehouse, ids, fields)
    if long.empty:
        return long
    order = {"snapshot": 0, "quarterly": 1, "annual": 2}
    long = long.assign(_order=long["period"].map(order))
    long = long.sort_values(
        ["id", "field", "period_end", "_order"], ascending=[True, True, False, True]
    )
    latest = long.drop_duplicates(["id", "field"], keep="first").drop(columns="_order")
    return latest[["id", "field", "value", "unit", "period_end", "period", "source"]].reset_index(
        drop=True
    )


def profile(warehouse: Warehouse, entity_id: str) -> CompanyProfile | None:
    """The most recently fetched profile of a company, if any."""
    frame = read_table(
        warehouse,
        "SELECT * FROM profiles WHERE id = $id ORDER BY fetched_at DESC LIMIT 1",
        {"id": entity_id.strip().upper()},
    )
    if frame.empty:
        return None
    row = frame.iloc[0]
    values = {
        key: (None if pd.isna(row[key]) else row[key])
        for key in CompanyProfile.model_fields
        if key in row
    }
    employees = values.get("employees")
    if employees is not None:
        values["employees"] = int(employees)
    return CompanyProfile.model_validate(values)
