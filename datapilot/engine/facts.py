"""Facts: the computed numbers a summary may quote, one way to write them, and a grounding check.

`facts_of` reads the frame conventions of `datapilot.interfaces` (attrs kind/unit/title/units).
`format_value` is the only way numbers are written in summaries, so `grounded` can compare the
numbers of a text against the facts of a run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any, NamedTuple

import pandas as pd

from datapilot.core.outputs import TableOutput
from datapilot.core.results import Fact

MAX_FACTS_PER_CALL = 80
MAX_SERIES_COLUMNS = 8
_UNITLESS_COLUMNS = {"count", "rank", "n", "observations"}
_PERCENT_UNITS = {"%", "percent", "pct", "percentage"}
_SCALE = re.compile(r"^[-−]?\d+(\.\d+)?\s*[–-]\s*[-−]?\d+(\.\d+)?$")


# --- formatting ---------------------------------------------------------------------------------


def format_number(value: float) -> str:
    """A number as summaries write it: thousands separators, 2 decimals (2 significant digits
    below 0.1, none from 100,000 up)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    magnitude = abs(value)
    if magnitude >= 100_000:
        decimals = 0
    elif magnitude >= 0.1 or magnitude == 0:
        decimals = 2
    else:
        decimals = min(6, 1 - math.floor(math.log10(magnitude)))
    text = f"{value:,.{decimals}f}"
    return "0.00" if text in {"-0.00", "-0"} else text


