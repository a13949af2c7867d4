"""Answers from a client table (see `client_tables`): a cell, the highest row, the change
between two rows, totals and group aggregates, a summary. Each states its answer in
`attrs["answer"]` with the table's numbers quoted exactly as the table holds them, in the
question's language (`ctx.language`). Columns may be named loosely: "Revenue", 营收 or a
misspelling find `revenue_avg` (see `table_words`).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd

from datapilot.data.client_data import is_missing
from datapilot.interfaces.client_tables import table_label
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.frame import tag
from datapilot.interfaces.registry import Frame, InterfaceError, interface
from datapilot.interfaces.table_words import chinese_column as zh_column
from datapilot.interfaces.table_words import closest_word, english_words

_SMALL = 20  # rows a whole-table answer quotes


def exact(value: Any) -> str:
    """A table's number as the table holds it: every digit kept, thousands separated."""
    if isinstance(value, np.integer):
        value = int(value)  # a volume column's 89860496 is 89,860,496 too
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,}"


def _rounded(value: float) -> str:
    return f"{value:,.2f}"


def _with_unit(text: str, frame: pd.DataFrame, column: str) -> str:
    unit = (frame.attrs.get("units") or {}).get(column) or ""
    return f"{text}%" if unit == "%" else f"{text} {unit}".strip()


def _row_label(frame: pd.DataFrame, at: Any) -> str:
    if isinstance(at, pd.Timestamp):
        return at.date().isoformat()
    return str(at)


def _column(frame: pd.DataFrame, column: str) -> str:
    if column in frame.columns:
        return column
    folded = {str(c).casefold(): str(c) for c in frame.columns}
    if column.casefold() in folded:
        return folded[column.casefold()]
    loose = _loose_column(frame, column)
    if loose is not None:
        return loose
    raise InterfaceError(
        f"The table has no column {column!r}; its columns are: "
        f"{', '.join(map(str, frame.columns))}."
    )


def _loose_column(frame: pd.DataFrame, column: str) -> str | None:
    """The one column whose words hold every word of `column` once put in English and
    matched loosely (营收 → revenue_avg, "Revenu" → revenue_avg); None when not exactly one."""
    wanted = re.findall(r"[a-z0-9]+", english_words(column).casefold())
    if not wanted:
        return None
    words = {str(c): re.findall(r"[a-z0-9]+", str(c).casefold()) for c in frame.columns}
    every = sorted({w for ws in words.values() for w in ws})
    wanted = [w if w in every else (closest_word(w, every) or w) for w in wanted]
    found = [c for c, ws in words.items() if all(w in ws for w in wanted)]
    return found[0] if len(found) == 1 else None


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _say(ctx: InterfaceContext | None, en: str, zh: str) -> str:
    return zh if ctx is not None and ctx.language == "zh" else en


def _numbers(frame: pd.DataFrame, column: str) -> pd.Series:
    name = _column(frame, column)
    values = pd.to_numeric(frame[name], errors="coerce")
    if values.notna().sum() == 0:
        raise InterfaceError(f"The column {name!r} holds no numbers.")
    return values


def find_row(frame: pd.DataFrame, key: str) -> Any:
    """The row label `key` means: the label itself, `FY2024` ↔ `2024`, a year in a date index
    (its last row), or a label containing the key."""
    wanted = _key_text(key)
    if isinstance(frame.index, pd.DatetimeIndex):
        year = re.search(r"\d{4}", key)
        try:
            stamp = pd.Timestamp(key)
        except (ValueError, TypeError):
            stamp = None
        if stamp is not None and not re.fullmatch(r"\D*\d{4}\D*", key) and stamp in frame.index:
            return stamp
        if year:
            rows = frame.index[frame.index.year == int(year.group(0))]
            if len(rows):
                return rows[-1]
    labels = list(frame.index)
    for label in labels:
        if _key_text(str(label)) == wanted:
            return label
    for label in labels:
        text = _key_text(str(label))
        if wanted and (
            wanted in text.split() or re.search(rf"(?<!\d){re.escape(wanted)}(?!\d)", text)
        ):
            return label
    shown = ", ".join(_row_label(frame, label) for label in labels[:12])
    raise InterfaceError(f"The table has no row {key!r}; its rows are: {shown}.")


