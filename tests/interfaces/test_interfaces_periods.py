"""The analyst families' interfaces against plain pandas on the source data: the best and worst
sub-periods of a series, counts of sessions meeting a condition, and the distance from a peak."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from datapilot.interfaces import periods as PD
from datapilot.interfaces import prices as PX
from datapilot.interfaces import processing as P
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import InterfaceError


@pytest.fixture()
def ctx(data) -> InterfaceContext:  # type: ignore[no-untyped-def]
    return InterfaceContext(
        warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30)
    )


@pytest.fixture(scope="module")
def stocks() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()


def _window(series: pd.Series, start: str, end: str) -> tuple[pd.Series, pd.Series]:
    """(the calendar base, the window's closes)."""
    return series.loc[series.index < pd.Timestamp(start)].iloc[-1:], series.loc[start:end]


def test_best_and_worst_months_are_period_returns_from_the_previous_close(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["XOM"], date(2020, 1, 1), date(2020, 12, 31), field="adj_close")
    monthly = P.compute_returns(ctx, frame, period="monthly")
    both = PD.period_extremes(ctx, monthly, which="both", period="monthly")
    base, inside = _window(stocks["XOM"], "2020-01-01", "2020-12-31")
    ends = pd.concat([base, inside]).groupby(lambda d: (d.year, d.month)).last()
    returns = (ends / ends.shift(1) - 1).dropna() * 100  # January from December's close
    by_side = both.set_index("group")
    assert by_side.loc["worst", "value"] == pytest.approx(returns.min())
    assert by_side.loc["best", "value"] == pytest.approx(returns.max())
    assert by_side.loc["worst", "period"] == "2020-03"
    assert both.index.tolist() == ["XOM", "XOM"]


def test_counts_compare_closes_with_a_level_and_daily_returns_with_a_percent(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2020, 1, 1), date(2020, 12, 31), field="adj_close")
    base, inside = _window(stocks["AAPL"], "2020-01-01", "2020-12-31")
    moves = pd.concat([base, inside]).pct_change().dropna() * 100
    above = PD.count_days(ctx, frame, condition="close_above", threshold=100)
    assert above.loc["AAPL", "count"] == (inside > 100).sum()
    assert above.loc["AAPL", "sessions"] == len(inside)
    either = PD.count_days(ctx, frame, condition="move_beyond", threshold=5)
    assert either.loc["AAPL", "count"] == (moves.abs() > 5).sum()
    fell = PD.count_days(ctx, frame, condition="fall_beyond", threshold=3)
    assert fell.loc["AAPL", "count"] == (moves < -3).sum()
    up = PD.count_days(ctx, frame, condition="up")
    assert up.loc["AAPL", "count"] == (moves > 0).sum()
    at_least = PD.count_days(ctx, frame, condition="close_above", threshold=100, inclusive=True)
    assert at_least.loc["AAPL", "count"] == (inside >= 100).sum()
    with pytest.raises(InterfaceError, match="needs a threshold"):
        PD.count_days(ctx, frame, condition="close_below")


def test_distance_from_the_high_is_dated(ctx, stocks) -> None:
    frame = PX.get_prices(
        ctx, ["MSFT"], date(2021, 12, 29), date(2022, 12, 28), base="on_or_before"
    )
    inside = stocks["MSFT"].loc["2021-12-29":"2022-12-28"]
    high = PD.distance_from_peak(ctx, frame, side="high")
    assert high.loc["MSFT", "distance_pct"] == pytest.approx(
        (inside.iloc[-1] / inside.max() - 1) * 100
    )
    assert high.loc["MSFT", "peak_date"] == inside.idxmax().date()
    low = PD.distance_from_peak(ctx, frame, side="low")
    assert low.loc["MSFT", "distance_pct"] == pytest.approx(
        (inside.iloc[-1] / inside.min() - 1) * 100
    )
    assert low.loc["MSFT", "peak_date"] == inside.idxmin().date()