def format_value(value: float | str | None, unit: str | None = None) -> str:
    """A value with its unit, e.g. `12.34%`, `1,234.56 USD`, `0.87`."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if not unit and float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"  # counts and ranks
    if unit and unit.lower() in _PERCENT_UNITS:
        # Percentages always with 2 decimals, so every return, change and rate reads alike.
        text = f"{float(value):,.2f}"
        return "0.00%" if text == "-0.00" else f"{text}%"
    number = format_number(float(value))
    if not unit:
        return number
    if _SCALE.match(unit):
        return number  # "0–100" names a scale, not a unit
    return f"{number} {unit}"


def format_fact(fact: Fact) -> str:
    """`label: value` with the value written by `format_value`."""
    return f"{fact.label}: {format_value(fact.value, fact.unit)}"


# --- extraction ---------------------------------------------------------------------------------


def facts_of(output_name: str, value: Any) -> list[Fact]:
    """The quotable facts of one call result, bounded to `MAX_FACTS_PER_CALL`."""
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, TableOutput):
        facts = _table_facts(value)
    elif isinstance(value, pd.DataFrame):
        facts = _frame_facts(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        facts = [Fact(label=output_name, value=_clean(value), subject=output_name, measure="value")]
    else:
        facts = []
    for fact in facts:
        fact.source = output_name
    return facts[:MAX_FACTS_PER_CALL]


def _frame_facts(frame: pd.DataFrame) -> list[Fact]:
    if frame.empty:
        return []
    kind = frame.attrs.get("kind") or (
        "timeseries" if isinstance(frame.index, pd.DatetimeIndex) else "cross_section"
    )
    unit = str(frame.attrs.get("unit") or "") or None
    if kind == "ohlcv":
        return _ohlcv_facts(frame, unit)
    if kind == "forecast":
        return _forecast_facts(frame, unit)
    if kind == "matrix":
        return _matrix_facts(frame, unit)
    if kind == "stats":
        return _cell_facts(frame, unit)
    if kind in {"timeseries", "indicator"} and isinstance(frame.index, pd.DatetimeIndex):
        bases = frame.attrs.get("base") or {}
        return [
            fact
            for column in list(_numeric(frame).columns)[:MAX_SERIES_COLUMNS]
            for fact in _series_facts(str(column), frame[column], unit, bases.get(column))
        ]
    return _cell_facts(frame, unit)


def _series_facts(
    subject: str, series: pd.Series, unit: str | None, base: dict[str, Any] | None = None
) -> list[Fact]:
    """First, last, change, high and low of one column. With a `base` (the observation before
    the window that its returns start from, `attrs["base"]`), the change runs from the base, as
    every return of the window does; the high and low stay inside the window."""
    series = pd.to_numeric(series, errors="coerce").dropna()
    if series.empty:
        return []
    first_at, last_at = series.index[0], series.index[-1]
    first, last = float(series.iloc[0]), float(series.iloc[-1])
    high_at, low_at = series.idxmax(), series.idxmin()
    percent = bool(unit and unit.lower() in _PERCENT_UNITS)
    if base and not percent and pd.Timestamp(base["date"]) < first_at:
        first_at, first = pd.Timestamp(base["date"]), float(base["value"])
        series = pd.concat([pd.Series([first], index=[first_at]), series])
    facts = [
        _fact(subject, "first", first, unit, _iso(first_at)),
        _fact(subject, "last", last, unit, _iso(last_at)),
    ]
    if len(series) > 1:
        span = f"{_iso(first_at)}..{_iso(last_at)}"
        # A change of a percentage is in percentage points; its relative change means nothing.
        facts.append(_fact(subject, "change", last - first, "pp" if percent else unit, span))
        # A relative change needs positive levels on a ratio scale (not a correlation, an RSI).
        if not percent and series.min() > 0 and not _SCALE.match(unit or ""):
            facts.append(_fact(subject, "pct_change", (last / first - 1) * 100, "%", span))
        facts.append(_fact(subject, "high", float(series.loc[high_at]), unit, _iso(high_at)))
        facts.append(_fact(subject, "low", float(series.loc[low_at]), unit, _iso(low_at)))
    return facts


def _ohlcv_facts(frame: pd.DataFrame, unit: str | None) -> list[Fact]:
    subject = str(frame.attrs.get("entity") or frame.attrs.get("title") or "close")
    if "close" not in frame.columns:
        return _cell_facts(frame, unit)
    facts = []
    for fact in _series_facts(subject, frame["close"], unit):
        if fact.measure in {"high", "low"}:
            # The highest and lowest close, apart from the intraday high and low below.
            fact = _fact(subject, f"close_{fact.measure}", float(fact.value), unit, fact.date)
        facts.append(fact)
    for column, measure, pick in (("high", "high", "idxmax"), ("low", "low", "idxmin")):
        source = frame[column] if column in frame.columns else frame["close"]
        source = pd.to_numeric(source, errors="coerce").dropna()
        if len(source) > 1:
            at = getattr(source, pick)()
            facts.append(_fact(subject, measure, float(source.loc[at]), unit, _iso(at)))
    return facts


def _forecast_facts(frame: pd.DataFrame, unit: str | None) -> list[Fact]:
    numeric = _numeric(frame)
    columns = {str(c).lower(): c for c in numeric.columns}
    lower = next((columns[c] for c in columns if "lower" in c or c.startswith("lo")), None)
    upper = next((columns[c] for c in columns if "upper" in c or c.startswith("hi")), None)
    point = next(
        (columns[c] for c in ("forecast", "mean", "yhat", "prediction") if c in columns),
        next((c for c in numeric.columns if c not in {lower, upper}), None),
    )
    if point is None:
        return _cell_facts(frame, unit)
    subject = str(frame.attrs.get("entity") or point)
    series = numeric[point].dropna()
    if series.empty:
        return []
    at = series.index[-1]
    when = _iso(at)
    facts = [
        _fact(subject, "forecast_first", float(series.iloc[0]), unit, _iso(series.index[0])),
        _fact(subject, "forecast", float(series.iloc[-1]), unit, when),
    ]
    for column, measure in ((lower, "lower"), (upper, "upper")):
        if column is not None and pd.notna(numeric.loc[at, column]):
            facts.append(_fact(subject, measure, float(numeric.loc[at, column]), unit, when))
    history = [c for c in numeric.columns if str(c).lower() in {"actual", "history", "observed"}]
    for column in history:
        observed = numeric[column].dropna()
        if not observed.empty:
            facts.append(
                _fact(
                    subject, "last_actual", float(observed.iloc[-1]), unit, _iso(observed.index[-1])
                )
            )
    return facts


def _matrix_facts(frame: pd.DataFrame, unit: str | None) -> list[Fact]:
    measure = str(frame.attrs.get("title") or "value").split(" (")[0].lower()
    facts: list[Fact] = []
    labels = list(frame.columns)
    for i, row in enumerate(frame.index):
        if len(facts) >= MAX_FACTS_PER_CALL:
            break
        for column in labels:
            # Upper triangle only: a symmetric matrix says each pair once.
            if column in frame.index and list(frame.index).index(column) <= i:
                continue
            value = frame.loc[row, column]
            if _is_number(value):
                facts.append(_fact(f"{row}–{column}", measure, float(value), unit, None))
    return facts


def _cell_facts(frame: pd.DataFrame, unit: str | None) -> list[Fact]:
    """Each row's numbers, column by column so every row keeps its main measure under the cap.

    A row is named by its `id` column when it has one (rows of several days per entity), else by
    its index; a cell's date is its `<name>_date` column, the row's `date`, or its start..end.
    """
    units: dict[str, str] = dict(frame.attrs.get("units") or {})
    names = [str(c) for c in frame.columns]
    columns = sorted(
        (i for i, name in enumerate(names) if name != "id"), key=lambda i: _column_rank(names[i])
    )
    ids = frame["id"].tolist() if "id" in names else list(frame.index)
    facts: list[Fact] = []
    for i in columns:
        if len(facts) >= MAX_FACTS_PER_CALL:  # cut by `facts_of` anyway, risk-free rate included
            break
        name = names[i]
        paired_date = f"{name.rsplit('_', 1)[0]}_date" if "_" in name else None
        for row, value in enumerate(frame.iloc[:, i].tolist()):
            if len(facts) >= MAX_FACTS_PER_CALL:
                break
            if _is_number(value):
                cell_unit = None if name.lower() in _UNITLESS_COLUMNS else units.get(name, unit)
                facts.append(
                    _fact(
                        _label(ids[row]),
                        name,
                        float(value),
                        cell_unit,
                        _cell_date(frame, row, names, paired_date),
                    )
                )
            elif (
                isinstance(value, date | pd.Timestamp)
                and not name.startswith(("start", "end"))
                and name != "date"
            ):
                # Dates such as a drawdown's trough are quotable too.
                facts.append(_fact(_label(ids[row]), name, _iso(value) or "", None, None))
    return facts + _attr_facts(frame)


def _attr_facts(frame: pd.DataFrame) -> list[Fact]:
    """Numbers a result states beside its table: the risk-free rate a Sharpe ratio used."""
    risk_free = frame.attrs.get("risk_free")
    if _is_number(risk_free):
        return [_fact("risk-free rate", "risk_free", float(risk_free), "%", None)]
    return []


def _cell_date(
    frame: pd.DataFrame, row: int, names: list[str], paired_date: str | None
) -> str | None:
    """The date a cell refers to: its `<name>_date` column, the row's `date`, else the row's
    start..end span."""

    def at(column: str) -> Any:
        return frame.iloc[row, names.index(column)]

    if paired_date in names:
        return _iso(at(str(paired_date)))
    if "date" in names:
        return _iso(at("date"))
    if {"start_date", "end_date"} <= set(names):
        start, end = _iso(at("start_date")), _iso(at("end_date"))
        return f"{start}..{end}" if start and end else None
    return None


def _column_rank(name: str) -> int:
    lowered = name.lower()
    if lowered.endswith("_date"):
        return 3
    if lowered.endswith("_value") or lowered in _UNITLESS_COLUMNS:
        return 2
    return 1


def _table_facts(table: TableOutput) -> list[Fact]:
    facts: list[Fact] = []
    for row in table.rows:
        if len(facts) >= MAX_FACTS_PER_CALL:  # the rest would be cut: a long table costs no more
            break
        subject = str(row[0]) if row else ""
        for column, value in zip(table.columns[1:], row[1:], strict=False):
            if _is_number(value):
                unit = table.units.get(column)
                facts.append(_fact(subject, str(column), float(value), unit, None))
    return facts


# --- grounding ----------------------------------------------------------------------------------


class Number(NamedTuple):
    """A number written in a text: as written, its value, its decimals, whether a % follows."""

    text: str
    value: float
    decimals: int
    percent: bool


_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATE = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{4}-\d{2}(?!\d)"
    r"|\d{4}\s*年\s*(?:\d{1,2}\s*月\s*(?:\d{1,2}\s*[日号])?)?|\d{1,2}\s*月\s*\d{1,2}\s*[日号]"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,\s*\d{{4}})?|\d{{1,2}}\s+{_MONTHS}(?:\s+\d{{4}})?"
    rf"|{_MONTHS}\s+\d{{4}}"
    r"|\b[QH][1-4]\b"
)
# Identifiers holding digits (GDPC1, 600519.SH, MA20) are names, not numbers.
_IDENTIFIER = re.compile(
    r"[A-Za-z0-9_^.]*[A-Za-z][A-Za-z0-9_^.]*\d[A-Za-z0-9_^.]*|\d+(?:\.\d+)?(?=\.?[A-Za-z_])"
)
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.^$])(?P<sign>[-+−])?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?![\d])\s*(?P<pct>%|％|percent|个百分点)?"
)


def numbers_in(text: str) -> list[Number]:
    """The numbers written in `text`, leaving out dates, quarters and identifiers like GDPC1."""
    cleaned = _IDENTIFIER.sub(" ", _DATE.sub(" ", text))
    numbers = []
    for match in _NUMBER.finditer(cleaned):
        digits = match["int"].replace(",", "") + (match["frac"] or "")
        value = float(digits) * (-1 if match["sign"] in {"-", "−"} else 1)
        decimals = len(match["frac"]) - 1 if match["frac"] else 0
        numbers.append(Number(match.group(0).strip(), value, decimals, bool(match["pct"])))
    return numbers


def ungrounded(text: str, facts: Iterable[Fact], context: str = "") -> list[str]:
    """Numbers in `text` that no fact supports.

    A number is supported when some fact rounds to it at the precision it is written with (signs
    ignored: "fell 3.2%" quotes a change of -3.2). Also allowed: numbers written in `context` (the
    question, the intent, the plan), years, and small integers (counts) that carry no %.
    """
    values = [abs(float(f.value)) for f in facts if not isinstance(f.value, str)]
    allowed = {abs(n.value) for n in numbers_in(context)}
    missing = []
    for number in numbers_in(text):
        magnitude = abs(number.value)
        if magnitude in allowed:
            continue
        if (
            number.decimals == 0
            and not number.percent
            and (magnitude <= 12 or 1900 <= magnitude <= 2100)
        ):
            continue
        # Any rounding of a fact to the written precision counts ("12.3%" quotes 12.3456).
        tolerance = 0.5 * 10**-number.decimals + 1e-9
        if not any(abs(value - magnitude) <= tolerance for value in values):
            missing.append(number.text)
    return missing


def grounded(text: str, facts: Iterable[Fact], context: str = "") -> bool:
    """True when every number in `text` is a fact's value (see `ungrounded`)."""
    return not ungrounded(text, facts, context)


