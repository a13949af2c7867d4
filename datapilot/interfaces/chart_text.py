"""The words on a chart: titles short enough to show whole, and axis labels in the question's
language.

A title naming many entities ("Apple Inc., Microsoft Corp., … cumulative return, 2021-01-01 to
2021-12-31") is cut by renderers or runs off the figure; it becomes "Cumulative return of 5 stocks,
2021-01-01 to 2021-12-31" and the names move to the legend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from datapilot.core.outputs import Panel
from datapilot.data.text import display_width, is_chinese
from datapilot.interfaces.context import InterfaceContext

# Display columns (a Chinese character counts two) a title may take on one line.
TITLE_WIDTH = 72

_WORDS = {
    "date": ("Date", "日期"),
    "price": ("Price", "价格"),
    "volume": ("Volume", "成交量"),
    "entity": ("Entity", "标的"),
}
# How a count of entities of one kind is said: (English plural, Chinese measure word + noun).
_KINDS = {
    "stock": ("stocks", "只股票"),
    "etf": ("ETFs", "只ETF"),
    "fund": ("funds", "只基金"),
    "index": ("indices", "个指数"),
    "factor": ("factors", "个因子"),
}
_SERIES = ("series", "个序列")
# What a planner puts after a cut-short list of names: "… and 3 more", "…等".
# A moving average's line (get_ma, get_ema): ma50, ema20.
_AVERAGE = re.compile(r"(e?)ma(\d+)")
_MORE = re.compile(r"\s*(?:and \d+ more|等)")
# Red up, green down in Chinese markets; green up, red down elsewhere.
UP_GREEN, DOWN_RED = "#26a69a", "#ef5350"
UP_RED, DOWN_GREEN = "#e53935", "#2e9e57"


def word(ctx: InterfaceContext, key: str) -> str:
    """An axis word ("date", "price", "volume", "entity") in the question's language."""
    english, chinese = _WORDS[key]
    return chinese if ctx.language == "zh" else english


def say(ctx: InterfaceContext, english: str, chinese: str) -> str:
    """A note in the question's language."""
    return chinese if ctx.language == "zh" else english


def candle_colors(ctx: InterfaceContext) -> tuple[str, str]:
    """Up and down colours by the question's language (the reader's market convention)."""
    return (UP_RED, DOWN_GREEN) if ctx.language == "zh" else (UP_GREEN, DOWN_RED)


@dataclass
class _Hit:
    start: int
    end: int
    text: str


def fit_title(ctx: InterfaceContext, title: str, columns: list[str]) -> tuple[str, dict[str, str]]:
    """A title that fits on one line, and legend labels for the names it no longer says.

    When a title too long to show names several of the drawn entities, the run of names becomes
    their count ("5 stocks"); each entity's legend entry then carries the name the title used.
    A long title without such a list is kept (renderers wrap it).
    """
    if display_width(title) <= TITLE_WIDTH or len(columns) < 2:
        return title, {}
    hits = {c: hit for c in columns if (hit := _find(ctx, title, c)) is not None}
    if len(hits) < 2:
        return title, {}
    start = min(h.start for h in hits.values())
    end = max(h.end for h in hits.values())
    more = _MORE.match(title, end)
    end = more.end() if more else end
    zh = is_chinese(title)
    count = _count(ctx, columns, zh)
    head, rest = title[:start], title[end:]
    if zh:
        # "苹果、微软…等累计收益率（…）" → "5只股票的累计收益率（…）"
        joint = "的" if rest and not rest.startswith(("（", "(", "，", ",")) else ""
        short = f"{head}{count}{joint}{rest.lstrip()}"
    elif not head.strip():
        # "Apple, Microsoft, … cumulative return, 2021-…" → "Cumulative return of 5 stocks, 2021-…"
        label, tail = _split_label(rest.strip())
        short = f"{label[:1].upper()}{label[1:]} of {count}{tail}" if label else f"{count}{tail}"
    else:
        short = f"{head}{count}{rest}"
    labels = {column: hit.text for column, hit in hits.items() if hit.text != column}
    return short, labels


