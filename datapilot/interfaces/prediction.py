"""Prediction interfaces: ARIMA, ETS and drift forecasts with intervals; GARCH volatility.

Forecasts fit on a bounded recent history (three years of daily data) so each call stays fast;
the result is indexed by the next dates at the series' own frequency. Daily and weekly prices
are modelled on their logarithm (their changes scale with their level), so intervals are
proportional and never fall below zero.
"""

from __future__ import annotations

import warnings
from statistics import NormalDist
from typing import Annotated

import numpy as np
import pandas as pd

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import (
    PERIODS_PER_YEAR,
    derive,
    infer_freq,
    next_dates,
    require_timeseries,
    values_of,
)
from datapilot.interfaces.registry import Frame, InterfaceError, interface

MAX_HORIZON = 500
# Bounded fit windows keep fits fast and weight the recent regime.
_FIT_ROWS = {"daily": 756, "weekly": 520, "monthly": 480, "quarterly": 400, "annual": 200}
_MIN_ROWS = 12
_MARKET_FREQS = frozenset({"daily", "weekly"})
_PERCENT_UNITS = frozenset({"%", "percent", "pct", "percentage points"})


def preload() -> None:
    """Import the model libraries now (1–2 s cold) so a server's first forecast answers quickly."""
    import arch  # noqa: F401
    import exchange_calendars  # noqa: F401
    import statsmodels.tsa.arima.model
    import statsmodels.tsa.exponential_smoothing.ets  # noqa: F401


def _target(frame: pd.DataFrame, horizon: int) -> tuple[str, pd.Series]:
    """The column forecast (the first numeric one) over its bounded recent history."""
    require_timeseries(frame)
    if not 1 <= horizon <= MAX_HORIZON:
        raise InterfaceError(f"The horizon must be between 1 and {MAX_HORIZON} periods.")
    values = values_of(frame)
    column = str(values.columns[0])
    series = values[column].dropna().astype(float)
    freq = infer_freq(series.index)
    series = series.iloc[-_FIT_ROWS[freq] :]
    if len(series) < _MIN_ROWS:
        raise InterfaceError(
            f"Only {len(series)} observations of {column}; a forecast needs at least {_MIN_ROWS}. "
            "Widen the history window."
        )
    return column, series


def _result(
    frame: pd.DataFrame,
    series: pd.Series,
    column: str,
    mean: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    model: str,
    level: float,
) -> pd.DataFrame:
    horizon = len(mean)
    out = pd.DataFrame(
        {
            "forecast": np.asarray(mean, dtype=float),
            # Guard against tiny numerical inversions so lower <= forecast <= upper always holds.
            "lower": np.minimum(np.asarray(lower, dtype=float), mean),
            "upper": np.maximum(np.asarray(upper, dtype=float), mean),
        },
        index=next_dates(pd.DatetimeIndex(series.index), horizon, _calendar(frame, column)),
    )
    units = frame.attrs.get("units") or {}
    return derive(
        out,
        frame,
        kind="forecast",
        unit=units.get(column, frame.attrs.get("unit", "")),
        title=f"{column} forecast ({model})",
        entity=column,
        model=model,
        level=level,
        fit_start=str(series.index[0].date()),
        fit_end=str(series.index[-1].date()),
    )


def _calendar(frame: pd.DataFrame, column: str) -> str | None:
    """The exchange calendar of an exchange-traded column (set by the price readers)."""
    calendars = frame.attrs.get("calendars") or {}
    return calendars.get(column) if isinstance(calendars, dict) else None


def _check_level(level: float) -> None:
    if not 0.5 <= level < 1:
        raise InterfaceError("The interval level must be between 0.5 and 0.99 (e.g. 0.95).")


@interface("prediction", "frame")
def forecast_arima(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series; its first (or only) column is forecast."],
    horizon: Annotated[int, "Number of future periods at the series' frequency."],
    order: Annotated[
        list[int] | None,
        "ARIMA (p, d, q); None = (1, 1, 0) with drift for daily/weekly data, else (1, 1, 1).",
    ] = None,
    level: Annotated[float, "Prediction interval coverage, e.g. 0.95."] = 0.95,
) -> pd.DataFrame:
    """ARIMA forecast of one series for the next `horizon` periods: columns forecast, lower, upper
    (prediction interval at `level`), in the series' unit. Daily and weekly prices are modelled
    on their logarithm."""
    _check_level(level)
    column, series = _target(frame, horizon)
    if order is not None and (len(order) != 3 or min(order) < 0 or max(order) > 5):
        raise InterfaceError("order must be three whole numbers (p, d, q) between 0 and 5.")
    freq = infer_freq(series.index)
    # ARMA(1,1) on near-white-noise daily returns is barely identified (its AR and MA roots
    # nearly cancel): a flat likelihood that is slow to maximise, for the forecast AR(1) gives.
    p, d, q = order or ([1, 1, 0] if freq in _MARKET_FREQS else [1, 1, 1])
    logged = freq in _MARKET_FREQS and _is_price_like(frame, column, series)
    values = np.log(series.to_numpy()) if logged else series.to_numpy()
    # With differencing, a trend term is a drift; without, a constant mean.
    trend = "t" if d == 1 else ("c" if d == 0 else "n")
    mean, lower, upper = _arima_forecast(values, (p, d, q), trend, horizon, level)
    if logged:
        # exp is monotone: the interval's quantiles carry over; the point is the median.
        mean, lower, upper = np.exp(mean), np.exp(lower), np.exp(upper)
    model = f"ARIMA({p},{d},{q}){' with drift' if trend == 't' else ''}"
    if logged:
        model += " on log values"
    return _result(frame, series, column, mean, lower, upper, model, level)