def _key_text(text: str) -> str:
    """A row key compared loosely: case, `FY`, punctuation and spaces do not matter."""
    folded = text.casefold().strip()
    folded = re.sub(r"\bfy\s*'?", "", folded)
    folded = re.sub(r"\.0$", "", folded)
    return re.sub(r"[\s_\-/]+", " ", folded).strip()


def _answer(
    frame: pd.DataFrame, lines: list[str], title: str, source: pd.DataFrame, title_zh: str
) -> pd.DataFrame:
    return tag(
        frame,
        kind="cross_section",
        title=title,
        title_zh=title_zh,  # how a Chinese summary names the result
        sources=source.attrs.get("sources") or [],
        answer=lines,
        units=source.attrs.get("units") or None,
    )


@interface("processing", "frame")
def table_lookup(
    ctx: InterfaceContext,
    frame: Frame,
    rows: Annotated[
        list[str] | None, "Row keys as the question says them (FY2024, 2024, AAPL); default all."
    ] = None,
    columns: Annotated[list[str] | None, "Columns to read; default every column."] = None,
) -> pd.DataFrame:
    """The cells of a client table at the rows (and columns) named, quoted exactly."""
    names = [_column(frame, c) for c in columns] if columns else [str(c) for c in frame.columns]
    if rows:
        found = list(dict.fromkeys(find_row(frame, key) for key in rows))
    elif len(frame) <= _SMALL:
        found = list(frame.index)
    else:
        raise InterfaceError(
            f"The table has {len(frame)} rows; name the rows to read (at most {_SMALL} at once)."
        )
    result = frame.loc[found, names]
    if len(names) == 1:
        (only,) = names
        cells = [
            (_row_label(frame, at), _with_unit(exact(frame.loc[at, only]), frame, only))
            for at in found
        ]
        lines = [
            _say(
                ctx,
                f"{only}: {'; '.join(f'{at} {v}' for at, v in cells)}.",
                f"{zh_column(only)}：{'；'.join(f'{at}为{v}' for at, v in cells)}。",
            )
        ]
    else:
        lines = [
            _say(
                ctx,
                f"{_row_label(frame, at)}: "
                + ", ".join(f"{c} {_with_unit(exact(frame.loc[at, c]), frame, c)}" for c in names)
                + ".",
                f"{_row_label(frame, at)}："
                + "，".join(
                    f"{zh_column(c)}为{_with_unit(exact(frame.loc[at, c]), frame, c)}"
                    for c in names
                )
                + "。",
            )
            for at in found
        ]
    table = frame.attrs.get("title", "table")
    title = f"{table}: {', '.join(names)}"
    title_zh = f"“{table}”的{'、'.join(zh_column(n) for n in names)}"
    return _answer(result.copy(), lines, title, frame, title_zh)


