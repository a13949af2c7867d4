"""Warehouse queries: windows, frequencies, per-field source priority, writes, threads, speed."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from datapilot.data.providers.bundled import package_file
from datapilot.data.warehouse import PRICE_COLUMNS, Warehouse
from datapilot.data.warehouse_file import WarehouseError


@pytest.fixture(scope="module")
def skfolio_closes() -> pd.DataFrame:
    path = package_file("skfolio", "datasets", "data", "sp500_dataset.csv.gz")
    return pd.read_csv(path, parse_dates=["Date"], index_col="Date")


@pytest.fixture(scope="module")
def bokeh() -> pd.DataFrame:
    path = package_file("bokeh_sampledata", "_data", "stocks.csv.gz")
    return pd.read_csv(path, parse_dates=["Date"])


@pytest.fixture(scope="module")
def arch_sp500() -> pd.DataFrame:
    path = package_file("arch", "data", "sp500", "sp500.csv.gz")
    frame = pd.read_csv(path)
    frame.index = pd.to_datetime(frame.pop("Date"), format="%m/%d/%Y")
    return frame


def test_prices_window_is_inclusive_with_tidy_columns(data, skfolio_closes) -> None:
    frame = data.warehouse.prices(["aapl"], date(2018, 1, 2), date(2018, 12, 31))
    assert list(frame.columns) == PRICE_COLUMNS
    assert pd.api.types.is_datetime64_any_dtype(frame["date"])
    expected = skfolio_closes.loc["2018-01-02":"2018-12-31", "AAPL"]
    assert frame["date"].iloc[0] == expected.index[0] == pd.Timestamp("2018-01-02")
    assert frame["date"].iloc[-1] == pd.Timestamp("2018-12-31")
    np.testing.assert_allclose(frame["adj_close"].to_numpy(), expected.to_numpy())
    # skfolio only publishes adjusted closes: the traded close stays empty after 2013.
    assert frame["close"].isna().all()
    assert frame.attrs["sources"] == ["skfolio"]


def test_ohlcv_from_the_source_that_has_bars_adj_close_from_the_longer_history(
    data, skfolio_closes, bokeh
) -> None:
    frame = data.warehouse.prices(["AAPL"], date(2005, 1, 1), date(2005, 12, 31))
    raw = bokeh[(bokeh["Ticker"] == "AAPL") & (bokeh["Date"].dt.year == 2005)]
    merged = frame.merge(raw, left_on="date", right_on="Date")
    assert len(merged) == len(raw) > 200
    for ours, theirs in [("open", "Open"), ("high", "High"), ("low", "Low"), ("close", "Close")]:
        np.testing.assert_allclose(merged[ours], merged[theirs])
    np.testing.assert_allclose(merged["volume"], merged["Volume"])
    # The adjusted close is skfolio's (adjusted as of 2022), not bokeh's (as of 2013).
    adjusted = skfolio_closes.loc[merged["date"], "AAPL"].to_numpy()
    np.testing.assert_allclose(merged["adj_close"].to_numpy(), adjusted)
    assert not np.allclose(merged["adj_close"], merged["Adj Close"])
    assert frame.attrs["sources"] == ["bokeh-sampledata", "skfolio"]


def test_index_close_is_spliced_from_sources_on_one_basis(data, arch_sp500) -> None:
    sk = pd.read_csv(
        package_file("skfolio", "datasets", "data", "sp500_index.csv.gz"),
        parse_dates=["Date"],
        index_col="Date",
    )["SP500"]
    frame = data.warehouse.prices(["^GSPC"]).set_index("date")
    assert frame.index[0] == sk.index[0] and frame.index[-1] == sk.index[-1]
    inside = frame.loc["2005"]
    np.testing.assert_allclose(inside["close"], arch_sp500.loc["2005", "Close"])
    np.testing.assert_allclose(inside["open"], arch_sp500.loc["2005", "Open"])
    before, after = frame.loc["1995"], frame.loc["2020"]
    np.testing.assert_allclose(before["close"], sk.loc["1995"])
    np.testing.assert_allclose(after["close"], sk.loc["2020"])
    assert before["open"].isna().all() and inside["open"].notna().all()
    # Both sources agree where they overlap, so the splice has no jump.
    overlap = arch_sp500.loc["2005", "Close"]
    np.testing.assert_allclose(sk.loc[overlap.index], overlap, rtol=1e-4)


def test_monthly_and_weekly_bars_aggregate_ohlcv(data, bokeh) -> None:
    raw = bokeh[(bokeh["Ticker"] == "IBM") & (bokeh["Date"].dt.year == 2012)].set_index("Date")
    expected = raw.groupby(raw.index.to_period("M")).agg(
        date=("Close", lambda s: s.index.max()),
        open=("Open", "first"),
        high=("High", "max"),
        low=("Low", "min"),
        close=("Close", "last"),
        volume=("Volume", "sum"),
    )
    monthly = data.warehouse.prices(["IBM"], date(2012, 1, 1), date(2012, 12, 31), "monthly")
    assert len(monthly) == 12
    assert list(monthly["date"]) == list(expected["date"])
    for column in ("open", "high", "low", "close", "volume"):
        np.testing.assert_allclose(monthly[column], expected[column], err_msg=column)

    weekly = data.warehouse.prices(["IBM"], date(2012, 1, 1), date(2012, 12, 31), "weekly")
    by_week = raw.groupby(raw.index.to_period("W-SUN"))
    assert len(weekly) == by_week.ngroups
    assert list(weekly["date"]) == [group.index.max() for _, group in by_week]
    np.testing.assert_allclose(weekly["high"], by_week["High"].max())
    np.testing.assert_allclose(weekly["close"], by_week["Close"].last())


def test_several_ids_come_sorted_by_id_then_date(data) -> None:
    frame = data.warehouse.prices(["XOM", "CVX", "NOPE"], date(2020, 3, 1), date(2020, 3, 31))
    assert list(frame["id"].unique()) == ["CVX", "XOM"]
    assert frame.groupby("id")["date"].apply(lambda d: d.is_monotonic_increasing).all()
    assert data.warehouse.prices(["NOPE"]).empty


def test_series_window_and_quarter_start_dates(data) -> None:
    import statsmodels.api as sm

    macro = sm.datasets.macrodata.load_pandas().data
    frame = data.warehouse.series(["UNRATE"], date(1990, 1, 1), date(1999, 12, 31))
    assert list(frame.columns) == ["id", "date", "value"]
    assert frame["date"].iloc[0] == pd.Timestamp("1990-01-01")
    assert frame["date"].iloc[-1] == pd.Timestamp("1999-10-01")
    expected = macro[(macro["year"] >= 1990) & (macro["year"] <= 1999)]["unemp"]
    np.testing.assert_allclose(frame["value"], expected)
    assert frame.attrs["sources"] == ["statsmodels"]


def test_coverage_and_sources(data) -> None:
    coverage = data.warehouse.coverage("msft")
    assert list(coverage.columns) == ["id", "source", "table", "rows", "first", "last"]
    assert set(coverage["source"]) == {"skfolio", "bokeh-sampledata"}
    assert data.warehouse.sources("MSFT") == ["skfolio", "bokeh-sampledata"]


# ---- priority and writes on small warehouses with made-up rows ----------------------------


def bars(entity_id: str, days: pd.DatetimeIndex, base: float, bars: bool = True) -> pd.DataFrame:
    frame = pd.DataFrame({"id": entity_id, "date": days, "close": base + np.arange(len(days))})
    if bars:
        frame["open"] = frame["close"] - 0.5
        frame["high"] = frame["close"] + 1
        frame["low"] = frame["close"] - 1
        frame["volume"] = 1000.0
    return frame


@pytest.fixture()
def warehouse(tmp_path: Path) -> Warehouse:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    yield warehouse
    warehouse.close()


def test_per_field_priority_on_overlapping_sources(warehouse: Warehouse) -> None:
    inner = pd.bdate_range("2020-01-06", "2020-01-10")
    outer = pd.bdate_range("2020-01-01", "2020-01-17")
    with_bars = bars("ACME", inner, 100).assign(adj_close=lambda f: f["close"] / 2)
    close_only = bars("ACME", outer, 500, bars=False).assign(adj_close=lambda f: f["close"] / 4)
    warehouse.write_prices(with_bars, "bars")
    warehouse.write_prices(close_only, "long")
    frame = warehouse.prices(["ACME"]).set_index("date")
    assert list(frame.index) == list(outer)
    np.testing.assert_allclose(frame.loc[inner, "close"], with_bars["close"])
    np.testing.assert_allclose(frame.loc[inner, "open"], with_bars["open"])
    gaps = outer.difference(inner)
    np.testing.assert_allclose(
        frame.loc[gaps, "close"], close_only.set_index("date").loc[gaps, "close"]
    )
    assert frame.loc[gaps, "open"].isna().all()
    # The adjusted close never mixes sources: all of it from the longer history.
    np.testing.assert_allclose(frame["adj_close"], close_only["adj_close"])


def test_declared_priority_beats_row_count_for_bars(warehouse: Warehouse) -> None:
    days = pd.bdate_range("2021-03-01", "2021-03-31")
    warehouse.write_prices(bars("ACME", days, 10), "bundled-ish")
    mine = bars("ACME", days[:5], 99)
    warehouse.write_prices(mine, "mine", priority=100)
    frame = warehouse.prices(["ACME"])
    np.testing.assert_allclose(frame["close"].iloc[:5], mine["close"])
    np.testing.assert_allclose(frame["close"].iloc[5:], 10 + np.arange(5, len(days)))


def test_series_priority_then_gap_filling(warehouse: Warehouse) -> None:
    months = pd.date_range("2020-01-01", periods=6, freq="MS")
    warehouse.write_series(pd.DataFrame({"id": "X", "date": months, "value": 1.0}), "a")
    warehouse.write_series(
        pd.DataFrame({"id": "X", "date": months[2:4], "value": 2.0}), "b", priority=5
    )
    assert list(warehouse.series(["X"])["value"]) == [1, 1, 2, 2, 1, 1]
    assert warehouse.series(["X"]).attrs["sources"] == ["a", "b"]


def test_writes_upsert_by_date_or_replace_a_source(warehouse: Warehouse) -> None:
    days = pd.bdate_range("2022-01-03", periods=4)
    warehouse.write_prices(bars("ACME", days, 1), "s")
    warehouse.write_prices(bars("ACME", days[-1:], 50), "s")
    assert list(warehouse.prices(["ACME"])["close"]) == [1, 2, 3, 50]
    warehouse.write_prices(bars("ACME", days[:1], 7), "s", replace=True)
    assert list(warehouse.prices(["ACME"])["close"]) == [7]
    fetched = warehouse.query("SELECT max(fetched_at) AS t FROM prices")["t"].iloc[0]
    assert pd.Timestamp(fetched) > pd.Timestamp("2020-01-01")


def test_a_bad_write_changes_nothing(warehouse: Warehouse) -> None:
    days = pd.bdate_range("2022-01-03", periods=3)
    warehouse.write_prices(bars("ACME", days, 1), "s")
    before = warehouse.prices(["ACME"])
    duplicated = pd.concat([bars("ACME", days, 9), bars("ACME", days[:1], 9)])
    with pytest.raises(WarehouseError, match="duplicate"):
        warehouse.write_prices(duplicated, "s")
    with pytest.raises(WarehouseError, match="close"):
        warehouse.write_prices(pd.DataFrame({"id": ["A"], "date": [days[0]]}), "s")
    pd.testing.assert_frame_equal(warehouse.prices(["ACME"]), before)


def test_reads_from_many_threads_agree(data) -> None:
    ids = ["AAPL", "MSFT", "JPM", "XOM", "^GSPC", "IBM"]
    expected = {i: len(data.warehouse.prices([i], date(2010, 1, 1), date(2012, 1, 1))) for i in ids}

    def rows(entity_id: str) -> tuple[str, int]:
        return entity_id, len(
            data.warehouse.prices([entity_id], date(2010, 1, 1), date(2012, 1, 1))
        )

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(rows, ids * 8))
    assert all(count == expected[i] for i, count in results)


@pytest.mark.perf
def test_window_queries_are_fast(data) -> None:
    """A window reads its window, not the table: a year of one id, or of twenty, costs a small
    part of reading every price the table holds. A ratio measured here, the reads in turns so
    that both share the machine's load (absolute times swung with it)."""
    every = list(data.warehouse.coverage().query("table == 'prices'")["id"].unique())
    twenty = every[:20]
    assert len(twenty) == 20
    reads = {
        "AAPL": lambda day: data.warehouse.prices(["AAPL"], date(2010, 1, day), date(2011, 1, 1)),
        "twenty": lambda day: data.warehouse.prices(twenty, date(2010, 1, day), date(2011, 1, 1)),
        "table": lambda day: data.warehouse.prices(every, date(1900, 1, day)),
    }
    timings: dict[str, list[float]] = {name: [] for name in reads}
    for day in range(1, 8):  # a new window each time: the query, not the read cache
        for name, read in reads.items():
            started = time.perf_counter()
            read(day)
            timings[name].append(time.perf_counter() - started)
    best = {name: min(times) for name, times in timings.items()}
    # About 1/18 and 1/10 of the whole table on an idle machine.
    assert best["AAPL"] < best["table"] / 4, best
    assert best["twenty"] < best["table"] / 2, best


