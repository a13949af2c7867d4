"""Finance conventions of the interface library, checked against the source files with pandas.

Each expected number is computed here straight from the package that ships the data (skfolio's
S&P 500 datasets, arch's Fama–French factors, bokeh-sampledata's stocks, statsmodels' macrodata),
never with the project's own functions.
"""

from __future__ import annotations

import importlib.resources
from datetime import date

import numpy as np
import pandas as pd
import pytest

from datapilot.interfaces import frame as F
from datapilot.interfaces import performance as PF
from datapilot.interfaces import prediction as PR
from datapilot.interfaces import prices as PX
from datapilot.interfaces import processing as P
from datapilot.interfaces.context import InterfaceContext


@pytest.fixture()
def ctx(data) -> InterfaceContext:
    return InterfaceContext(
        warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30)
    )


@pytest.fixture(scope="module")
def stocks() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()


@pytest.fixture(scope="module")
def sp500() -> pd.Series:
    from skfolio.datasets import load_sp500_index

    series = load_sp500_index()["SP500"]
    series.index = pd.DatetimeIndex(series.index).as_unit("ns")
    return series


@pytest.fixture(scope="module")
def french() -> pd.DataFrame:
    from arch.data import frenchdata

    frame = frenchdata.load()
    # The shipped loader reads the YYYYMM column as nanoseconds; rebuild the months.
    months = pd.PeriodIndex([str(v) for v in frame.index.asi8], freq="M")
    frame.index = months.to_timestamp()
    return frame


def _base_and_window(
    series: pd.Series, start: str, end: str, rule: str = "before"
) -> tuple[pd.Series, pd.Series]:
    """(the base observation as a one-row series, the window's rows) by the stated rule."""
    stamp = pd.Timestamp(start)
    before = series.loc[series.index < stamp] if rule == "before" else series.loc[:stamp]
    return before.iloc[-1:], series.loc[start:end]


# --- the base of a return (C1) -------------------------------------------------------------------


def test_a_calendar_year_return_starts_from_the_previous_year_end_close(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2021, 1, 1), date(2021, 12, 31), field="adj_close")
    base, inside = _base_and_window(stocks["AAPL"], "2021-01-01", "2021-12-31")
    # The frame holds only the window; the base rides in attrs.
    assert frame.index[0] == inside.index[0] and len(frame) == len(inside)
    assert frame.attrs["base"]["AAPL"] == {
        "date": base.index[0].date().isoformat(),
        "value": pytest.approx(base.iloc[0]),
    }
    table = P.period_return(ctx, frame)
    expected = (inside.iloc[-1] / base.iloc[0] - 1) * 100
    assert table.loc["AAPL", "return_pct"] == pytest.approx(expected)
    assert table.loc["AAPL", "start_date"] == date(2020, 12, 31)
    assert round(table.loc["AAPL", "return_pct"], 2) == 34.65  # as vendors quote it
    # Full precision in the frame: rounding is the summary's job.
    assert table.loc["AAPL", "return_pct"] != round(table.loc["AAPL", "return_pct"], 2)


def test_year_to_date_and_cross_section_agree_on_the_base(ctx, stocks) -> None:
    ids = ["JPM", "BAC", "XOM"]
    cross = P.cross_section_returns(ctx, ids, date(2022, 1, 1), date(2022, 12, 28))
    for entity_id in ids:
        base, inside = _base_and_window(stocks[entity_id], "2022-01-01", "2022-12-28")
        expected = (inside.iloc[-1] / base.iloc[0] - 1) * 100
        assert cross.loc[entity_id, "return_pct"] == pytest.approx(expected)
        assert cross.loc[entity_id, "start_date"] == base.index[0].date()
    assert round(cross.loc["JPM", "return_pct"], 2) == -13.71


def test_index_return_in_2008_from_the_2007_close(ctx, sp500) -> None:
    frame = PX.get_index_levels(ctx, ["^GSPC"], date(2008, 1, 1), date(2008, 12, 31))
    base, inside = _base_and_window(sp500, "2008-01-01", "2008-12-31")
    expected = (inside.iloc[-1] / base.iloc[0] - 1) * 100
    assert P.period_return(ctx, frame).loc["^GSPC", "return_pct"] == pytest.approx(expected)
    cross = P.cross_section_returns(ctx, ["^GSPC"], date(2008, 1, 1), date(2008, 12, 31))
    assert cross.loc["^GSPC", "return_pct"] == pytest.approx(expected)
    assert round(expected, 2) == -38.49


