"""Acquisition interfaces on the bundled warehouse, checked against the packages' own files."""

from __future__ import annotations

import importlib.resources
import statistics
import time
from datetime import date

import numpy as np
import pandas as pd
import pytest
from support.numeric_expect import source_frame

from datapilot.interfaces import InterfaceError
from datapilot.interfaces import client_tables as CT
from datapilot.interfaces import indicators as TI
from datapilot.interfaces import prices as PX
from datapilot.interfaces import processing as P
from datapilot.interfaces import reference as RD
from datapilot.interfaces.context import InterfaceContext


@pytest.fixture()
def ctx(data) -> InterfaceContext:
    return InterfaceContext(
        warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30)
    )


@pytest.fixture(scope="module")
def skfolio_closes() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()


@pytest.fixture(scope="module")
def bokeh_stocks() -> pd.DataFrame:
    path = importlib.resources.files("bokeh_sampledata") / "_data" / "stocks.csv.gz"
    with importlib.resources.as_file(path) as file:
        frame = pd.read_csv(file, parse_dates=["Date"])
    return frame


def ibm(bokeh_stocks: pd.DataFrame) -> pd.DataFrame:
    rows = bokeh_stocks[bokeh_stocks["Ticker"] == "IBM"].set_index("Date").sort_index()
    return rows.rename(columns=str.lower)


# --- prices --------------------------------------------------------------------------------------


def test_cumulative_return_of_apple_matches_the_skfolio_file(ctx, skfolio_closes) -> None:
    frame = PX.get_prices(ctx, ["AAPL"], date(2020, 1, 1), date(2021, 6, 30))
    assert frame.attrs["title"] == "Close (adjusted)" and frame.attrs["unit"] == "USD"
    assert "skfolio" in frame.attrs["sources"] and "skfolio" in ctx.sources
    expected = skfolio_closes.loc["2020-01-01":"2021-06-30", "AAPL"]
    assert frame.index[0] == expected.index[0] and frame.index[-1] == expected.index[-1]
    # Changed: a return "since 2020" starts from the last close before the window (2019-12-31),
    # as vendors quote it, no longer from the window's first close.
    base = skfolio_closes.loc[:"2019-12-31", "AAPL"]
    cumulative = P.cumulative_returns(ctx, frame)["AAPL"]
    assert cumulative.index[0] == base.index[-1] and cumulative.iloc[0] == 0.0
    assert cumulative.iloc[-1] == pytest.approx((expected.iloc[-1] / base.iloc[-1] - 1) * 100)


def test_close_is_raw_where_the_source_has_it(ctx, bokeh_stocks) -> None:
    frame = PX.get_prices(ctx, ["IBM"], date(2012, 1, 1), date(2012, 3, 31))
    assert frame.attrs["title"] == "Close"
    raw = ibm(bokeh_stocks).loc["2012-01-01":"2012-03-31", "close"]
    assert frame["IBM"].to_numpy() == pytest.approx(raw.to_numpy())


def test_monthly_prices_are_month_end_closes(ctx, skfolio_closes) -> None:
    frame = PX.get_prices(ctx, ["JPM", "BAC"], date(2020, 1, 1), date(2020, 12, 31), freq="monthly")
    assert len(frame) == 12 and frame.columns.tolist() == ["JPM", "BAC"]
    march = skfolio_closes.loc["2020-03", "JPM"]
    assert frame.index[2] == march.index[-1]
    assert frame["JPM"].iloc[2] == pytest.approx(march.iloc[-1], abs=1e-3)


def test_index_levels_and_volume(ctx) -> None:
    levels = PX.get_index_levels(ctx, ["^GSPC", "^IXIC"], date(2008, 1, 1), date(2008, 12, 31))
    assert levels.attrs["unit"] == "index points"
    assert levels["^GSPC"].min() < 800 < levels["^GSPC"].max()  # the 2008 crash is in the data
    volume = PX.get_prices(ctx, ["IBM"], date(2012, 1, 1), date(2012, 1, 31), field="volume")
    assert volume.attrs["unit"] == "shares" and (volume["IBM"] > 1e6).all()


def test_prices_outside_the_data_say_where_data_are(ctx) -> None:
    with pytest.raises(InterfaceError, match=r"IBM has data from 2000-03-01 to 2013-03-01"):
        PX.get_prices(ctx, ["IBM"], date(2020, 1, 1), date(2020, 12, 31))
    frame = PX.get_prices(ctx, ["IBM", "MSFT"], date(2020, 1, 1), date(2020, 3, 31))
    assert frame.columns.tolist() == ["MSFT"] and "IBM" in ctx.notes[-1]


