"""The typed interface library a plan calls: acquisition, processing, prediction, visualization.

Conventions every interface follows, so results compose and summaries can quote them:

* Time-series frames are *wide*: a `DatetimeIndex` named `date`, one column per entity id (or per
  indicator line), sorted ascending.
* Cross-section frames are indexed by entity id (index name `id`), one row per entity.
* `frame.attrs` carries metadata that survives between calls (set it explicitly on every result):
  - `kind`: `timeseries` | `ohlcv` | `indicator` | `cross_section` | `matrix` | `forecast` | `stats`
  - `unit`: `USD`, `%`, `index points`, `percent`, `billions of chained 2012 USD`, …
  - `title`: a human label such as `Adjusted close` or `Cumulative return`
  - `sources`: list of data source names the values came from
  - `overlay`: for indicators, True when drawn on the price panel (MA, BOLL)
  - optional: `units` (column -> unit where columns differ, e.g. start_value USD, return_pct %),
    `entity` (the one entity an OHLCV, indicator or forecast frame is about), `measure`
    (`returns` for period returns in %, compounded, never treated as levels), `levels` /
    `bar_columns` (indicator reference lines and histogram columns), `model` / `level`
    (forecasts), `field` / `adjusted` (prices), `calendars` (column -> exchange calendar code
    such as XNYS, for forecasts on trading days), `risk_free` (the Sharpe ratio's annual %)
  - `base` (acquisition results): column -> `{"date": "YYYY-MM-DD", "value": float}`, the
    observation returns over the window start from — the last one before `start` for calendar
    periods (`base="before"`), the one on or before it for trailing lengths (`"on_or_before"`);
    no entry when a column's history starts inside the window. The frame itself holds only the
    window's rows; `frame.with_base` prepends the base, and every return measure uses it.
* Returns, drawdowns and volatilities are in percent (`unit` = `%`), at full precision.
* Visualization interfaces return `ChartOutput` / `TableOutput` models from `core.outputs`.
* A failure the user should see raises `InterfaceError` with a plain-language message.

Declaring an interface registers nothing: the built-in plugin (`plugin.py`) adds the library's
modules to a registry through the `register_interfaces` hook, as any third-party plugin does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Frame", "InterfaceContext", "InterfaceError", "Registry", "interface"]


def __getattr__(name: str) -> Any:
    # Lazy: the built-in plugin (`plugin.py`) is in this package and loads with every command,
    # which must not pay for pandas.
    if name == "InterfaceContext":
        from datapilot.interfaces import context

        return context.InterfaceContext
    if name in __all__:
        from datapilot.interfaces import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