@pytest.mark.perf
def test_a_repeated_read_is_served_from_memory_and_callers_cannot_change_it(data) -> None:
    window = ("MSFT", date(2015, 1, 1), date(2015, 12, 31))
    first = data.warehouse.prices([window[0]], *window[1:])
    expected = first.copy(deep=True)
    # What callers do to their frame stays theirs.
    first.loc[first.index[0], "close"] = -1.0
    first["extra"] = 1
    first.attrs["sources"].append("nowhere")
    again = data.warehouse.prices([window[0]], *window[1:])
    pd.testing.assert_frame_equal(again, expected)
    assert again.attrs["sources"] == expected.attrs["sources"]

    def median_ms(start: date) -> float:
        timings = []
        for _ in range(9):
            started = time.perf_counter()
            data.warehouse.prices(["MSFT", "AAPL", "JPM"], start, date(2016, 12, 31))
            timings.append((time.perf_counter() - started) * 1000)
        return statistics.median(timings[1:])

    cold = []
    for day in range(1, 10):  # a new window each time: every read runs the query
        started = time.perf_counter()
        data.warehouse.prices(["MSFT", "AAPL", "JPM"], date(2014, 1, day), date(2016, 12, 31))
        cold.append((time.perf_counter() - started) * 1000)
    assert median_ms(date(2014, 2, 3)) < statistics.median(cold) / 3