@interface("processing", "frame")
def table_extreme(
    ctx: InterfaceContext,
    frame: Frame,
    column: Annotated[str, "The column to rank by."],
    which: Annotated[Literal["max", "min"], "The highest or the lowest value."] = "max",
    n: Annotated[int, "How many rows."] = 1,
    also: Annotated[
        list[str] | None,
        "Other columns the question asks for at that row (how many analysts it is based on).",
    ] = None,
) -> pd.DataFrame:
    """The row(s) of a client table with the highest (or lowest) value in a column, with the
    row's key and its other columns (those in `also` answered in a sentence of their own)."""
    values = _numbers(frame, column).dropna()
    name = _column(frame, column)
    asked = [c for c in (_column(frame, a) for a in also or []) if c != name]
    order = values.sort_values(ascending=which == "min", kind="stable").index[: max(n, 1)]
    result = frame.loc[order].copy()
    result.insert(0, "rank", range(1, len(result) + 1))
    word = "highest" if which == "max" else "lowest"
    lines = []
    for at in order:
        others = [
            (str(c), _with_unit(exact(frame.loc[at, c]), frame, str(c)))
            for c in frame.columns
            if c != name and c not in asked and not is_missing(frame.loc[at, c])
        ][:6]
        value, label = _with_unit(exact(frame.loc[at, name]), frame, name), _row_label(frame, at)
        en = f"The {word} {name} is {value}, in {label}"
        en += f" ({'; '.join(f'{c} {v}' for c, v in others)})" if others else ""
        zh = f"{zh_column(name)}{'最高' if which == 'max' else '最低'}为{value}，在{label}"
        zh += f"（{'；'.join(f'{zh_column(c)}为{v}' for c, v in others)}）" if others else ""
        for column in asked:
            # The part of the question asked of that row is answered in a sentence of its own.
            cell = _with_unit(exact(frame.loc[at, column]), frame, column)
            en += f". In {label}, {column} is {cell}"
            zh += f"。{label}的{zh_column(column)}为{cell}"
        lines.append(_say(ctx, en + ".", zh + "。"))
    title_zh = f"{zh_column(name)}{'最高' if which == 'max' else '最低'}的行"
    return _answer(result, lines, f"{word} {name}", frame, title_zh)


@interface("processing", "frame")
def table_change(
    ctx: InterfaceContext,
    frame: Frame,
    column: Annotated[str, "The column whose change is measured."],
    start: Annotated[str, "The row the change starts from (a key: 2023, FY2023, a date)."],
    end: Annotated[str, "The row the change ends at."],
) -> pd.DataFrame:
    """The change of a column between two rows of a client table: both values (exact), the change,
    the change in % and, between years, the compound annual growth rate."""
    values = _numbers(frame, column)
    name = _column(frame, column)
    first_at, last_at = find_row(frame, start), find_row(frame, end)
    first, last = float(values.loc[first_at]), float(values.loc[last_at])
    row: dict[str, Any] = {
        "from": _row_label(frame, first_at),
        "from_value": first,
        "to": _row_label(frame, last_at),
        "to_value": last,
        "change": last - first,
    }
    a, b = _row_label(frame, first_at), _row_label(frame, last_at)
    was, now = _with_unit(exact(first), frame, name), _with_unit(exact(last), frame, name)
    line = f"{name} went from {was} in {a} to {now} in {b}: a change of {_rounded(last - first)}"
    zh = f"{zh_column(name)}从{a}的{was}变为{b}的{now}：变化{_rounded(last - first)}"
    if first > 0 and last > 0:
        row["change_pct"] = (last / first - 1) * 100
        line += f" ({_rounded(row['change_pct'])}%)"
        zh += f"（{_rounded(row['change_pct'])}%）"
        years = [re.search(r"\d{4}", x) for x in (a, b)]
        if all(years) and years[0] and years[1]:
            span = int(years[1].group(0)) - int(years[0].group(0))
            if span > 1:
                row["cagr_pct"] = ((last / first) ** (1 / span) - 1) * 100
                line += f", {_rounded(row['cagr_pct'])}% a year over {span} years"
                zh += f"，{span}年间年均增长{_rounded(row['cagr_pct'])}%"
    result = pd.DataFrame([row], index=pd.Index([name], name="column"))
    said = _say(ctx, line + ".", zh + "。")
    title_zh = f"{zh_column(name)}从{a}到{b}的变化"
    return _answer(result, [said], f"change in {name}, {a} to {b}", frame, title_zh)