def _find(ctx: InterfaceContext, title: str, column: str) -> _Hit | None:
    """Where the title names a column: its id, or the entity's name or an alias (the longest)."""
    names = [column]
    entity = ctx.catalog.get(column) if ctx.catalog is not None else None
    if entity is not None:
        names += [entity.name, *entity.aliases]
    best: _Hit | None = None
    for name in {n for n in names if len(n) >= 2}:
        # A Latin name must not run into a longer word ("Apple" in "Pineapple").
        edge = r"(?<![A-Za-z0-9])" if name[0].isascii() else ""
        tail = r"(?![A-Za-z0-9])" if name[-1].isascii() else ""
        found = re.search(edge + re.escape(name) + tail, title)
        if found and (best is None or len(name) > len(best.text)):
            best = _Hit(found.start(), found.end(), name)
    return best


def _count(ctx: InterfaceContext, columns: list[str], zh: bool) -> str:
    """ "5 stocks" / "5只股票"; "3 series" when the kinds differ or are unknown."""
    kinds = set()
    for column in columns:
        entity = ctx.catalog.get(column) if ctx.catalog is not None else None
        kinds.add(entity.kind if entity is not None else None)
    english, chinese = _KINDS.get(str(kinds.pop()), _SERIES) if len(kinds) == 1 else _SERIES
    return f"{len(columns)}{chinese}" if zh else f"{len(columns)} {english}"


def _split_label(rest: str) -> tuple[str, str]:
    """("cumulative return", ", 2021-01-01 to 2021-12-31") from what follows the names."""
    cut = re.search(r",|\s\(|\s(?:in|from|since|over)\s", rest)
    if cut is None:
        return rest, ""
    return rest[: cut.start()].strip(), rest[cut.start() :]


def legend_name(column: str) -> str:
    """A drawn column as a Chinese legend (and hover) names it: an indicator's line as the summary
    says it (上轨, DIF), a result's column by its display name (预测值, 成交量), a column of the
    user's table in Chinese (营收（USD bn）); an entity's id and any other code as written."""
    from datapilot.data.display import cell_word
    from datapilot.data.phrases_zh import LINE_ZH
    from datapilot.interfaces.table_words import said_column

    base = re.sub(r"_\d+$", "", column)  # a second "close" beside the candles' is close_2
    average = _AVERAGE.fullmatch(base)
    if average:  # ma50, ema20: the summary's 50日均线
        return f"{average[2]}日{'指数' if average[1] else ''}均线"
    said = LINE_ZH.get(base) or said_column(column if base == column else base)
    return str(cell_word(said, True))  # a pair of series: AAPL与MSFT


def chinese_title(title: str, frame: pd.DataFrame) -> str:
    """The title of a Chinese answer's chart or table when the plan wrote it in another language:
    the result's own Chinese title (a table answer's), or the user's table named with its
    columns in Chinese (“prices”的收盘价、成交量); else `title` as written."""
    if is_chinese(title):
        return title
    if frame.attrs.get("title_zh"):
        return str(frame.attrs["title_zh"])
    from datapilot.interfaces.table_words import said_column

    name = str(frame.attrs.get("title") or "")
    if name and f"client table: {name}" in map(str, frame.attrs.get("sources") or []):
        return f"“{name}”的{'、'.join(said_column(str(c)) for c in frame.columns)}"
    return title


def legend_names(panels: list[Panel], bands: list[tuple[str, str]]) -> dict[str, str]:
    """A Chinese chart's legend (and hover) names of its drawn and banded columns where they are
    not the column itself: 上轨, 预测值, 下限 rather than upper, forecast, lower."""
    from datapilot.data.display import column_name

    named = {c: legend_name(c) for p in panels if p.mark != "candlestick" for c in p.y}
    named |= {c: column_name(c, True) for pair in bands for c in pair}
    return {c: n for c, n in named.items() if n != c}
