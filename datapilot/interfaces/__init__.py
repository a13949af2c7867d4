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

As a facade for scripts (`from datapilot import interfaces as dp`), every interface of the
installed library is a function of this module: `dp.get_prices(ids=["AAPL"], start=…, end=…)`,
with `dp.use`, `dp.show`, `dp.table`, `dp.call` and `dp.names` from `facade.py`. An answer's
`code` is a script in this style.

Declaring an interface registers nothing: the built-in plugin (`plugin.py`) adds the library's
modules to a registry through the `register_interfaces` hook, as any third-party plugin does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Frame", "InterfaceContext", "InterfaceError", "Registry", "interface"]
_FACADE = ("use", "context", "call", "names", "function", "show", "table")


def __getattr__(name: str) -> Any:
    # Lazy: the built-in plugin (`plugin.py`) is in this package and loads with every command,
    # which must not pay for pandas.
    if name == "InterfaceContext":
        from datapilot.interfaces import context

        return context.InterfaceContext
    if name in __all__:
        from datapilot.interfaces import registry

        return getattr(registry, name)
    if name in _FACADE:
        from datapilot.interfaces import facade

        return getattr(facade, name)
    if not name.startswith("_"):
        from datapilot.interfaces.library import default_registry

        if name in default_registry():
            from datapilot.interfaces.facade import function

            return function(name)
    raise AttributeError(
        f"module {__name__!r} has no attribute {name!r} (dp.names() lists the interfaces)"
    )