def test_trailing_windows_start_on_or_before_their_first_day(ctx, stocks) -> None:
    # "the past 3 months" to 2022-12-28 starts on 2022-09-28, a trading day: its close is the base.
    start, end = date(2022, 9, 28), date(2022, 12, 28)
    trailing = PX.get_prices(ctx, ["MSFT"], start, end, field="adj_close", base="on_or_before")
    calendar = PX.get_prices(ctx, ["MSFT"], start, end, field="adj_close", base="before")
    on_base, inside = _base_and_window(stocks["MSFT"], "2022-09-28", "2022-12-28", "on_or_before")
    before_base, _ = _base_and_window(stocks["MSFT"], "2022-09-28", "2022-12-28", "before")
    assert trailing.attrs["base"]["MSFT"]["date"] == "2022-09-28"
    assert calendar.attrs["base"]["MSFT"]["date"] == before_base.index[0].date().isoformat()
    assert P.period_return(ctx, trailing).loc["MSFT", "return_pct"] == pytest.approx(
        (inside.iloc[-1] / on_base.iloc[0] - 1) * 100
    )
    assert P.period_return(ctx, calendar).loc["MSFT", "return_pct"] == pytest.approx(
        (inside.iloc[-1] / before_base.iloc[0] - 1) * 100
    )
    cross = P.cross_section_returns(ctx, ["MSFT"], start, end, base="on_or_before")
    assert cross.loc["MSFT", "start_date"] == start


def test_cumulative_returns_start_at_zero_on_the_base_date(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["KO", "PG"], date(2019, 1, 1), date(2019, 12, 31), "daily")
    cumulative = P.cumulative_returns(ctx, frame)
    for entity_id in ["KO", "PG"]:
        base, inside = _base_and_window(stocks[entity_id], "2019-01-01", "2019-12-31")
        assert cumulative.index[0] == base.index[0]
        assert cumulative[entity_id].iloc[0] == 0.0
        expected = (inside / base.iloc[0] - 1) * 100
        assert np.allclose(cumulative[entity_id].iloc[1:].to_numpy(), expected.to_numpy())


def test_monthly_and_annual_tables_include_the_first_period(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2015, 1, 1), date(2015, 12, 31), field="adj_close")
    monthly = P.compute_returns(ctx, frame, period="monthly")
    closes = stocks["AAPL"].loc[:"2015-12-31"]
    month_ends = closes.groupby(closes.index.to_period("M")).last()
    expected = (month_ends.pct_change() * 100).loc["2015-01":"2015-12"]
    assert len(monthly) == 12 and monthly.index[0].month == 1
    assert np.allclose(monthly["AAPL"].to_numpy(), expected.to_numpy())

    years = PX.get_prices(ctx, ["AAPL"], date(2015, 1, 1), date(2020, 12, 31), field="adj_close")
    annual = P.compute_returns(ctx, years, period="annual")
    closes = stocks["AAPL"].loc[:"2020-12-31"]
    year_ends = closes.groupby(closes.index.year).last()
    expected = (year_ends.pct_change() * 100).loc[2015:2020]
    assert annual.index.year.tolist() == list(range(2015, 2021))
    assert np.allclose(annual["AAPL"].to_numpy(), expected.to_numpy())


def test_a_first_week_shared_with_the_base_keeps_its_return(ctx, stocks) -> None:
    # Q2 2021 starts on Thursday 2021-04-01, in the same week as its base close (Wednesday).
    frame = PX.get_prices(ctx, ["AAPL"], date(2021, 4, 1), date(2021, 6, 30), field="adj_close")
    weekly = P.compute_returns(ctx, frame, period="weekly")["AAPL"]
    closes = stocks["AAPL"]
    first = (closes.loc["2021-04-01"] / closes.loc["2021-03-31"] - 1) * 100
    assert weekly.index[0] == pd.Timestamp("2021-04-01")
    assert weekly.iloc[0] == pytest.approx(first)
    # Compounding the weeks gives the quarter's return from the base.
    quarter = (closes.loc["2021-06-30"] / closes.loc["2021-03-31"] - 1) * 100
    assert ((1 + weekly / 100).prod() - 1) * 100 == pytest.approx(quarter)


