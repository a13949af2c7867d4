"""The SQL of the warehouse's queries (`warehouse.Warehouse`): how one value per field and date is
chosen when several sources hold an entity, and the coverage every write refreshes. `{visible}`
in a query is `owners.VISIBLE`: the rows its viewer may read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from datapilot.data.warehouse_file import Rank

# Per-field source priority, when several sources hold the same entity:
# * OHLCV (open, high, low, close, volume) comes as one bar per date from the best source that
#   has a close that day: sources carrying full bars first, then declared priority, then more
#   rows. Raw prices are on one basis in every source, so a lower source may fill dates the
#   better one lacks (the S&P 500 close from skfolio before 1999 and after 2018, arch in between).
# * adj_close comes from ONE source: the longest adjusted history. Each source adjusts as of the
#   day it was made, so splicing two would create jumps; AAPL's comes from skfolio (1990–2022)
#   even where bokeh-sampledata (2000–2013) has bars.
# * series: per date the value of the best source (declared priority, then longer history).
# The ranking reads only the small coverage table; it is cached between writes and applied to the
# rows by the queries below (a window over the data itself would cost ~3x the query time). The
# coverage rows are ordered in Python (`source_ranks`): DuckDB's window functions over them cost
# ~10 ms of CPU in a fresh process, for some fifty rows.
COVERAGE_SQL = """
SELECT c.id, c.source, c."table", c.has_bars, coalesce(s.priority, 0), c.rows,
    c.adj_last - c.adj_first, c.last - c.first
FROM coverage c LEFT JOIN sources s ON s.name = c.source
WHERE {visible}
"""


class _Last:
    """Sorts after every value: SQL's NULLS LAST, ascending or descending."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return not isinstance(other, _Last)


_LAST = _Last()


def _down(value: Any) -> Any:
    """A sort key for `value` DESC NULLS LAST (numbers: booleans, counts, days)."""
    return _LAST if value is None else -value


def source_ranks(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, str], list[tuple[str, Rank]]]:
    """Per (id, table), each source of `COVERAGE_SQL`'s rows with its three ranks (1 = best):
    bars by full bars, priority, rows, then name; adjusted closes by the longest adjusted
    history, priority, then name; series by priority, the longest history, then name. Nulls
    last, names in code-point order: the order `ORDER BY` gives in DuckDB."""
    groups: dict[tuple[str, str], list[Sequence[Any]]] = {}
    for row in rows:
        groups.setdefault((row[0], row[2]), []).append(row)
    ranks: dict[tuple[str, str], list[tuple[str, Rank]]] = {}
    for key, group in groups.items():
        bar = _positions(group, lambda r: (_down(r[3]), -r[4], _down(r[5]), r[1]))
        adj = _positions(group, lambda r: (_down(r[6]), -r[4], r[1]))
        series = _positions(group, lambda r: (-r[4], _down(r[7]), r[1]))
        ranks[key] = [(row[1], Rank(bar[row[1]], adj[row[1]], series[row[1]])) for row in group]
    return ranks


def _positions(group: list[Sequence[Any]], key: Callable[[Sequence[Any]], Any]) -> dict[str, int]:
    return {row[1]: place for place, row in enumerate(sorted(group, key=key), start=1)}


PRICES_SQL = """
SELECT id, date,
    arg_min({{'open': open, 'high': high, 'low': low, 'close': close, 'volume': volume,
              'source': source}}, {bar_rank}) FILTER (WHERE close IS NOT NULL) AS bar,
    max(adj_close) FILTER (WHERE source = {adj_source}) AS adj_close,
    max(source) FILTER (WHERE source = {adj_source} AND adj_close IS NOT NULL) AS adj_source
FROM prices
WHERE list_contains($multi, id)
    AND ($start IS NULL OR date >= $start) AND ($end IS NULL OR date <= $end) AND {visible}
GROUP BY id, date
"""

PRICES_OUT_SQL = """
SELECT id, date, bar.open AS open, bar.high AS high, bar.low AS low, bar.close AS close,
    adj_close, bar.volume AS volume, bar.source AS bar_source, adj_source
FROM picked WHERE bar IS NOT NULL OR adj_close IS NOT NULL
"""

# The same choice for ids held by one source only (most of them): with one row per date there
# is nothing to choose, so the rows are read as they are, without grouping (~3x faster).
SINGLE_SOURCE_PRICES_SQL = """
SELECT id, date,
    CASE WHEN close IS NOT NULL THEN open END AS open,
    CASE WHEN close IS NOT NULL THEN high END AS high,
    CASE WHEN close IS NOT NULL THEN low END AS low,
    close, adj_close,
    CASE WHEN close IS NOT NULL THEN volume END AS volume,
    CASE WHEN close IS NOT NULL THEN source END AS bar_source,
    CASE WHEN adj_close IS NOT NULL THEN source END AS adj_source
FROM prices
WHERE list_contains($single, id)
    AND ($start IS NULL OR date >= $start) AND ($end IS NULL OR date <= $end)
    AND (close IS NOT NULL OR adj_close IS NOT NULL) AND {visible}
"""

# A week or month is reported on its last trading day: first open, highest high, lowest low,
# last close and adjusted close, summed volume.
RESAMPLE_SQL = """
SELECT id, max(date) AS date, arg_min(open, date) AS open, max(high) AS high, min(low) AS low,
    arg_max(close, date) AS close, arg_max(adj_close, date) AS adj_close, sum(volume) AS volume,
    string_agg(DISTINCT bar_source, ',') AS bar_source,
    string_agg(DISTINCT adj_source, ',') AS adj_source
FROM daily GROUP BY id, date_trunc('{unit}', date)
"""

SERIES_SQL = """
SELECT id, date, arg_min(value, {rank}) AS value, arg_min(source, {rank}) AS source
FROM series
WHERE list_contains($ids, id)
    AND ($start IS NULL OR date >= $start) AND ($end IS NULL OR date <= $end) AND {visible}
GROUP BY id, date ORDER BY id, date
"""

REFRESH_COVERAGE_SQL = (
    "DELETE FROM coverage WHERE list_contains($ids, id)",
    """
INSERT INTO coverage
SELECT id, source, 'prices', count(*), min(date), max(date), count(open) > 0,
    min(date) FILTER (WHERE adj_close IS NOT NULL), max(date) FILTER (WHERE adj_close IS NOT NULL),
    max(fetched_at)
FROM prices WHERE list_contains($ids, id) GROUP BY id, source
""",
    """
INSERT INTO coverage
SELECT id, source, 'series', count(*), min(date), max(date), false, NULL, NULL, max(fetched_at)
FROM series WHERE list_contains($ids, id) GROUP BY id, source
""",
)