def test_unknown_unavailable_and_wrong_kind_ids_are_explained(ctx) -> None:
    with pytest.raises(InterfaceError, match=r"Unknown entity 'Appel'.*AAPL"):
        PX.get_prices(ctx, ["Appel"])
    unavailable = [e for e in ctx.catalog.entities(kind="stock", available=False)][:1]
    if unavailable:
        with pytest.raises(InterfaceError, match="no data in the local warehouse"):
            PX.get_prices(ctx, [unavailable[0].id])
    with pytest.raises(InterfaceError, match=r"macro series.*get_series"):
        PX.get_prices(ctx, ["UNRATE"])
    with pytest.raises(InterfaceError, match=r"stock.*get_prices"):
        PX.get_index_levels(ctx, ["AAPL"])


def test_ohlcv_of_ibm_matches_the_bokeh_file(ctx, bokeh_stocks) -> None:
    frame = PX.get_ohlcv(ctx, "IBM", date(2011, 12, 30), date(2012, 6, 30))
    assert frame.columns.tolist() == ["open", "high", "low", "close", "volume"]
    assert frame.attrs["kind"] == "ohlcv" and frame.attrs["entity"] == "IBM"
    assert frame.attrs["sources"] == ["bokeh-sampledata"]
    source = ibm(bokeh_stocks).loc["2011-12-30":"2012-06-30"]
    assert frame["high"].to_numpy() == pytest.approx(source["high"].to_numpy())
    assert frame["volume"].sum() == pytest.approx(source["volume"].sum())


def test_ohlcv_without_ohlc_names_the_years_that_have_it(ctx) -> None:
    with pytest.raises(InterfaceError, match=r"AAPL has no open/high/low/close.*2000–2013"):
        PX.get_ohlcv(ctx, "AAPL", date(2021, 1, 1), date(2021, 6, 30))
    with pytest.raises(InterfaceError, match="JPM has no open/high/low/close"):
        PX.get_ohlcv(ctx, "JPM", date(2021, 1, 1))


# --- series --------------------------------------------------------------------------------------


def test_series_match_statsmodels_macrodata(ctx) -> None:
    import statsmodels.api as sm

    macro = sm.datasets.macrodata.load_pandas().data
    frame = PX.get_series(ctx, ["UNRATE", "GDPC1"], date(1990, 1, 1), date(1999, 12, 31))
    assert frame.index[0] == pd.Timestamp("1990-01-01") and len(frame) == 40
    nineties = macro[(macro["year"] >= 1990) & (macro["year"] <= 1999)]
    assert frame["UNRATE"].to_numpy() == pytest.approx(nineties["unemp"].to_numpy())
    assert frame["GDPC1"].to_numpy() == pytest.approx(nineties["realgdp"].to_numpy())
    assert frame.attrs["units"]["UNRATE"] and "statsmodels" in frame.attrs["sources"]
    annual = PX.get_series(ctx, ["UNRATE"], date(1990, 1, 1), date(1999, 12, 31), freq="annual")
    assert len(annual) == 10
    assert annual["UNRATE"].iloc[0] == pytest.approx(nineties["unemp"].iloc[3])  # Q4 value


def test_series_asked_again_come_from_memory_with_their_notes_and_sources(data) -> None:
    window = (date(1995, 1, 1), date(1999, 12, 31))

    def asked() -> tuple[pd.DataFrame, InterfaceContext]:
        fresh = InterfaceContext(
            warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30)
        )
        return PX.get_series(fresh, ["UNRATE", "FF_SMB"], *window, freq="annual"), fresh

    first, first_ctx = asked()
    again, again_ctx = asked()
    pd.testing.assert_frame_equal(again, first)
    assert again.attrs == first.attrs
    # Levels beside returns in %: the warning reaches the repeated request too.
    assert again_ctx.notes == first_ctx.notes
    assert any("returns in % and some are levels" in note for note in again_ctx.notes)
    assert again_ctx.sources == first_ctx.sources and again_ctx.sources
    again.loc[again.index[0], "UNRATE"] = -1.0
    third, _ = asked()
    pd.testing.assert_frame_equal(third, first)
    # Beside a level series, the factor's returns still compound within each year (from the
    # monthly returns of arch's own file), and the unemployment rate keeps each year's last value.
    monthly = source_frame("arch_french").loc["1995-01-01":"1999-12-31", "FF_SMB"]
    compounded = ((1 + monthly / 100).groupby(monthly.index.year).prod() - 1) * 100
    assert third["FF_SMB"].to_numpy() == pytest.approx(compounded.to_numpy())
    quarterly = source_frame("statsmodels_macro").loc["1995-01-01":"1999-12-31", "UNRATE"]
    assert third["UNRATE"].to_numpy() == pytest.approx(quarterly.iloc[3::4].to_numpy())  # Q4s


