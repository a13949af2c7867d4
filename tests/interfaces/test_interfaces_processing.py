"""Processing and frame interfaces on small frames whose answers are known by hand."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from datapilot.interfaces import InterfaceError
from datapilot.interfaces import frame as F
from datapilot.interfaces import performance as PF
from datapilot.interfaces import processing as P
from datapilot.interfaces.context import InterfaceContext


@pytest.fixture()
def ctx() -> InterfaceContext:
    return InterfaceContext(warehouse=None, catalog=None, today=date(2022, 12, 30))  # type: ignore[arg-type]


def series(values: list[float], start: str = "2021-01-04", freq: str = "B", name: str = "X"):
    index = pd.date_range(start, periods=len(values), freq=freq, name="date")
    frame = pd.DataFrame({name: values}, index=index)
    return F.tag(frame, kind="timeseries", unit="USD", title="Close", sources=["test"])


def prices(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    index = pd.bdate_range("2019-01-01", periods=n, name="date")
    values = 100 * np.exp(np.cumsum(rng.normal(0.0004, 0.012, size=(n, 2)), axis=0))
    frame = pd.DataFrame(values, index=index, columns=["AAA", "BBB"])
    return F.tag(frame, kind="timeseries", unit="USD", title="Close", sources=["test"])


def test_cumulative_returns_match_hand_values(ctx) -> None:
    out = P.cumulative_returns(ctx, series([100, 110, 99, 121]))
    assert out["X"].round(10).tolist() == [0.0, 10.0, -1.0, 21.0]
    assert out.attrs["unit"] == "%" and out.attrs["sources"] == ["test"]


def test_cumulative_returns_start_at_each_columns_first_value(ctx) -> None:
    frame = prices(5)
    frame.iloc[:2, 1] = np.nan
    out = P.cumulative_returns(ctx, frame)
    assert out["BBB"].iloc[2] == 0.0
    expected = (frame["BBB"].iloc[4] / frame["BBB"].iloc[2] - 1) * 100
    assert out["BBB"].iloc[4] == pytest.approx(expected)


def test_daily_and_monthly_returns(ctx) -> None:
    frame = prices(300)
    daily = P.compute_returns(ctx, frame)
    assert daily["AAA"].iloc[0] == pytest.approx(
        (frame["AAA"].iloc[1] / frame["AAA"].iloc[0] - 1) * 100
    )
    assert len(daily) == len(frame) - 1 and daily.attrs["measure"] == "returns"
    monthly = P.compute_returns(ctx, frame, period="monthly")
    month_ends = frame["AAA"].groupby(frame.index.to_period("M")).last()
    assert monthly["AAA"].iloc[0] == pytest.approx(
        (month_ends.iloc[1] / month_ends.iloc[0] - 1) * 100
    )
    # Labelled by the last trading day actually in the month.
    assert monthly.index[0] == frame.loc["2019-02"].index[-1]
    log = P.compute_returns(ctx, frame, log=True)
    assert log["AAA"].iloc[0] == pytest.approx(
        100 * math.log(frame["AAA"].iloc[1] / frame["AAA"].iloc[0])
    )


def test_period_return_starts_from_the_close_on_or_before_start(ctx) -> None:
    days = pd.DatetimeIndex(["2020-12-29", "2020-12-30", "2020-12-31", "2021-01-04", "2021-01-05"])
    frame = F.tag(
        pd.DataFrame({"X": [100.0, 104, 108, 90, 99]}, index=days.rename("date")), kind="timeseries"
    )
    out = P.period_return(ctx, frame, start=date(2021, 1, 1), end=date(2021, 1, 5))
    row = out.loc["X"]
    # 1 Jan is a holiday: the base is the 31 Dec close (108), the end the 5 Jan close (99).
    assert row["start_date"] == date(2020, 12, 31) and row["start_value"] == 108
    assert row["end_date"] == date(2021, 1, 5)
    assert row["return_pct"] == pytest.approx((99 / 108 - 1) * 100)
    whole = P.period_return(ctx, frame)
    assert whole.loc["X", "return_pct"] == pytest.approx(-1.0)


def test_period_return_outside_the_data_says_where_data_are(ctx) -> None:
    with pytest.raises(InterfaceError, match="2021-01-04"):
        P.period_return(ctx, series([1, 2, 3]), start=date(2030, 1, 1))


def test_rank_sorts_adds_rank_and_keeps_top_k(ctx) -> None:
    table = pd.DataFrame({"return_pct": [5.0, -2.0, 12.0, 5.0, np.nan]}, index=list("ABCDE"))
    table = F.tag(table, kind="cross_section", unit="%")
    out = P.rank(ctx, table)
    assert out.index.tolist()[:4] == ["C", "A", "D", "B"] and out.index[-1] == "E"
    assert out["rank"].tolist()[:4] == [1, 2, 2, 4]
    assert P.rank(ctx, table, ascending=True, top_k=2).index.tolist() == ["B", "A"]
    with pytest.raises(InterfaceError, match="return_pct"):
        P.rank(ctx, table, by="volume")


def test_summary_stats_mean_and_median(ctx) -> None:
    frame = prices(50)
    stats = P.summary_stats(ctx, frame)
    assert stats.loc["AAA", "mean"] == pytest.approx(np.mean(frame["AAA"]))
    assert stats.loc["BBB", "median"] == pytest.approx(np.median(frame["BBB"]))
    assert stats.loc["AAA", "std"] == pytest.approx(np.std(frame["AAA"], ddof=1))
    assert stats.loc["AAA", "count"] == 50 and stats.attrs["kind"] == "stats"
    assert P.mean(ctx, frame).loc["BBB", "mean"] == pytest.approx(frame["BBB"].mean())
    assert P.median(ctx, frame).columns.tolist() == ["median"]


def test_yoy_uses_four_quarters_for_quarterly_data(ctx) -> None:
    values = [100, 101, 102, 103, 110, 111, 112, 113]
    frame = series(values, start="2000-01-01", freq="QS")
    out = P.pct_change(ctx, frame, kind="yoy")
    assert out.index[0] == pd.Timestamp("2001-01-01")
    assert out["X"].iloc[0] == pytest.approx(10.0)
    qoq = P.pct_change(ctx, frame, kind="qoq")
    assert qoq["X"].iloc[0] == pytest.approx(1.0)
    with pytest.raises(InterfaceError, match="quarterly"):
        P.pct_change(ctx, frame, kind="mom")


def test_yoy_on_daily_data_compares_with_the_same_date_a_year_earlier(ctx) -> None:
    frame = prices(400)
    out = P.pct_change(ctx, frame, kind="yoy")
    day = out.index[10]
    before = frame["AAA"].loc[: day - pd.DateOffset(years=1)].iloc[-1]
    assert out.loc[day, "AAA"] == pytest.approx((frame.loc[day, "AAA"] / before - 1) * 100)
    assert out.index[0] >= frame.index[0] + pd.DateOffset(years=1)


def test_correlation_of_linked_series(ctx) -> None:
    x = np.random.default_rng(3).normal(size=200)
    frame = pd.DataFrame(
        {"a": x, "b": 2 * x + 1, "c": -x}, index=pd.bdate_range("2020-01-01", periods=200)
    )
    out = P.correlation(ctx, frame)
    assert out.loc["a", "b"] == pytest.approx(1.0)
    assert out.loc["a", "c"] == pytest.approx(-1.0)
    assert out.attrs["kind"] == "matrix"
    with pytest.raises(InterfaceError, match="two columns"):
        P.correlation(ctx, frame[["a"]])


def test_rolling_volatility_is_annualised_std_of_daily_returns(ctx) -> None:
    frame = prices(200)
    out = P.rolling_volatility(ctx, frame, window=20)
    daily = frame["AAA"].pct_change() * 100
    expected = daily.iloc[1:21].std(ddof=1) * math.sqrt(252)
    assert out["AAA"].iloc[0] == pytest.approx(expected)
    raw = P.rolling_volatility(ctx, frame, window=20, annualize=False)
    assert raw["AAA"].iloc[0] == pytest.approx(expected / math.sqrt(252))
    from_returns = P.rolling_volatility(ctx, P.compute_returns(ctx, frame), window=20)
    assert from_returns["AAA"].iloc[0] == pytest.approx(expected)


def test_drawdown_and_max_drawdown_on_a_known_path(ctx) -> None:
    frame = series([100, 120, 90, 130, 65, 140, 100])
    dd = PF.drawdown(ctx, frame)
    assert dd["X"].round(10).tolist() == [0, 0, -25, 0, -50, 0, pytest.approx(-100 * 40 / 140)]
    table = PF.max_drawdown(ctx, frame)
    row = table.loc["X"]
    assert row["max_drawdown_pct"] == pytest.approx(-50)
    assert row["peak_date"] == frame.index[3].date() and row["trough_date"] == frame.index[4].date()
    assert row["recovery_date"] == frame.index[5].date()
    falling = PF.max_drawdown(ctx, series([100, 90, 80]))
    assert falling.loc["X", "recovery_date"] is None
    assert falling.loc["X", "max_drawdown_pct"] == pytest.approx(-20)


def test_resample_normalize_rolling_mean_and_spread(ctx) -> None:
    frame = prices(70)
    monthly = P.resample(ctx, frame, freq="monthly")
    assert monthly.index[0] == frame.loc["2019-01"].index[-1]
    assert monthly["AAA"].iloc[0] == frame.loc["2019-01", "AAA"].iloc[-1]
    mean = P.resample(ctx, frame, freq="monthly", how="mean")
    assert mean["BBB"].iloc[1] == pytest.approx(frame.loc["2019-02", "BBB"].mean())
    norm = P.normalize(ctx, frame)
    assert norm.iloc[0].tolist() == [100.0, 100.0]
    assert norm["AAA"].iloc[-1] == pytest.approx(100 * frame["AAA"].iloc[-1] / frame["AAA"].iloc[0])
    ma = P.rolling_mean(ctx, frame, window=5)
    assert ma["AAA"].iloc[0] == pytest.approx(frame["AAA"].iloc[:5].mean())
    diff = P.spread(ctx, frame, "AAA", "bbb")
    assert diff.columns.tolist() == ["AAA-BBB"]
    assert diff.iloc[3, 0] == pytest.approx(frame["AAA"].iloc[3] - frame["BBB"].iloc[3])


def test_resample_ohlcv_aggregates_each_field(ctx) -> None:
    index = pd.bdate_range("2021-03-01", periods=10, name="date")  # two full weeks
    frame = pd.DataFrame(
        {
            "open": np.arange(10) + 1.0,
            "high": np.arange(10) + 5.0,
            "low": np.arange(10) - 5.0,
            "close": np.arange(10) + 2.0,
            "volume": np.full(10, 100.0),
        },
        index=index,
    )
    weekly = P.resample(ctx, F.tag(frame, kind="ohlcv"), freq="weekly")
    first = weekly.iloc[0]
    assert (first["open"], first["high"], first["low"], first["close"], first["volume"]) == (
        1.0, 9.0, -5.0, 6.0, 500.0,
    )  # fmt: skip
    assert weekly.index[0] == pd.Timestamp("2021-03-05")


def test_annualized_return_sharpe_and_beta(ctx) -> None:
    frame = series([100.0, 200.0], start="2020-01-01", freq="731D")  # two years and a day
    cagr = PF.annualized_return(ctx, frame)
    assert cagr.loc["X", "annualized_return_pct"] == pytest.approx((2 ** (365.25 / 731) - 1) * 100)
    # The base and the last value it was measured between, with their dates, as a period
    # return states them: an answer can say where the rate starts.
    assert cagr.loc["X", ["start_value", "end_value"]].tolist() == [100.0, 200.0]
    assert str(cagr.loc["X", "start_date"]) == "2020-01-01"
    assert str(cagr.loc["X", "end_date"]) == str(frame.index[-1].date())

    rng = np.random.default_rng(5)
    market = rng.normal(0.0005, 0.01, 300)
    index = pd.bdate_range("2021-01-01", periods=301, name="date")
    levels = pd.DataFrame(
        {
            "MKT": 100 * np.cumprod(np.r_[1, 1 + market]),
            "TWO": 100 * np.cumprod(np.r_[1, 1 + 2 * market]),
        },
        index=index,
    )
    levels = F.tag(levels, kind="timeseries", unit="USD")
    beta = PF.beta(ctx, levels, market="mkt")
    assert beta.loc["TWO", "beta"] == pytest.approx(2.0)
    assert beta.loc["TWO", "r2"] == pytest.approx(1.0)
    sharpe = PF.sharpe_ratio(ctx, levels)
    daily = levels["MKT"].pct_change().dropna()
    assert sharpe.loc["MKT", "sharpe"] == pytest.approx(daily.mean() / daily.std() * math.sqrt(252))


def test_frame_operations(ctx) -> None:
    a, b = prices(10), prices(12, seed=1)
    b = F.tag(b.rename(columns={"AAA": "CCC"}), kind="timeseries", unit="USD", sources=["other"])
    merged = F.merge_frames(ctx, [a, b])
    assert merged.columns.tolist() == ["AAA", "BBB", "CCC", "BBB_2"] and len(merged) == 12
    assert merged.attrs["sources"] == ["other", "test"]
    inner = F.merge_frames(ctx, [a, b], how="inner")
    assert len(inner) == 10
    assert F.select_columns(ctx, merged, ["ccc", "AAA"]).columns.tolist() == ["CCC", "AAA"]
    with pytest.raises(InterfaceError, match="has no column 'ZZZ'; it has: AAA"):
        F.select_columns(ctx, merged, ["ZZZ"])
    window = F.filter_dates(ctx, a, start=date(2019, 1, 3), end=date(2019, 1, 8))
    assert window.index.min() == pd.Timestamp("2019-01-03") and len(window) == 4
    with pytest.raises(InterfaceError, match="2019-01-01 to 2019-01-14"):
        F.filter_dates(ctx, a, start=date(2025, 1, 1))
    table = F.tag(
        pd.DataFrame({"return_pct": [5.0, -2.0, 12.0]}, index=list("ABC")), kind="cross_section"
    )
    assert F.filter_rows(ctx, table, "return_pct", ">", 0).index.tolist() == ["A", "C"]
    assert F.head_rows(ctx, a, 3, last=True).index[-1] == a.index[-1]


def test_errors_name_the_problem(ctx) -> None:
    table = F.tag(pd.DataFrame({"v": [1.0]}, index=["A"]), kind="cross_section")
    with pytest.raises(InterfaceError, match="not a time series"):
        P.compute_returns(ctx, table)
    with pytest.raises(InterfaceError, match="no rows"):
        PF.drawdown(ctx, series([1.0]).iloc[:0])
    with pytest.raises(InterfaceError, match="window"):
        P.rolling_volatility(ctx, prices(10), window=30)