# A sentence ends at . ! ? followed by white space, at a CJK stop, or at a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]|\n")


def split_sentences(buffer: str) -> tuple[list[str], str]:
    """Complete sentences at the start of `buffer` (with their trailing space) and the rest."""
    sentences = []
    start = 0
    for match in _SENTENCE_END.finditer(buffer):
        end = match.end()
        while end < len(buffer) and buffer[end].isspace():
            end += 1
        sentences.append(buffer[start:end])
        start = end
    return sentences, buffer[start:]


# --- helpers ------------------------------------------------------------------------------------


def _fact(
    subject: str, measure: str, value: float | str, unit: str | None, when: str | None
) -> Fact:
    label = f"{subject} {measure.replace('_', ' ')}" + (f" ({when})" if when else "")
    return Fact(
        label=label,
        value=_clean(value),
        unit=unit or None,
        subject=subject,
        measure=measure,
        date=when,
    )


def _clean(value: float | str) -> float | str:
    """Round away float noise while keeping far more precision than any summary shows."""
    if isinstance(value, str):
        return value
    value = float(value)
    if value == 0 or math.isnan(value) or math.isinf(value):
        return value
    cleaned = round(value, max(0, 9 - math.floor(math.log10(abs(value)))))
    # Rounding 1.8150000000000002 to 1.815 lands below the half (1.81499…), so it would be
    # written 1.81 where the table writes 1.82: keep the value whenever cleaning moves the
    # figure as written.
    return value if f"{cleaned:.2f}" != f"{value:.2f}" else cleaned


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.select_dtypes(include="number")


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    try:
        return not math.isnan(float(value)) and not math.isinf(float(value))
    except (TypeError, ValueError):
        return False


def _iso(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp | datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _label(value: Any) -> str:
    return _iso(value) or ""