_HOW = Literal["sum", "mean", "median", "min", "max", "count", "last"]
# Calendar periods a dated table's rows can be grouped by (`by="year"`).
_PERIOD_KEYS = {"year": "%Y", "quarter": "Q", "month": "%Y-%m"}
_PERIOD_ZH = {"year": "年", "quarter": "季度", "month": "月"}
_HOW_WORDS = {
    "last": "latest",
    "sum": "total",
    "mean": "average",
    "median": "median",
    "min": "lowest",
    "max": "highest",
    "count": "count",
}
_HOW_ZH = {
    "last": "最新值",
    "sum": "合计",
    "mean": "平均值",
    "median": "中位数",
    "min": "最低值",
    "max": "最高值",
    "count": "个数",
}


@interface("processing", "frame")
def table_aggregate(
    ctx: InterfaceContext,
    frame: Frame,
    columns: Annotated[list[str] | None, "Columns to aggregate; default every numeric one."] = None,
    how: Annotated[_HOW, "sum, mean, median, min, max or count."] = "sum",
    by: Annotated[
        str | None,
        "Group rows by this column (or the row key) first; year, quarter or month group a "
        "dated table's rows by calendar period.",
    ] = None,
) -> pd.DataFrame:
    """Totals, means … of a client table's columns, over all rows or by group."""
    data = frame.reset_index()
    key = str(data.columns[0])
    period = (by or "").casefold()
    if isinstance(frame.index, pd.DatetimeIndex) and period in _PERIOD_KEYS and by not in data:
        dates = pd.DatetimeIndex(data[key])
        data[period] = (
            dates.to_period("Q").astype(str)
            if period == "quarter"
            else dates.strftime(_PERIOD_KEYS[period])
        )
        by = period
    numeric = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    names = [_column(frame, c) for c in columns] if columns else numeric
    if not names:
        raise InterfaceError("The table has no numeric column to aggregate.")
    for name in names:
        data[name] = pd.to_numeric(data[name], errors="coerce")
    word = _HOW_WORDS[how]
    if by is not None:
        group = key if by.casefold() in {key.casefold(), "key"} else _column(data, by)
        result = data.groupby(group, sort=False)[names].agg(how)
        lines = [
            _say(
                ctx,
                f"{_upper_first(word)} {name} by {group}: "
                + ", ".join(
                    f"{table_label(at)} {_agg_text(v, how, frame, name)}"
                    for at, v in result[name].items()
                )
                + ".",
                f"按{_PERIOD_ZH.get(group) or zh_column(group)}的{zh_column(name)}{_HOW_ZH[how]}："
                + "，".join(
                    f"{table_label(at)}为{_agg_text(v, how, frame, name)}"
                    for at, v in result[name].items()
                )
                + "。",
            )
            for name in names
        ]
        result.index = pd.Index([table_label(v) for v in result.index], name=group)
        title = f"{word} {', '.join(names)} by {group}"
        by_zh = _PERIOD_ZH.get(group) or zh_column(group)
        title_zh = f"按{by_zh}的{'、'.join(zh_column(n) for n in names)}{_HOW_ZH[how]}"
    else:
        totals = data[names].agg(how)
        result = pd.DataFrame({how: totals}, index=pd.Index(names, name="column"))
        rows = len(data)
        lines = [
            _say(
                ctx,
                f"The {word} of {name} over {rows} rows is "
                f"{_agg_text(float(totals[name]), how, frame, name)}.",
                f"{zh_column(name)}的{_HOW_ZH[how]}（共{rows}行）为"
                f"{_agg_text(float(totals[name]), how, frame, name)}。",
            )
            for name in names
        ]
        title = f"{word} of {', '.join(names)}"
        title_zh = f"{'、'.join(zh_column(n) for n in names)}的{_HOW_ZH[how]}"
    return _answer(result, lines, title, frame, title_zh)


