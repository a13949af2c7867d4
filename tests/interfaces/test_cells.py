"""Table cells of frames: what a chart's or a table's rows hold, column type by column type."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from datapilot.interfaces.cells import frame_rows, table_cell


def six_significant(x: float) -> float | None:
    """Six significant digits, whole numbers from 100,000 up (the rule the charts' rows use)."""
    if not math.isfinite(x):
        return None
    return float(round(x)) if abs(x) >= 1e5 else float(f"{x:.6g}")


def table_number(x: float) -> float | None:
    if not math.isfinite(x):
        return None
    return round(x, 2) if abs(x) >= 1 else float(f"{x:.4g}")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 400
    out = pd.DataFrame(
        {
            "price": rng.normal(100, 60, n),
            "tiny": rng.normal(0, 1e-3, n),
            "big": rng.normal(0, 1e7, n),
            "volume": rng.integers(0, 10**12, n),
            "up": rng.random(n) > 0.5,
            "name": [f"E{i % 7}" for i in range(n)],
        },
        index=pd.date_range("1999-12-01", periods=n, freq="B", name="date"),
    )
    out.iloc[3, 0], out.iloc[4, 1], out.iloc[5, 2], out.iloc[6, 0] = np.nan, np.inf, -np.inf, 0.0
    return out


def test_chart_rows_hold_iso_dates_rounded_numbers_and_none_for_gaps(frame) -> None:
    columns, rows = frame_rows(frame)
    assert columns == ["date", *frame.columns]
    assert [r[0] for r in rows] == frame.index.strftime("%Y-%m-%d").tolist()
    for k, column in enumerate(frame.columns, start=1):
        got = [r[k] for r in rows]
        source = frame[column]
        if source.dtype == float:
            assert got == [six_significant(x) for x in source]
        else:
            assert got == source.tolist()
    assert rows[3][1] is None and rows[4][2] is None and rows[5][3] is None and rows[6][1] == 0


def test_table_rows_keep_two_decimals_or_four_significant_digits(frame) -> None:
    _, rows = frame_rows(frame, cell=table_cell)
    for k, column in enumerate(frame.columns, start=1):
        if frame[column].dtype == float:
            assert [r[k] for r in rows] == [table_number(x) for x in frame[column]]
    assert all(type(r[4]) is int and type(r[5]) is bool for r in rows)


def test_times_of_day_time_zones_and_gaps_in_the_index_are_written_out() -> None:
    stamps = pd.DatetimeIndex(["2021-01-04 09:30", "2021-01-05", None], name="at")
    _, rows = frame_rows(pd.DataFrame({"x": [1.0, 2.0, 3.0]}, index=stamps))
    assert [r[0] for r in rows] == ["2021-01-04T09:30:00", "2021-01-05", None]
    zoned = pd.DatetimeIndex(["2021-01-04", "2021-01-04 16:00"], tz="America/New_York")
    _, rows = frame_rows(pd.DataFrame({"x": [1, 2]}, index=zoned))
    assert [r[0] for r in rows] == ["2021-01-04", "2021-01-04T16:00:00-05:00"]
    dated = pd.DataFrame({"when": pd.to_datetime(["2020-02-03 00:00", "2020-02-04 12:00"])})
    columns, rows = frame_rows(dated)
    assert columns == ["id", "when"] and rows == [[0, "2020-02-03"], [1, "2020-02-04T12:00:00"]]
    assert frame_rows(pd.DataFrame({"x": []}, index=pd.DatetimeIndex([]))) == (["date", "x"], [])
