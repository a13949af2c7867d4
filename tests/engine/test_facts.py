"""Facts: what each frame kind yields, how numbers are written, and the grounding check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.toy_interfaces import toy_prices

from datapilot.core.outputs import TableOutput
from datapilot.core.results import Fact
from datapilot.engine.facts import (
    MAX_FACTS_PER_CALL,
    facts_of,
    format_value,
    grounded,
    numbers_in,
    ungrounded,
)


def by(facts: list[Fact], subject: str, measure: str) -> Fact:
    return next(f for f in facts if f.subject == subject and f.measure == measure)


def test_timeseries_facts_match_pandas() -> None:
    frame = toy_prices(["AAA", "BBB"])
    facts = facts_of("prices", frame)
    for column in ["AAA", "BBB"]:
        series = frame[column]
        assert by(facts, column, "first").value == pytest.approx(series.iloc[0])
        assert by(facts, column, "last").date == series.index[-1].date().isoformat()
        assert by(facts, column, "change").value == pytest.approx(series.iloc[-1] - series.iloc[0])
        assert by(facts, column, "pct_change").value == pytest.approx(
            (series.iloc[-1] / series.iloc[0] - 1) * 100
        )
        high = by(facts, column, "high")
        assert high.value == pytest.approx(series.max())
        assert high.date == series.idxmax().date().isoformat()
        assert by(facts, column, "low").date == series.idxmin().date().isoformat()
    assert all(f.source == "prices" and f.unit in {"USD", "%"} for f in facts)


def test_changes_of_percentages_are_in_points() -> None:
    frame = toy_prices(["AAA"]).pct_change().dropna() * 100
    frame.attrs = {"kind": "timeseries", "unit": "%", "title": "Daily return"}
    facts = facts_of("returns", frame)
    assert by(facts, "AAA", "change").unit == "pp"
    assert not [f for f in facts if f.measure == "pct_change"]


def test_cross_section_matrix_forecast_and_stats() -> None:
    table = pd.DataFrame(
        {"return_pct": [12.5, -3.25], "volatility": [20.0, 30.0]},
        index=pd.Index(["AAA", "BBB"], name="id"),
    )
    table.attrs = {"kind": "cross_section", "unit": "%"}
    facts = facts_of("ret", table)
    assert by(facts, "BBB", "return_pct").value == -3.25
    assert [f.measure for f in facts[:2]] == ["return_pct", "return_pct"]  # main measure first

    returns = toy_prices(["AAA", "BBB", "CCC"]).pct_change().dropna()
    matrix = returns.corr()
    matrix.attrs = {"kind": "matrix", "title": "Correlation (pearson)"}
    facts = facts_of("corr", matrix)
    assert len(facts) == 3  # each pair once, no diagonal
    assert by(facts, "AAA–CCC", "correlation").value == pytest.approx(
        returns["AAA"].corr(returns["CCC"])
    )

    dates = pd.date_range("2010-01-01", periods=4, freq="QS", name="date")
    forecast = pd.DataFrame(
        {"forecast": [1.0, 2.0, 3.0, 4.0], "lower": [0.5, 1, 1.5, 2.5], "upper": [2, 3, 4, 5.5]},
        index=dates,
    )
    forecast.attrs = {"kind": "forecast", "unit": "USD", "entity": "GDPC1"}
    facts = facts_of("fc", forecast)
    assert by(facts, "GDPC1", "forecast").value == 4.0
    assert by(facts, "GDPC1", "lower").value == 2.5 and by(facts, "GDPC1", "upper").value == 5.5
    assert by(facts, "GDPC1", "forecast").date == "2010-10-01"

    stats = returns.agg(["mean", "median"]).T
    stats["count"] = returns.count()
    stats.attrs = {"kind": "stats", "unit": "%"}
    facts = facts_of("stats", stats)
    assert by(facts, "BBB", "median").value == pytest.approx(returns["BBB"].median())
    count = by(facts, "AAA", "count")
    assert count.unit is None and format_value(count.value, count.unit) == str(len(returns))


def test_tables_series_and_bounds() -> None:
    table = TableOutput(title="t", columns=["id", "x"], rows=[["A", 1.5], ["B", "n/a"]])
    assert [(f.subject, f.value) for f in facts_of("t", table)] == [("A", 1.5)]
    series = toy_prices(["AAA"])["AAA"]
    assert facts_of("s", series)  # a Series is read as a one-column frame
    wide = pd.DataFrame(
        np.arange(50 * 40, dtype=float).reshape(50, 40),
        index=pd.Index([f"E{i}" for i in range(50)], name="id"),
    )
    assert len(facts_of("wide", wide)) == MAX_FACTS_PER_CALL
    assert facts_of("empty", pd.DataFrame()) == []


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (12.3456, "%", "12.35%"),
        (1234.5678, "USD", "1,234.57 USD"),
        (-3.2, "pp", "-3.20 pp"),
        (0.8712, None, "0.87"),
        # Changed: percentages are always written with 2 decimals (was "0.0012%").
        (0.001234, "%", "0.00%"),
        (-0.001234, "%", "0.00%"),
        (1234567.8, "shares", "1,234,568 shares"),
        (252.0, None, "252"),
        (3.5, "percent", "3.50%"),
        (67.534, "0–100", "67.53"),
        (float("nan"), "USD", "n/a"),
        ("2020-03-23", None, "2020-03-23"),
    ],
)
def test_format_value(value, unit, text) -> None:
    assert format_value(value, unit) == text


def test_numbers_in_skips_dates_and_identifiers() -> None:
    text = (
        "From 2021-01-04 to Jan 29, 2021 GDPC1 and 600519.SH rose 12.35% to 1,234.57 USD "
        "in Q1; 2020年3月23日跌了−3.2个百分点"
    )
    assert [(n.value, n.decimals, n.percent) for n in numbers_in(text)] == [
        (12.35, 2, True),
        (1234.57, 2, False),
        (-3.2, 1, True),
    ]


def test_grounded_accepts_quoted_facts_and_rejects_invented_numbers() -> None:
    facts = [
        Fact(label="AAA pct change", value=12.3456, unit="%"),
        Fact(label="AAA change", value=-3.2049, unit="USD"),
    ]
    assert grounded("AAA rose 12.35% (about 12.3%, roughly 12%) and fell 3.20 USD.", facts)
    assert ungrounded("AAA rose 14.1% in 3 weeks of 2021.", facts) == ["14.1%"]
    assert ungrounded("AAA gained 25%.", facts) == ["25%"]
    # Counts and numbers that come from the question are allowed.
    assert grounded("The 20 stocks over 36 months.", facts, context="past 36 months, 20 stocks")
    assert ungrounded("The 36 months.", facts) == ["36"]


def test_relative_change_only_for_positive_levels() -> None:
    frame = pd.DataFrame(
        {"macd": [0.01, -2.0, 1.5]}, index=pd.date_range("2020-01-01", periods=3, name="date")
    )
    frame.attrs = {"kind": "indicator", "unit": "USD"}
    facts = facts_of("m", frame)
    assert {f.measure for f in facts} == {"first", "last", "change", "high", "low"}
    assert by(facts, "macd", "change").value == pytest.approx(1.49)


def test_long_tables_give_their_first_cells_as_facts() -> None:
    """A 5,000-row table yields the facts of its first cells, row by row, and no more: facts
    past the cap are never built (a long table used to cost a fact object per cell)."""
    frame = pd.DataFrame(
        {"id": [f"E{i}" for i in range(5000)], "x": np.arange(5000) * 1.5, "y": "n/a"}
    )
    frame.loc[1, "x"] = np.nan
    table = TableOutput(
        title="t", columns=list(frame.columns), rows=frame.astype(object).values.tolist()
    )
    numeric = frame.dropna(subset=["x"]).head(MAX_FACTS_PER_CALL)
    facts = facts_of("t", table)
    assert [(f.subject, f.value) for f in facts] == list(
        zip(numeric["id"], numeric["x"], strict=True)
    )
    # A result frame with a risk-free rate: the rate comes after the cells, cut with them.
    cells = pd.DataFrame({"sharpe": np.linspace(-1, 1, 5000)}, index=[f"E{i}" for i in range(5000)])
    cells.attrs.update(kind="stats", risk_free=4.0)
    assert [f.value for f in facts_of("c", cells)] == pytest.approx(
        cells["sharpe"].head(MAX_FACTS_PER_CALL).tolist()
    )
    cells.attrs["risk_free"] = 4.0
    assert facts_of("few", cells.head(3))[-1].measure == "risk_free"