def _agg_text(value: float, how: str, frame: pd.DataFrame, column: str) -> str:
    # A sum, min or max is made of the table's own numbers; a mean or median is computed;
    # a count of rows has no unit.
    if how == "count":
        return exact(value)
    if how == "sum" and isinstance(value, float):
        value = round(value, 9)  # 89.6 + 81.4 + … is 378.3, not 378.30000000000007
    text = exact(value) if how in {"sum", "min", "max", "last"} else _rounded(value)
    return _with_unit(text, frame, column)


@interface("processing", "frame")
def describe_table(
    ctx: InterfaceContext,
    frame: Frame,
    unanswered: Annotated[
        bool, "The question asked for something the table lacks: say so and list its columns."
    ] = False,
) -> pd.DataFrame:
    """What a client table holds: rows, the first and last row keys, and per numeric column its
    range and latest value."""
    title = str(frame.attrs.get("title") or "table")
    key = str(frame.index.name or "")
    listed = ", ".join([*([key] if key else []), *map(str, frame.columns)])
    # The columns' own names beside their Chinese words: a follow-up may use either.
    listed_zh = "、".join(
        f"“{c}”" if zh_column(c) == c else f"“{c}”（{re.sub(r'（[^）]*）$', '', zh_column(c))}）"
        for c in [*([key] if key else []), *map(str, frame.columns)]
    )
    said = (
        [
            _say(
                ctx,
                f'I could not find that in "{title}"; its columns are: {listed}.',
                f"“{title}”中没有找到所问的内容；它的列有：{listed_zh}。",
            )
        ]
        if unanswered
        else []
    )
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    keys = [_row_label(frame, at) for at in frame.index]
    head = f'"{title}" has {len(frame)} rows and {len(frame.columns)} columns'
    head_zh = f"“{title}”共有{len(frame)}行、{len(frame.columns)}列"
    if keys:
        head += f", from {keys[0]} to {keys[-1]}"
        head_zh += f"，从{keys[0]}到{keys[-1]}"
    as_of = frame.attrs.get("as_of")
    head += f" (as of {as_of})." if as_of else "."
    head_zh += f"（截至{as_of}）。" if as_of else "。"
    lines = [*said, _say(ctx, head, head_zh)]
    rows = []
    for column in numeric:
        values = pd.to_numeric(frame[column], errors="coerce").dropna()
        if values.empty:
            continue
        latest_at = values.index[-1]
        rows.append(
            {
                "column": str(column),
                "min": float(values.min()),
                "max": float(values.max()),
                "latest": float(values.iloc[-1]),
                "latest_at": _row_label(frame, latest_at),
            }
        )
        low = _with_unit(exact(float(values.min())), frame, str(column))
        high = _with_unit(exact(float(values.max())), frame, str(column))
        latest = _with_unit(exact(float(values.iloc[-1])), frame, str(column))
        at = _row_label(frame, latest_at)
        lines.append(
            _say(
                ctx,
                f"{column}: from {low} to {high}, latest {latest} ({at}).",
                f"{zh_column(str(column))}：最低{low}，最高{high}，最新{latest}（{at}）。",
            )
        )
    others = [str(c) for c in frame.columns if c not in numeric]
    if others and not numeric and len(frame) <= _SMALL:
        # A table of text (headlines, notes) is quoted: its rows are what it says.
        texts = [
            " — ".join(str(v) for v in row if not is_missing(v))
            for row in frame[others].itertuples(index=False, name=None)
        ]
        quoted = [t for t in texts if t]
        lines = [
            _say(
                ctx,
                f'"{title}" says: ' + "; ".join(quoted) + ".",
                f"“{title}”写道：" + "；".join(quoted) + "。",
            )
        ]
    elif others:
        listed_zh = "、".join(zh_column(c) for c in others)
        lines.append(_say(ctx, f"Text columns: {', '.join(others)}.", f"文本列：{listed_zh}。"))
    result = pd.DataFrame(rows).set_index("column") if rows else pd.DataFrame()
    return _answer(result, lines, f"summary of {title}", frame, f"“{title}”的概况")