def test_a_daily_leverage_compounds_each_days_return_from_the_same_base(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2021, 1, 1), date(2021, 12, 31), field="adj_close")
    base, inside = _window(stocks["AAPL"], "2021-01-01", "2021-12-31")
    moves = pd.concat([base, inside]).pct_change().dropna()
    levered = PD.leveraged(ctx, frame, leverage=2)
    got = P.period_return(ctx, levered, start="2021-01-01", end="2021-12-31")
    assert got.loc["AAPL", "return_pct"] == pytest.approx(((1 + 2 * moves).prod() - 1) * 100)
    assert got.loc["AAPL", "start_date"] == base.index[0].date()


def test_an_extremes_value_months_later_is_read_past_the_window(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["XOM"], date(2020, 1, 1), date(2021, 3, 31), field="adj_close")
    found = PD.period_extremes(ctx, frame, which="worst", within_end="2020-12-31", after_months=3)
    closes = stocks["XOM"].loc["2020-01-01":"2021-03-31"]
    low_day = closes.loc[:"2020-12-31"].idxmin()
    later = closes.loc[: low_day + pd.DateOffset(months=3)]
    row = found.iloc[0]
    assert row["date"] == low_day.date()
    assert row["after_date"] == later.index[-1].date()
    assert row["after_change"] == pytest.approx(later.iloc[-1] - closes.loc[low_day], rel=1e-4)
    with pytest.raises(InterfaceError, match="data end"):
        PD.period_extremes(ctx, frame, which="worst", within_end="2021-03-31", after_months=24)


def test_the_move_between_a_windows_high_and_low_runs_in_time_order(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["XOM"], date(2020, 1, 1), date(2020, 12, 31), field="adj_close")
    found = PD.high_low_range(ctx, frame).iloc[0]
    closes = stocks["XOM"].loc["2020"]
    high_first = closes.idxmax() < closes.idxmin()
    move = (closes.min() / closes.max() - 1) if high_first else (closes.max() / closes.min() - 1)
    assert found["move_pct"] == pytest.approx(move * 100, rel=1e-4)


@pytest.mark.parametrize(
    ("every", "on", "period"), [("monthly", "first", "M"), ("yearly", "last", "Y")]
)
def test_regular_buying_against_pandas(ctx, stocks, every, on, period) -> None:
    from datapilot.interfaces.contributions import periodic_investment

    frame = PX.get_prices(ctx, ["KO"], date(2015, 1, 1), date(2019, 12, 31), field="adj_close")
    found = periodic_investment(ctx, frame, amount=500, every=every, on=on).iloc[0]
    closes = stocks["KO"].loc["2015-01-01":"2019-12-31"]
    groups = closes.groupby(closes.index.to_period(period))
    buys = groups.head(1) if on == "first" else groups.tail(1)
    value = (500 / buys).sum() * closes.iloc[-1]
    assert found["buys"] == len(buys)
    assert found["invested"] == 500 * len(buys)
    assert found["value"] == pytest.approx(value, rel=1e-4)
    with pytest.raises(InterfaceError, match="positive"):
        periodic_investment(ctx, frame, amount=0)


def test_a_claimed_period_is_ranked_among_the_periods(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["XOM"], date(2020, 1, 1), date(2020, 12, 31), field="adj_close")
    monthly = P.compute_returns(ctx, frame, period="monthly")
    found = PD.period_extremes(ctx, monthly, which="worst", period="monthly", claimed="2020-10-15")
    claimed = found[found["group"] == "claimed"].iloc[0]
    base, inside = _window(stocks["XOM"], "2020-01-01", "2020-12-31")
    ends = pd.concat([base, inside]).groupby(lambda d: (d.year, d.month)).last()
    returns = (ends / ends.shift(1) - 1).dropna() * 100
    october = returns.loc[[(2020, 10)]].iloc[0]
    assert claimed["value"] == pytest.approx(october)
    assert claimed["rank"] == int((returns < october).sum()) + 1
    assert claimed["periods"] == len(returns)