def test_a_write_is_seen_by_the_next_read_of_the_same_window(warehouse: Warehouse) -> None:
    days = pd.bdate_range("2022-01-03", periods=3)
    warehouse.write_series(pd.DataFrame({"id": "X", "date": days, "value": 1.0}), "a")
    assert list(warehouse.series(["X"])["value"]) == [1, 1, 1]
    assert list(warehouse.series(["X"])["value"]) == [1, 1, 1]  # now from memory
    warehouse.write_series(pd.DataFrame({"id": "X", "date": days[1:2], "value": 5.0}), "a")
    assert list(warehouse.series(["X"])["value"]) == [1, 5, 1]


def test_a_derived_frame_is_computed_once_until_the_warehouse_changes(
    warehouse: Warehouse,
) -> None:
    days = pd.bdate_range("2022-01-03", periods=3)
    warehouse.write_series(pd.DataFrame({"id": "X", "date": days, "value": 1.0}), "a")
    computed: list[float] = []

    def total() -> pd.DataFrame:
        value = float(warehouse.series(["X"])["value"].sum())
        computed.append(value)
        return pd.DataFrame({"total": [value]})

    assert warehouse.derived("total", total)["total"].tolist() == [3.0]
    mine = warehouse.derived("total", total)  # from memory, and the caller's own copy
    mine.loc[0, "total"] = -1.0
    assert warehouse.derived("total", total)["total"].tolist() == [3.0]
    assert computed == [3.0]
    warehouse.write_series(pd.DataFrame({"id": "X", "date": days[:1], "value": 5.0}), "a")
    assert warehouse.derived("total", total)["total"].tolist() == [7.0]
    assert computed == [3.0, 7.0]

    def total_during_a_write() -> pd.DataFrame:
        frame = total()
        warehouse.write_series(pd.DataFrame({"id": "X", "date": days[1:2], "value": 4.0}), "a")
        return frame

    # Computed before the write that came in meanwhile: returned once, never served again.
    assert warehouse.derived("during", total_during_a_write)["total"].tolist() == [7.0]
    assert warehouse.derived("during", total)["total"].tolist() == [10.0]