def test_series_reject_price_entities(ctx) -> None:
    with pytest.raises(InterfaceError, match=r"stock.*get_prices"):
        PX.get_series(ctx, ["AAPL"])


# --- indicators ----------------------------------------------------------------------------------

WINDOW = (date(2012, 1, 1), date(2012, 6, 30))


def test_moving_averages_are_warmed_up_and_match_rolling_means(ctx, bokeh_stocks) -> None:
    frame = TI.get_ma(ctx, "IBM", *WINDOW, windows=[5, 60])
    close = ibm(bokeh_stocks)["close"]
    assert frame.index[0] == pd.Timestamp("2012-01-03") and frame.notna().all().all()
    expected = close.rolling(60).mean().loc["2012-01-01":"2012-06-30"]
    assert frame["ma60"].to_numpy() == pytest.approx(expected.to_numpy())
    assert frame.attrs["overlay"] is True and frame.attrs["entity"] == "IBM"


def test_rsi_matches_a_hand_rolled_wilder_formula(ctx, bokeh_stocks) -> None:
    frame = TI.get_rsi(ctx, "IBM", *WINDOW, window=14)
    close = ibm(bokeh_stocks)["close"].loc["2011-01-01":"2012-06-30"].to_numpy()
    change = np.diff(close)
    gains, losses = np.clip(change, 0, None), np.clip(-change, 0, None)
    average_gain, average_loss = gains[:14].mean(), losses[:14].mean()
    for gain, loss in zip(gains[14:], losses[14:], strict=True):
        average_gain = (average_gain * 13 + gain) / 14
        average_loss = (average_loss * 13 + loss) / 14
    wilder = 100 - 100 / (1 + average_gain / average_loss)
    assert frame["rsi"].iloc[-1] == pytest.approx(wilder, abs=0.01)
    assert frame["rsi"].between(0, 100).all() and frame.attrs["levels"] == [30, 70]


def test_macd_matches_exponential_averages(ctx, bokeh_stocks) -> None:
    frame = TI.get_macd(ctx, "IBM", *WINDOW)
    close = ibm(bokeh_stocks)["close"].loc["2010-01-01":"2012-06-30"]
    line = close.ewm(span=12, adjust=False).mean() - close.ewm(span=26, adjust=False).mean()
    signal = line.ewm(span=9, adjust=False).mean()
    assert frame["macd"].iloc[-1] == pytest.approx(line.iloc[-1], abs=0.01)
    assert frame["signal"].iloc[-1] == pytest.approx(signal.iloc[-1], abs=0.01)
    assert (frame["hist"] - (frame["macd"] - frame["signal"])).abs().max() < 1e-9
    assert frame.attrs["bar_columns"] == ["hist"] and frame.notna().all().all()


def test_kdj_relations_and_smoothing(ctx, bokeh_stocks) -> None:
    frame = TI.get_kdj(ctx, "IBM", *WINDOW)
    assert (frame["j"] - (3 * frame["k"] - 2 * frame["d"])).abs().max() < 1e-9
    assert frame[["k", "d"]].stack().between(0, 100).all()
    rows = ibm(bokeh_stocks).loc["2011-06-01":"2012-06-30"]
    low, high = rows["low"].rolling(9).min(), rows["high"].rolling(9).max()
    rsv = ((rows["close"] - low) / (high - low) * 100).dropna()
    k = d = 50.0
    for value in rsv:
        k = 2 / 3 * k + value / 3
        d = 2 / 3 * d + k / 3
    assert frame["k"].iloc[-1] == pytest.approx(k, abs=0.05)
    assert frame["d"].iloc[-1] == pytest.approx(d, abs=0.05)


def test_bollinger_bands_match_rolling_mean_and_std(ctx, bokeh_stocks) -> None:
    frame = TI.get_boll(ctx, "IBM", *WINDOW, window=20, width=2.0)
    close = ibm(bokeh_stocks)["close"]
    middle = close.rolling(20).mean().loc["2012-01-01":"2012-06-30"]
    std = close.rolling(20).std(ddof=0).loc["2012-01-01":"2012-06-30"]
    assert frame["middle"].to_numpy() == pytest.approx(middle.to_numpy())
    assert frame["upper"].to_numpy() == pytest.approx((middle + 2 * std).to_numpy())
    assert (frame["lower"] <= frame["middle"]).all() and "close" in frame.columns