def _is_price_like(frame: pd.DataFrame, column: str, series: pd.Series) -> bool:
    """Positive levels that are not already rates or returns."""
    units = frame.attrs.get("units") or {}
    unit = str(units.get(column, frame.attrs.get("unit", ""))).strip().lower()
    if unit in _PERCENT_UNITS or frame.attrs.get("measure") == "returns":
        return False
    return bool((series > 0).all())


def _arima_forecast(
    values: np.ndarray, order: tuple[int, int, int], trend: str, horizon: int, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point forecast and interval bounds of an ARIMA fitted to `values`."""
    from statsmodels.tsa.arima.model import ARIMA

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if order[2] == 0:
            # Pure AR: Burg's estimates (always stationary, no optimiser) are within a hair of
            # the exact likelihood's and take a few milliseconds instead of hundreds.
            fitted = ARIMA(values, order=order, trend=trend).fit(method="burg")
        else:
            model = ARIMA(values, order=order, trend=trend, concentrate_scale=True)
            # Parameter covariances are never reported, so skip their numerical Hessian.
            fitted = model.fit(cov_type="none")
        prediction = fitted.get_forecast(horizon)
        interval = prediction.conf_int(alpha=1 - level)
    mean = np.asarray(prediction.predicted_mean, dtype=float)
    return mean, np.asarray(interval[:, 0], dtype=float), np.asarray(interval[:, 1], dtype=float)


@interface("prediction", "frame")
def forecast_ets(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series; its first (or only) column is forecast."],
    horizon: Annotated[int, "Number of future periods at the series' frequency."],
    level: Annotated[float, "Prediction interval coverage, e.g. 0.95."] = 0.95,
) -> pd.DataFrame:
    """Exponential smoothing (ETS, additive damped trend) forecast of one series: columns forecast,
    lower, upper, in the series' unit."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    _check_level(level)
    column, series = _target(frame, horizon)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A plain RangeIndex: statsmodels' date handling wants a regular frequency.
        values = pd.Series(series.to_numpy())
        model = ETSModel(values, error="add", trend="add", damped_trend=True)
        fitted = model.fit(disp=False)
        summary = fitted.get_prediction(
            start=len(series), end=len(series) + horizon - 1
        ).summary_frame(alpha=1 - level)
    return _result(
        frame,
        series,
        column,
        summary["mean"].to_numpy(),
        summary["pi_lower"].to_numpy(),
        summary["pi_upper"].to_numpy(),
        "ETS(A,Ad,N)",
        level,
    )


@interface("prediction", "frame")
def forecast_naive(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "A time series; its first (or only) column is forecast."],
    horizon: Annotated[int, "Number of future periods at the series' frequency."],
    level: Annotated[float, "Prediction interval coverage, e.g. 0.95."] = 0.95,
) -> pd.DataFrame:
    """Naive drift forecast (last value plus the average past change per period): columns forecast,
    lower, upper, in the series' unit."""
    _check_level(level)
    column, series = _target(frame, horizon)
    values = series.to_numpy()
    n = len(values)
    steps = np.diff(values)
    drift = steps.mean()
    sigma = steps.std(ddof=1)
    h = np.arange(1, horizon + 1)
    mean = values[-1] + drift * h
    # Standard error of the drift method, including the estimated drift (Hyndman, FPP3 5.5).
    se = sigma * np.sqrt(h * (1 + h / (n - 1)))
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return _result(frame, series, column, mean, mean - z * se, mean + z * se, "drift", level)


@interface("prediction", "frame")
def forecast_volatility(
    ctx: InterfaceContext,
    frame: Annotated[Frame, "Daily prices, or returns from compute_returns; first column used."],
    horizon: Annotated[int, "Number of future trading days."] = 10,
) -> pd.DataFrame:
    """GARCH(1,1) forecast of annualised volatility in % for the next `horizon` periods (column
    forecast), fit on recent returns."""
    from arch import arch_model

    require_timeseries(frame)
    if not 1 <= horizon <= MAX_HORIZON:
        raise InterfaceError(f"The horizon must be between 1 and {MAX_HORIZON} periods.")
    values = values_of(frame)
    column = str(values.columns[0])
    series = values[column].dropna()
    if frame.attrs.get("measure") != "returns":
        series = series.pct_change(fill_method=None).dropna() * 100
    freq = infer_freq(series.index)
    series = series.iloc[-_FIT_ROWS[freq] :]
    if len(series) < 100:
        raise InterfaceError(
            f"Only {len(series)} returns of {column}; a GARCH fit needs at least 100. "
            "Widen the history window."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = arch_model(series.to_numpy(), mean="Constant", vol="GARCH", p=1, q=1).fit(
            disp="off"
        )
        variance = fitted.forecast(horizon=horizon, reindex=False).variance.to_numpy()[-1]
    annual = np.sqrt(variance * PERIODS_PER_YEAR[freq])
    out = pd.DataFrame(
        {"forecast": annual},
        index=next_dates(pd.DatetimeIndex(series.index), horizon, _calendar(frame, column)),
    )
    return derive(
        out,
        frame,
        kind="forecast",
        unit="%",
        title=f"{column} volatility forecast (GARCH(1,1), annualised)",
        entity=column,
        model="GARCH(1,1)",
        fit_start=str(series.index[0].date()),
        fit_end=str(series.index[-1].date()),
    )
