"""The order of sources per entity (which source gives bars, adjusted closes and series values),
computed from the coverage rows without a window query."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from datapilot.data import warehouse_file
from datapilot.data.warehouse import Warehouse
from datapilot.data.warehouse_sql import source_ranks

# (id, source, table, has_bars, priority, rows, adjusted days, days): ties, nulls, equal names.
ROWS = [
    ("X", "b", "prices", True, 0, 100, 300, 400),
    ("X", "a", "prices", True, 0, 100, None, 400),
    ("X", "c", "prices", False, 9, 900, 500, None),
    ("X", "d", "prices", None, 0, None, 300, 10),
    ("X", "B", "prices", True, 0, 100, 300, 400),
    ("X", "e", "prices", True, 5, 50, None, None),
    ("X", "s1", "series", None, 1, 10, None, 20),
    ("X", "s2", "series", None, 1, 10, None, 30),
    ("X", "s3", "series", None, 2, 10, None, None),
    ("Y", "a", "prices", True, 0, 5, 5, 5),
]


def _expected(keys: list[str], ascending: list[bool]) -> dict[tuple[str, str], int]:
    frame = pd.DataFrame(
        ROWS, columns=["id", "source", "table", "bars", "priority", "rows", "adj_days", "days"]
    )
    ranked = {}
    for (entity, table), group in frame.groupby(["id", "table"]):
        # SQL's order: nulls last either way, names by code point (pandas: the same for text).
        ordered = group.sort_values(
            [*keys, "source"], ascending=[*ascending, True], na_position="last", kind="stable"
        )
        for place, source in enumerate(ordered["source"], start=1):
            ranked[(f"{entity}:{table}", source)] = place
    return ranked


def test_sources_are_ranked_as_the_warehouse_orders_them() -> None:
    got = source_ranks(ROWS)
    flat = {
        (f"{entity}:{table}", source): rank
        for (entity, table), sources in got.items()
        for source, rank in sources
    }
    bars = _expected(["bars", "priority", "rows"], [False, False, False])
    adjusted = _expected(["adj_days", "priority"], [False, False])
    series = _expected(["priority", "days"], [False, False])
    assert {key: rank.bar_rank for key, rank in flat.items()} == bars
    assert {key: rank.adj_rank for key, rank in flat.items()} == adjusted
    assert {key: rank.series_rank for key, rank in flat.items()} == series
    # Spelled out for the bars of X: full bars first, then priority, rows, name (B before a).
    prices_of_x = [key for key in flat if key[0] == "X:prices"]
    assert sorted(prices_of_x, key=lambda key: bars[key]) == [
        ("X:prices", s) for s in ("e", "B", "a", "b", "c", "d")
    ]


class _Recording:
    """A DuckDB connection or cursor that notes the SQL it runs."""

    def __init__(self, inner: Any, seen: list[str]) -> None:
        self._inner, self._seen = inner, seen

    def execute(self, sql: str, *args: Any) -> Any:
        self._seen.append(sql)
        result = self._inner.execute(sql, *args)
        return self if result is self._inner else result

    def cursor(self) -> _Recording:
        return _Recording(self._inner.cursor(), self._seen)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_reading_prices_runs_no_window_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ranking some fifty coverage rows with DuckDB's window functions cost ~10 ms of CPU in
    # every fresh process (an ask's); the rows are read plainly and ordered in Python.
    warehouse = Warehouse(tmp_path / "w.duckdb")
    days = pd.date_range("2021-01-04", periods=5, freq="B")
    warehouse.write_prices(pd.DataFrame({"id": "X", "date": days, "close": 1.0}), "a")
    warehouse.write_prices(
        pd.DataFrame({"id": "X", "date": days[:3], "close": 2.0}), "b", priority=5
    )
    warehouse_file.close_all()
    seen: list[str] = []
    connect = warehouse_file._connect
    monkeypatch.setattr(
        warehouse_file,
        "_connect",
        lambda path, read_only: _Recording(connect(path, read_only), seen),
    )
    prices = Warehouse(tmp_path / "w.duckdb").prices(["X"], date(2021, 1, 1), date(2021, 1, 31))
    expected = [2.0, 2.0, 2.0, 1.0, 1.0]  # b's priority first, a where b has no bar
    assert prices["close"].tolist() == expected
    assert seen and not [sql for sql in seen if " OVER " in " ".join(sql.split()).upper()]
    warehouse_file.close_all()