def test_cci_matches_its_definition(ctx, bokeh_stocks) -> None:
    frame = TI.get_cci(ctx, "IBM", *WINDOW, window=14)
    rows = ibm(bokeh_stocks)
    typical = (rows["high"] + rows["low"] + rows["close"]) / 3
    last = typical.loc[:"2012-06-30"].iloc[-14:]
    deviation = (last - last.mean()).abs().mean()
    assert frame["cci"].iloc[-1] == pytest.approx(
        (last.iloc[-1] - last.mean()) / (0.015 * deviation)
    )


def test_indicators_needing_high_low_explain_missing_ohlc(ctx) -> None:
    with pytest.raises(InterfaceError, match="open/high/low/close"):
        TI.get_kdj(ctx, "JPM", date(2021, 1, 1), date(2021, 6, 30))
    rsi = TI.get_rsi(ctx, "JPM", date(2021, 1, 1), date(2021, 6, 30))  # close is enough
    assert rsi["rsi"].notna().all()


# --- reference data ------------------------------------------------------------------------------


def test_company_info_list_and_constituents(ctx) -> None:
    info = RD.get_company_info(ctx, "aapl")
    assert info.index.tolist() == ["AAPL"] and info.loc["AAPL", "kind"] == "stock"
    assert "苹果" in info.loc["AAPL", "aliases"] and info.loc["AAPL", "first"] <= date(1990, 1, 2)
    indices = RD.list_entities(ctx, kind="index")
    assert {"^GSPC", "^IXIC", "^VIX"} <= set(indices.index)
    members = RD.get_constituents(ctx, "^GSPC")
    assert {"AAPL", "JPM", "XOM"} <= set(members.index) and "^GSPC" not in members.index
    assert "bundled" in ctx.notes[-1]
    with pytest.raises(InterfaceError, match="only for \\^GSPC"):
        RD.get_constituents(ctx, "^IXIC")


def test_live_only_data_are_explained_offline(ctx) -> None:
    with pytest.raises(InterfaceError, match="live provider"):
        RD.get_fundamentals(ctx, "AAPL")
    with pytest.raises(InterfaceError, match="live provider"):
        RD.get_news(ctx, "AAPL")
    with pytest.raises(InterfaceError, match=r"ETF.*get_prices"):
        RD.get_fund_nav(ctx, "MTUM")
    for fund in ctx.catalog.entities(kind="fund")[:1]:
        with pytest.raises(InterfaceError, match="live provider"):
            RD.get_fund_nav(ctx, fund.id)


def test_client_tables_become_typed_frames(ctx) -> None:
    ctx.tables["Price widget"] = pd.DataFrame(
        {
            "Date": ["2024-01-03", "2024-01-02", "2024-01-04"],
            "Close": ["1,010.5", "1,000.0", "990.25"],
            "Change": ["1.05%", "", "-2.00%"],
        }
    )
    frame = CT.get_client_table(ctx, "price widget")
    assert isinstance(frame.index, pd.DatetimeIndex) and frame.index.is_monotonic_increasing
    assert frame["Close"].tolist() == [1000.0, 1010.5, 990.25]
    assert frame["Change"].iloc[1] == pytest.approx(1.05)
    returns = P.cumulative_returns(ctx, frame[["Close"]])
    assert returns["Close"].iloc[-1] == pytest.approx(-0.975)
    ctx.tables["holdings"] = pd.DataFrame({"ticker": ["AAPL", "MSFT"], "weight": [60, 40]})
    holdings = CT.get_client_table(ctx, "holdings")
    assert holdings.index.tolist() == ["AAPL", "MSFT"] and holdings.attrs["kind"] == "cross_section"
    with pytest.raises(InterfaceError, match="Price widget, holdings"):
        CT.get_client_table(ctx, "positions")


# --- many entities -------------------------------------------------------------------------------


def test_cross_section_returns_match_the_file_and_period_return(ctx, skfolio_closes) -> None:
    ids = ["AAPL", "MSFT", "XOM", "KO", "WMT"]
    table = P.cross_section_returns(ctx, ids, date(2021, 1, 1), date(2021, 12, 31))
    assert table.index.tolist() == ids
    year = skfolio_closes.loc["2020-12-31":"2021-12-31", ids]
    expected = (year.iloc[-1] / year.iloc[0] - 1) * 100
    assert table["return_pct"].to_numpy() == pytest.approx(expected.to_numpy(), abs=0.01)
    assert (table["start_date"] == date(2020, 12, 31)).all()
    assert table.attrs["sources"] == ["skfolio"] and ctx.sources == {"skfolio"}
    prices = PX.get_prices(ctx, ids, date(2020, 12, 20), date(2021, 12, 31), field="adj_close")
    one_by_one = P.period_return(ctx, prices, date(2021, 1, 1), date(2021, 12, 31))
    assert one_by_one["return_pct"].to_numpy() == pytest.approx(table["return_pct"].to_numpy())
    ranked = P.rank(ctx, table, top_k=1)
    assert ranked.index[0] == expected.idxmax()


