"""Backtests fire on the days pandas finds, over the bundled data (skfolio's S&P 500 index and
large caps), for the five alert kinds; the expected days are computed here from the source."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset, load_sp500_index

from datapilot.brains.offline.vocab import load_vocab
from datapilot.core.watches import Condition
from datapilot.data.access import DataAccess
from datapilot.settings import get_settings
from datapilot.watches.backtest import backtest
from datapilot.watches.evaluate import evaluate
from datapilot.watches.reading import read_watch

START, END = date(2022, 1, 1), date(2022, 12, 31)


def _index() -> pd.Series:
    return load_sp500_index()["SP500"]


def _stock(ticker: str) -> Callable[[], pd.Series]:
    return lambda: load_sp500_dataset()[ticker]


def _in_window(series: pd.Series) -> pd.Series:
    return series.loc[str(START) : str(END)]


def _became_true(true: pd.Series) -> pd.Series:
    """A state's firing days: true, and not true the day before (the first day fires if true)."""
    true = _in_window(true)
    return true & ~true.shift(1, fill_value=False)


def _daily_fall(closes: pd.Series) -> tuple[pd.Series, pd.Series]:
    move = closes.pct_change() * 100
    return _in_window(move < -2), move


def _close_below(closes: pd.Series) -> tuple[pd.Series, pd.Series]:
    return _became_true(closes < 150), closes


def _drawdown(closes: pd.Series) -> tuple[pd.Series, pd.Series]:
    base = closes.loc[: str(date(2021, 12, 31))].index[-1]
    since = closes.loc[base:]
    drawdown = (since / since.cummax() - 1) * 100
    return _became_true(drawdown < -10), drawdown


def _window_return(closes: pd.Series) -> tuple[pd.Series, pd.Series]:
    change = (closes / closes.shift(20) - 1) * 100
    return _became_true(change > 5), change


def _ma_cross(closes: pd.Series) -> tuple[pd.Series, pd.Series]:
    above = closes > closes.rolling(50).mean()
    return _in_window(above & ~above.shift(1, fill_value=False)), closes


@pytest.mark.parametrize(
    ("sentence", "source", "expected"),
    [
        ("alert me if the S&P 500 falls more than 2% in a day", _index, _daily_fall),
        ("tell me when Apple closes below 150", _stock("AAPL"), _close_below),
        ("alert me when JPMorgan's drawdown exceeds 10%", _stock("JPM"), _drawdown),
        ("tell me when Microsoft's return over the past 20 days is above 5%", _stock("MSFT"),
         _window_return),
        ("tell me when the S&P 500 crosses above its 50-day moving average", _index, _ma_cross),
    ],
)  # fmt: skip
def test_backtest_fires_on_the_days_pandas_finds(
    data: Any,
    sentence: str,
    source: Callable[[], pd.Series],
    expected: Callable[[pd.Series], tuple[pd.Series, pd.Series]],
) -> None:
    spec = read_watch(sentence, data.catalog, load_vocab(), today=END)
    access = DataAccess(get_settings(), warehouse=data.warehouse, catalog=data.catalog)
    result = backtest(spec, access, START, END)
    fires, values = expected(source())
    days = [day.date() for day in fires[fires].index]
    assert days, "the sentence should fire at least once in 2022"
    assert [f.date for f in result.fired] == days
    expected_values = [float(values[pd.Timestamp(day)]) for day in days]
    assert [f.value for f in result.fired] == pytest.approx(expected_values)


def test_the_s_and_p_500_fell_more_than_2_percent_on_23_days_in_2022(data: Any) -> None:
    spec = read_watch(
        "alert me if the S&P 500 falls more than 2% in a day", data.catalog, load_vocab(), today=END
    )
    access = DataAccess(get_settings(), warehouse=data.warehouse, catalog=data.catalog)
    closes = _index()
    move = closes.pct_change().loc["2022"]
    assert len(backtest(spec, access, START, END).fired) == int((move < -0.02).sum()) == 23


def test_the_first_days_move_is_from_the_close_before_the_window() -> None:
    closes = pd.Series(
        [100.0, 97.0, 98.0], index=pd.to_datetime(["2022-12-30", "2023-01-03", "2023-01-04"])
    )
    falls = Condition(measure="daily_move", comparator="below", threshold=-2, behaviour="event")
    fired = evaluate(falls, closes, date(2023, 1, 1), date(2023, 1, 31)).firings
    assert [(f.date, f.value) for f in fired] == [(date(2023, 1, 3), pytest.approx(-3.0))]


def test_a_state_fires_once_until_it_stops_holding_and_a_live_run_continues_it() -> None:
    closes = pd.Series(
        [140.0, 145.0, 155.0, 149.0, 148.0],
        index=pd.bdate_range("2023-01-02", periods=5),
    )
    below = Condition(measure="close_level", comparator="below", threshold=150)
    first = evaluate(below, closes, date(2023, 1, 2), date(2023, 1, 3))
    assert [f.date for f in first.firings] == [date(2023, 1, 2)] and first.holding
    rest = evaluate(below, closes, date(2023, 1, 4), date(2023, 1, 6), holding=first.holding)
    assert [f.date for f in rest.firings] == [date(2023, 1, 5)]
