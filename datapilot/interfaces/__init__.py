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
    (`returns` for period returns), `levels` / `bar_columns` (indicator reference lines and
    histogram columns), `model` / `level` (forecasts), `field` / `adjusted` (prices)
* Returns, drawdowns and volatilities are in percent (`unit` = `%`).
* Visualization interfaces return `ChartOutput` / `TableOutput` models from `core.outputs`.
* A failure the user should see raises `InterfaceError` with a plain-language message.

Importing this package registers every interface in `registry`.
"""

from __future__ import annotations

from datapilot.interfaces.registry import Frame, InterfaceError, interface, registry

__all__ = ["Frame", "InterfaceError", "interface", "load_all", "registry"]

# Modules that register no interface.
_SUPPORT = frozenset({"registry", "context", "checks"})
# Import order of the interface modules: it fixes the order of the registry, which the planning
# prompt lists interfaces in. Modules not named here load after these, alphabetically.
_LOAD_ORDER = (
    "frame",
    "prices",
    "indicators",
    "reference",
    "client_tables",
    "prediction",
    "processing",
    "visualization",
)


def load_all() -> None:
    """Import every interface module so its functions register themselves."""
    import importlib
    import pkgutil

    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name not in _SUPPORT]
    for name in sorted(names, key=_load_rank):
        importlib.import_module(f"{__name__}.{name}")


def _load_rank(name: str) -> tuple[int, str]:
    if name in _LOAD_ORDER:
        return _LOAD_ORDER.index(name), ""
    return len(_LOAD_ORDER), name