def test_cross_section_returns_use_one_warehouse_query(ctx, monkeypatch) -> None:
    calls: list[list[str]] = []
    original = ctx.warehouse.prices

    def counting(ids, *args, **kwargs):
        calls.append(list(ids))
        return original(ids, *args, **kwargs)

    monkeypatch.setattr(ctx.warehouse, "prices", counting)
    stocks = [e.id for e in ctx.catalog.entities(kind="stock", available=True)]
    table = P.cross_section_returns(ctx, stocks, date(2021, 1, 1), date(2021, 12, 31))
    assert len(calls) == 1 and len(calls[0]) == len(stocks)
    assert len(table) >= 20  # the bokeh-only stocks end in 2013 and are noted, not failed
    assert any("No prices in the window" in note for note in ctx.notes)


def test_cross_section_returns_start_where_a_history_begins_and_skip_ended_ones(ctx) -> None:
    # FB lists on 2012-05-18, inside the window; GOOG's bundled history ends in March 2013.
    table = P.cross_section_returns(ctx, ["FB", "IBM", "GOOG"], date(2012, 1, 1), date(2013, 6, 30))
    assert table.index.tolist() == ["FB", "IBM", "GOOG"]
    later = P.cross_section_returns(ctx, ["FB", "GOOG", "KO"], date(2013, 4, 1), date(2013, 6, 30))
    assert later.index.tolist() == ["KO"] and any("FB, GOOG" in n for n in ctx.notes)
    fb = PX.get_prices(ctx, ["FB"], date(2012, 1, 1), date(2013, 6, 30), field="adj_close")["FB"]
    assert table.loc["FB", "start_date"] == date(2012, 5, 18) == fb.index[0].date()
    expected = (fb.iloc[-1] / fb.iloc[0] - 1) * 100
    assert table.loc["FB", "return_pct"] == pytest.approx(expected)


def test_a_mixed_read_equals_each_entity_read_alone(ctx) -> None:
    # AAPL has two sources (chosen per field), IBM and KO one each: one query serves them all.
    ids = ["AAPL", "IBM", "KO"]  # rows come sorted by id
    together = ctx.warehouse.prices(ids, date(2012, 12, 1), date(2013, 2, 28), freq="weekly")
    alone = [ctx.warehouse.prices([i], date(2012, 12, 1), date(2013, 2, 28), "weekly") for i in ids]
    expected = pd.concat(alone, ignore_index=True)
    pd.testing.assert_frame_equal(together.reset_index(drop=True), expected)
    assert together.attrs["sources"] == sorted({s for a in alone for s in a.attrs["sources"]})


@pytest.mark.perf
def test_prices_asked_again_come_from_memory_with_their_notes_and_sources(data) -> None:
    window = (date(2020, 1, 1), date(2020, 3, 31))

    def asked() -> tuple[pd.DataFrame, InterfaceContext]:
        fresh = InterfaceContext(
            warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30)
        )
        return PX.get_prices(fresh, ["IBM", "MSFT"], *window), fresh

    first, first_ctx = asked()
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        again, again_ctx = asked()
        timings.append(time.perf_counter() - started)
    pd.testing.assert_frame_equal(again, first)
    assert again.attrs == first.attrs
    # What the first answer told its request, the repeated one tells its own.
    assert again_ctx.notes == first_ctx.notes and "IBM" in again_ctx.notes[-1]
    assert again_ctx.sources == first_ctx.sources and again_ctx.sources
    # A caller's changes stay its own.
    again.loc[again.index[0], "MSFT"] = -1.0
    again.attrs["base"].clear()
    third, _ = asked()
    pd.testing.assert_frame_equal(third, first)
    assert third.attrs == first.attrs

    # Against computing the same frame from the warehouse's rows (themselves read from memory).
    entities = [data.catalog.get(i) for i in ("IBM", "MSFT")]
    computing = []
    for _ in range(5):
        started = time.perf_counter()
        PX._computed_prices(first_ctx, entities, *window, "daily", "close")
        computing.append(time.perf_counter() - started)
    assert statistics.median(timings) < statistics.median(computing) / 3
