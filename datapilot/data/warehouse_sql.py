"""The SQL of the warehouse's queries (`warehouse.Warehouse`): how one value per field and date is
chosen when several sources hold an entity, and the coverage every write refreshes. `{visible}`
in a query is `owners.VISIBLE`: the rows its viewer may read."""

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
# rows by the queries below (a window over the data itself would cost ~3x the query time).
RANKS_SQL = """
SELECT c.id, c.source, c."table",
    row_number() OVER (PARTITION BY c.id, c."table" ORDER BY c.has_bars DESC,
        coalesce(s.priority, 0) DESC, c.rows DESC, c.source) AS bar_rank,
    row_number() OVER (PARTITION BY c.id, c."table" ORDER BY
        (c.adj_last - c.adj_first) DESC NULLS LAST, coalesce(s.priority, 0) DESC, c.source)
        AS adj_rank,
    row_number() OVER (PARTITION BY c.id, c."table" ORDER BY coalesce(s.priority, 0) DESC,
        (c.last - c.first) DESC, c.source) AS series_rank
FROM coverage c LEFT JOIN sources s ON s.name = c.source
WHERE {visible}
"""

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