def test_mean_daily_return_counts_the_first_day(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["MSFT"], date(2019, 1, 1), date(2019, 12, 31), field="adj_close")
    daily = P.compute_returns(ctx, frame)
    closes = stocks["MSFT"].loc[:"2019-12-31"]
    expected = (closes.pct_change() * 100).loc["2019-01-01":]
    assert len(daily) == len(expected) and daily.index[0] == expected.index[0]
    assert P.mean(ctx, daily).loc["MSFT", "mean"] == pytest.approx(expected.mean())


def test_fama_french_factors_are_compounded_not_treated_as_levels(ctx, french) -> None:
    frame = PX.get_series(ctx, ["FF_HML"], date(2000, 1, 1), date(2010, 12, 31))
    assert frame.attrs["measure"] == "returns"
    hml = french["HML"]
    expected = ((1 + hml.loc["2000-01":"2010-12"] / 100).prod() - 1) * 100
    cumulative = P.cumulative_returns(ctx, frame)["FF_HML"]
    assert cumulative.iloc[-1] == pytest.approx(expected)
    assert round(expected, 2) == 90.97
    assert cumulative.index[0] == pd.Timestamp("1999-12-01") and cumulative.iloc[0] == 0.0
    assert P.period_return(ctx, frame).loc["FF_HML", "return_pct"] == pytest.approx(expected)
    yearly = P.compute_returns(ctx, frame, period="annual")["FF_HML"]
    compounded = (1 + hml.loc["2000-01":"2010-12"] / 100).groupby(lambda d: d.year).prod() - 1
    assert np.allclose(yearly.to_numpy(), compounded.to_numpy() * 100)
    annual = PX.get_series(ctx, ["FF_HML"], date(2000, 1, 1), date(2010, 12, 31), freq="annual")
    assert np.allclose(annual["FF_HML"].to_numpy(), compounded.to_numpy() * 100)


def test_quarterly_series_growth_over_a_year_starts_from_the_previous_quarter(ctx) -> None:
    import statsmodels.api as sm

    macro = sm.datasets.macrodata.load_pandas().data
    gdp = macro.set_index(
        pd.PeriodIndex.from_fields(
            year=macro["year"].astype(int), quarter=macro["quarter"].astype(int), freq="Q"
        ).to_timestamp()
    )["realgdp"]
    frame = PX.get_series(ctx, ["GDPC1"], date(2008, 1, 1), date(2008, 12, 31))
    assert "measure" not in frame.attrs
    assert frame.attrs["base"]["GDPC1"]["date"] == "2007-10-01"
    expected = (gdp.loc["2008-10-01"] / gdp.loc["2007-10-01"] - 1) * 100
    assert P.period_return(ctx, frame).loc["GDPC1", "return_pct"] == pytest.approx(expected)


def test_ohlcv_carries_the_previous_close_as_its_base(ctx) -> None:
    path = importlib.resources.files("bokeh_sampledata") / "_data" / "stocks.csv.gz"
    with importlib.resources.as_file(path) as file:
        rows = pd.read_csv(file, parse_dates=["Date"])
    ibm = rows[rows["Ticker"] == "IBM"].set_index("Date").sort_index()["Close"]
    frame = PX.get_ohlcv(ctx, "IBM", date(2012, 1, 1), date(2012, 3, 30))
    base, inside = _base_and_window(ibm, "2012-01-01", "2012-03-30")
    assert frame.attrs["base"]["IBM"]["value"] == pytest.approx(base.iloc[0])
    assert P.period_return(ctx, frame).loc["IBM", "return_pct"] == pytest.approx(
        (inside.iloc[-1] / base.iloc[0] - 1) * 100
    )


def test_returns_across_a_split_use_one_adjusted_source(ctx, stocks, sp500) -> None:
    # Apple split 2:1 in February 2005; bokeh-sampledata has its traded bars that year, but the
    # adjusted close (and so the return) is skfolio's, for the stock and the index alike.
    frame = PX.get_prices(
        ctx, ["AAPL", "^GSPC"], date(2005, 1, 1), date(2005, 12, 31), field="adj_close"
    )
    table = P.period_return(ctx, frame)
    for entity_id, series in (("AAPL", stocks["AAPL"]), ("^GSPC", sp500)):
        base, inside = _base_and_window(series, "2005-01-01", "2005-12-31")
        expected = (inside.iloc[-1] / base.iloc[0] - 1) * 100
        assert table.loc[entity_id, "return_pct"] == pytest.approx(expected)
    assert "skfolio" in frame.attrs["sources"]


def test_an_entity_listed_inside_the_window_starts_from_its_first_close(ctx) -> None:
    path = importlib.resources.files("bokeh_sampledata") / "_data" / "stocks.csv.gz"
    with importlib.resources.as_file(path) as file:
        rows = pd.read_csv(file, parse_dates=["Date"])
    fb = rows[rows["Ticker"] == "FB"].set_index("Date").sort_index()["Adj Close"]
    frame = PX.get_prices(ctx, ["FB"], date(2012, 1, 1), date(2012, 12, 31), field="adj_close")
    assert "FB" not in frame.attrs["base"]  # listed in May 2012
    table = P.period_return(ctx, frame)
    inside = fb.loc["2012-01-01":"2012-12-31"]
    assert table.loc["FB", "start_date"] == inside.index[0].date()
    expected = (inside.iloc[-1] / inside.iloc[0] - 1) * 100
    assert table.loc["FB", "return_pct"] == pytest.approx(expected)


def test_merged_frames_keep_each_columns_base(ctx, stocks) -> None:
    window = (date(2021, 1, 1), date(2021, 12, 31))
    a = PX.get_prices(ctx, ["AAPL"], *window, field="adj_close")
    b = PX.get_index_levels(ctx, ["^GSPC"], *window)
    merged = F.merge_frames(ctx, [a, b])
    assert set(merged.attrs["base"]) == {"AAPL", "^GSPC"}
    base, inside = _base_and_window(stocks["AAPL"], "2021-01-01", "2021-12-31")
    assert P.period_return(ctx, merged).loc["AAPL", "return_pct"] == pytest.approx(
        (inside.iloc[-1] / base.iloc[0] - 1) * 100
    )


# --- measures from the base (C1, C2) -------------------------------------------------------------


def test_annualized_return_is_the_cagr_from_the_base(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["PEP"], date(2015, 1, 1), date(2020, 12, 31), field="adj_close")
    base, inside = _base_and_window(stocks["PEP"], "2015-01-01", "2020-12-31")
    years = (inside.index[-1] - base.index[0]).days / 365.25
    expected = ((inside.iloc[-1] / base.iloc[0]) ** (1 / years) - 1) * 100
    table = PF.annualized_return(ctx, frame)
    assert table.loc["PEP", "annualized_return_pct"] == pytest.approx(expected)


def test_max_drawdown_counts_a_fall_from_the_base_close(ctx, stocks) -> None:
    # Apple's October 2022 close was above every close of November 2022.
    frame = PX.get_prices(ctx, ["AAPL"], date(2022, 11, 1), date(2022, 11, 30), field="adj_close")
    base, inside = _base_and_window(stocks["AAPL"], "2022-11-01", "2022-11-30")
    closes = pd.concat([base, inside])
    expected = (closes / closes.cummax() - 1).min() * 100
    assert expected < (inside / inside.cummax() - 1).min() * 100  # the base matters here
    table = PF.max_drawdown(ctx, frame)
    assert table.loc["AAPL", "max_drawdown_pct"] == pytest.approx(expected)
    assert table.loc["AAPL", "peak_date"] == base.index[0].date()
    assert table.loc["AAPL", "peak_value"] == pytest.approx(base.iloc[0])  # the base's close
    assert table.loc["AAPL", "trough_value"] == pytest.approx(closes.min())


def test_annualized_volatility_of_daily_returns(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["XOM"], date(2020, 1, 1), date(2020, 12, 31), field="adj_close")
    closes = stocks["XOM"].loc[:"2020-12-31"]
    returns = closes.pct_change().loc["2020-01-01":]
    table = PF.annualized_volatility(ctx, frame)
    assert table.loc["XOM", "annualized_volatility_pct"] == pytest.approx(
        returns.std(ddof=1) * np.sqrt(252) * 100
    )
    assert table.loc["XOM", "observations"] == len(returns)
    assert table.loc["XOM", "end_date"] == date(2020, 12, 31)


def test_extreme_days_include_the_first_day_of_the_window(ctx, stocks) -> None:
    # 2020-03-16, Apple's worst day of 2020, is the first day of this window.
    frame = PX.get_prices(ctx, ["AAPL"], date(2020, 3, 16), date(2020, 6, 30), field="adj_close")
    closes = stocks["AAPL"].loc[:"2020-06-30"]
    returns = (closes.pct_change() * 100).loc["2020-03-16":]
    worst = PF.extreme_days(ctx, frame, n=2, which="worst")
    assert worst["date"].tolist() == [d.date() for d in returns.nsmallest(2).index]
    assert worst["return_pct"].tolist() == pytest.approx(returns.nsmallest(2).tolist())
    assert worst["date"].iloc[0] == date(2020, 3, 16) and worst["rank"].tolist() == [1, 2]
    assert worst.index.tolist() == ["AAPL", "AAPL"]
    both = PF.extreme_days(ctx, frame, n=1, which="both")
    assert both.set_index("group").loc["best", "return_pct"] == pytest.approx(returns.max())


def test_investment_growth_starts_at_the_amount_on_the_base_date(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["LLY"], date(2021, 1, 1), date(2021, 12, 31), field="adj_close")
    base, inside = _base_and_window(stocks["LLY"], "2021-01-01", "2021-12-31")
    grown = PF.investment_growth(ctx, frame, amount=10000)
    assert grown.index[0] == base.index[0] and grown["LLY"].iloc[0] == pytest.approx(10000)
    assert grown["LLY"].iloc[-1] == pytest.approx(10000 * inside.iloc[-1] / base.iloc[0])
    assert grown.attrs["unit"] == "USD"


def test_top_bottom_splits_a_cross_section(ctx, stocks) -> None:
    ids = ["AAPL", "MSFT", "JPM", "XOM", "KO", "PFE", "WMT"]
    cross = P.cross_section_returns(ctx, ids, date(2021, 1, 1), date(2021, 12, 31))
    out = PF.top_bottom(ctx, cross, n=2)
    before = stocks.loc[:"2020-12-31", ids].iloc[-1]
    after = stocks.loc[:"2021-12-31", ids].iloc[-1]
    expected = (after / before - 1).sort_values()
    assert out[out["group"] == "top"].index.tolist() == expected.index[::-1][:2].tolist()
    assert out[out["group"] == "bottom"].index.tolist() == expected.index[:2].tolist()
    assert out["rank"].tolist() == [1, 2, 1, 2]


def test_sharpe_ratio_says_which_risk_free_rate_it_used(ctx, stocks) -> None:
    frame = PX.get_prices(ctx, ["UNH"], date(2019, 1, 1), date(2019, 12, 31), field="adj_close")
    table = PF.sharpe_ratio(ctx, frame, risk_free=2.0)
    assert table.attrs["risk_free"] == 2.0 and "2%" in table.attrs["title"]
    returns = stocks["UNH"].loc[:"2019-12-31"].pct_change().loc["2019-01-01":]
    excess = returns - 0.02 / 252  # the README's convention: r/252 a trading day
    assert table.loc["UNH", "sharpe"] == pytest.approx(excess.mean() / returns.std() * np.sqrt(252))


# --- forecasts on trading days -------------------------------------------------------------------


def test_daily_forecasts_skip_exchange_holidays(ctx) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2022, 6, 1), date(2022, 12, 28), field="adj_close")
    out = PR.forecast_naive(ctx, frame, horizon=5)
    # NYSE was closed on Monday 2023-01-02 (New Year's Day observed).
    expected = ["2022-12-29", "2022-12-30", "2023-01-03", "2023-01-04", "2023-01-05"]
    assert [d.date().isoformat() for d in out.index] == expected


def test_trading_days_follow_each_exchange_calendar() -> None:
    history = pd.bdate_range("2023-09-01", "2023-09-28", name="date")
    # Shanghai closed for the Mid-Autumn and National Day holidays, 2023-09-29 to 2023-10-06.
    shanghai = F.next_dates(history, 2, "XSHG")
    assert [d.date().isoformat() for d in shanghai] == ["2023-10-09", "2023-10-10"]
    new_york = F.next_dates(history, 2, "XNYS")
    assert [d.date().isoformat() for d in new_york] == ["2023-09-29", "2023-10-02"]
    # No calendar (a macro series read daily): business days.
    assert F.next_dates(history, 1)[0] == pd.Timestamp("2023-09-29")
