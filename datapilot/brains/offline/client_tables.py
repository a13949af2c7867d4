"""The user's own data first: which dashboard widgets a question concerns (so their data is asked
for), which of the tables the client sent it means, the columns and row keys it names, and
whether a table can be charted.

A widget is concerned when the question names one of its parameter values (its symbol, a
country), points at it ("this", "these", "the selected widget", "dashboard"), names the widget,
or names nothing else. Dashboard widgets the user did not select are picked by how well the
question's words match their name, description and parameter values, never by position.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from rapidfuzz import fuzz

from datapilot.brains.offline.phrases import Hit
from datapilot.core.context import ClientTable, WidgetInfo
from datapilot.data.client_data import is_missing, parse_number
from datapilot.interfaces.table_words import (
    closest_word,
    english_words,
    meanings,
    only_table_words,
)

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
# Words that point at what the user has on screen, beside the vocabulary's client-table cues.
_POINTER = re.compile(
    r"(?i)(?<![a-z])(?:this|these|those|selected|widgets?|dashboard|above|attached)(?![a-z])"
    r"|这个|这些|选中|组件|仪表盘|看板|上面"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.^&_-]*|\d{4}|[\u4e00-\u9fff]+")
# Words too common to tie a question to a widget by themselves.
_COMMON = {
    "the", "a", "an", "of", "in", "on", "for", "and", "or", "to", "is", "what", "which", "how",
    "show", "me", "data", "get", "give", "latest", "last", "from", "by", "with", "this", "that",
    "stock", "price", "prices", "value", "values", "chart", "table", "plot", "about", "are",
}  # fmt: skip
_SECONDARY_SCORE = 75  # rapidfuzz token-set score (0–100) for a dashboard widget to be picked
_MAX_SECONDARY = 3


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _values(params: dict[str, Any]) -> list[str]:
    """A widget's parameter values that can be named in a question (tickers, countries); a
    multi-symbol value written "AAPL,MSFT" names each symbol."""
    found: list[str] = []
    for value in params.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str) or ISO_DATE.match(item):
                continue
            found += [part.strip() for part in item.split(",") if part.strip()]
    return found


def _names_value(text: str, value: str, entity_ids: Iterable[str]) -> bool:
    """The question names `value`: as a word (AAPL, united states) or through an entity named
    (Apple → AAPL)."""
    if value.casefold() in {e.casefold() for e in entity_ids}:
        return True
    spoken = re.escape(value).replace("_", "[ _]").replace(r"\ ", "[ _]")
    return bool(re.search(rf"(?i)(?<![A-Za-z0-9]){spoken}(?![A-Za-z0-9])", text))


def points_at_data(text: str, hits: Iterable[Hit]) -> bool:
    """ "this widget", "these", "selected", "dashboard", 这个组件 …"""
    return bool(_POINTER.search(text)) or any(h.has("cue:client_table") for h in hits)


def _names_widget(text: str, name: str) -> bool:
    words = _words(name) - _COMMON
    return bool(words) and words <= _words(text)


def widgets_to_fetch(
    text: str,
    widgets: Sequence[WidgetInfo],
    tables: Sequence[ClientTable],
    hits: Iterable[Hit],
    entity_ids: Sequence[str],
    names_nothing: bool,
) -> tuple[list[WidgetInfo], list[str]]:
    """The widgets whose data the question needs and has not got yet, with why."""
    arrived = {t.name for t in tables if t.source == "widget"}
    pending = [w for w in widgets if (w.name or w.widget_id) not in arrived and not w.extra]
    if not pending:
        return [], []
    hits = list(hits)
    pointed = points_at_data(text, hits)
    chosen: list[WidgetInfo] = []
    trace: list[str] = []
    for widget in (w for w in pending if w.primary):
        label = widget.name or widget.widget_id
        named = [v for v in _values(widget.params) if _names_value(text, v, entity_ids)]
        if named:
            trace.append(f'"{named[0]}" is a parameter of the selected widget "{label}"')
        elif _names_widget(text, label):
            trace.append(f'the question names the selected widget "{label}"')
        elif pointed:
            trace.append(f'the question points at the selected widget "{label}"')
        elif names_nothing:
            trace.append(f'nothing else named: the selected widget "{label}"')
        else:
            continue
        chosen.append(widget)
    scored = []
    for widget in (w for w in pending if not w.primary):
        score = _secondary_score(text, widget, entity_ids)
        if score >= _SECONDARY_SCORE:
            scored.append((score, widget))
    for score, widget in sorted(scored, key=lambda pair: -pair[0])[:_MAX_SECONDARY]:
        chosen.append(widget)
        label = widget.name or widget.widget_id
        trace.append(f'the dashboard widget "{label}" matches the question (score {score:.0f})')
    return chosen, trace


_SYMBOL_PARAM = re.compile(r"(?i)^(symbol|ticker|symbols|tickers|code)$")
_EXTRA_SCORE = 60


def extra_widget_for(
    text: str, widgets: Sequence[WidgetInfo], missing: Sequence[str]
) -> tuple[WidgetInfo | None, str]:
    """An extra data source (not on the dashboard) that can fetch what the bundled data lacks:
    one with a symbol parameter whose name and description match the question, asked for with
    the missing entity's id as its symbol."""
    if not missing:
        return None, ""
    question = " ".join(sorted(_words(text) - _COMMON))
    best: tuple[float, WidgetInfo] | None = None
    for widget in (w for w in widgets if w.extra):
        symbol = next((name for name in widget.params if _SYMBOL_PARAM.match(name)), None)
        about = " ".join(sorted(_words(f"{widget.name} {widget.description}") - _COMMON))
        if symbol is None or not question or not about:
            continue
        score = float(fuzz.token_set_ratio(question, about))
        if score >= _EXTRA_SCORE and (best is None or score > best[0]):
            best = (score, widget)
    if best is None:
        return None, ""
    score, widget = best
    symbol = next(name for name in widget.params if _SYMBOL_PARAM.match(name))
    chosen = widget.model_copy(update={"params": {**widget.params, symbol: missing[0]}})
    why = f'no bundled data for {missing[0]}: asking the data source "{widget.name}" for it'
    return chosen, f"{why} (score {score:.0f})"


def _secondary_score(text: str, widget: WidgetInfo, entity_ids: Sequence[str]) -> float:
    """How well the question matches a dashboard widget the user did not select: its name and
    description by rapidfuzz, a named parameter value adding to it."""
    asked = _words(english_words(text))  # 新闻 → news, 股息 → dividend
    question = " ".join(sorted(asked - _COMMON))
    about = " ".join(sorted(_words(f"{widget.name} {widget.description}") - _COMMON))
    if not question or not about:
        return 0.0
    score = fuzz.token_set_ratio(question, about)
    name_words = _words(widget.name) - _COMMON
    if name_words and name_words <= asked:
        score = max(score, 90.0)
    elif {_stem(w) for w in name_words} & {_stem(w) for w in asked}:
        # A word of its name, in any number ("the forecasts", "dividend"), picks the widget.
        score = max(score, 80.0)
    values = _values(widget.params)
    if values and not any(_names_value(text, v, entity_ids) for v in values):
        # The widget shows another symbol or country than the one the question names.
        named_other = bool(entity_ids)
        score -= 40 if named_other else 0
    elif values:
        score += 10
    return float(score)


def find_tables(
    text: str, tables: Sequence[ClientTable], hits: Iterable[Hit], entity_ids: Sequence[str]
) -> tuple[list[ClientTable], list[str], set[str]]:
    """The client tables the question concerns, why, and the entity ids they stand for (a widget
    of AAPL prices answers for AAPL: its data wins over bundled data)."""
    if not tables:
        return [], [], set()
    lowered = text.casefold()
    named = [t for t in tables if t.name and t.name.casefold() in lowered]
    if named:
        stands_for = {
            e
            for t in named
            for e in entity_ids
            if any(e.casefold() == v.casefold() for v in _values(t.params))
        }
        return named, [f'"{t.name}" → the table you sent' for t in named], stands_for
    by_param: list[ClientTable] = []
    claimed: set[str] = set()
    for table in tables:
        values = _values(table.params)
        hit = [e for e in entity_ids if any(e.casefold() == v.casefold() for v in values)]
        if hit or any(_names_value(text, v, ()) for v in values):
            by_param.append(table)
            claimed.update(hit)
    for table in (t for t in tables if t not in by_param):
        # A row of the table names the entity and a column what is asked of it ("shares of
        # MSFT" in a holdings table): the table answers, not the bundled data.
        cells = {v.strip().casefold() for row in table.rows for v in row if isinstance(v, str)}
        rows = [e for e in entity_ids if e.casefold() in cells]
        if rows and table_columns(text, table):
            by_param.append(table)
            claimed.update(rows)
    if by_param:
        trace = [f'the widget "{t.name}" holds what the question names' for t in by_param]
        return by_param, trace, claimed
    if points_at_data(text, hits):
        names = ", ".join(f'"{t.name}"' for t in tables)
        return list(tables), [f"the question points at the data you sent: {names}"], set()
    if not entity_ids:
        names = ", ".join(f'"{t.name}"' for t in tables)
        return list(tables), [f"no entity named: using the data you sent, {names}"], set()
    return [], [], set()


# --- columns and rows a question names ---------------------------------------------------------

# Column-name words that qualify a measure rather than name it (revenue_avg is "revenue").
_QUALIFIERS = {
    "avg", "average", "mean", "est", "estimate", "estimated", "consensus", "value", "total",
    "usd", "pct", "percent", "num", "number", "of", "the", "ttm", "fy", "actual", "reported",
    # units and counts in a column's name: "Revenue (USD bn)", "analyst_count", "no_of_estimates"
    "bn", "mn", "billion", "million", "thousand", "cny", "eur", "in", "count", "no", "n",
}  # fmt: skip
# Words of a column that count things ("number_of_analysts", "estimate_count").
_COUNTING = {"number", "num", "count", "no", "n"}
_PREFERRED = {"avg", "average", "mean", "consensus", "value"}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


# Compared with stemmed words: "consensus" is stemmed to "consensu" like any other word.
_QUALIFIERS |= {_stem(w) for w in _QUALIFIERS}
_PREFERRED |= {_stem(w) for w in _PREFERRED}


def table_columns(text: str, table: ClientTable) -> list[str]:
    """Columns of a client table the question names (see `columns_named`)."""
    return columns_named(text, [str(c) for c in table.columns])


def columns_named(text: str, columns: Sequence[str]) -> list[str]:
    """Of `columns`, those the question names: the whole name ("close", "eps_avg") or its
    measure words ("consensus revenue" → revenue_avg; "EPS estimate" → eps_avg), in English or
    Chinese (一致预期营收 → revenue_avg); a misspelt word ("revenu") stands for the column word
    it is closest to."""
    lowered = english_words(text).casefold()
    synonyms, fallback, _ = meanings()
    said = re.findall(r"[a-z0-9]+", lowered)
    asked = {_stem(synonyms.get(w, w)) for w in said}
    known = sorted(
        {_stem(w) for c in columns for w in re.findall(r"[a-z0-9]+", str(c).casefold())}
        - _QUALIFIERS
    )
    for word in said:
        # "the stock price" of a table without a price column is its close (never its open).
        meant = [_stem(w) for w in fallback.get(word, "").split()]
        if meant and _stem(word) not in known and all(w in known for w in meant):
            asked |= set(meant)
    asked |= {
        close
        for w in asked - set(known)
        if not w.isdigit() and (close := closest_word(w, known)) is not None
    }
    found: dict[str, float] = {}
    for column in columns:
        name = str(column).strip()
        if not name:
            continue
        if re.search(rf"(?<![a-z0-9]){re.escape(name.casefold())}(?![a-z0-9])", lowered):
            found[name] = 3.0
            continue
        words = [_stem(w) for w in re.findall(r"[a-z0-9]+", name.casefold())]
        core = [w for w in words if w not in _QUALIFIERS]
        if core and all(w in asked for w in core):
            bonus = sum(w in asked for w in words if w in _QUALIFIERS) * 0.1
            bonus += 0.05 * any(w in _PREFERRED for w in words)
            found[name] = 1.0 + len(core) * 0.01 + bonus
    # Of columns naming the same measure (revenue_low, revenue_avg) keep the best.
    best: dict[str, tuple[float, str]] = {}
    for name, score in found.items():
        words = [_stem(w) for w in re.findall(r"[a-z0-9]+", name.casefold())]
        measure = " ".join(w for w in words if w not in _QUALIFIERS) or name
        if measure not in best or score > best[measure][0]:
            best[measure] = (score, name)
    kept = {name for _, name in best.values()}
    return sorted(kept, key=lambda n: lowered.find(_first_core(n)) % 10_000)


_HOW_MANY = re.compile(
    r"(?i)\bhow\s+many\s+(?:of\s+the\s+|the\s+)?([a-z][a-z _-]{0,40})"
    r"|(?:多少|几)(?:个|位|名|家|项|份|条)?([\u4e00-\u9fffA-Za-z]{1,8})"
)
_NOT_COUNTED = {
    "is", "are", "was", "were", "do", "does", "did", "in", "for", "of", "there", "have", "has",
    "cover", "covers", "it", "this", "that", "by", "on", "at", "per", "from", "to", "and", "the",
    "based", "behind", "make", "made", "give", "gave",
}  # fmt: skip


def counted_column(text: str, columns: Sequence[str]) -> str | None:
    """The column holding what "how many X" / 多少X asks for ("how many estimates is it based
    on?" → number_of_analysts): a column named by X or by a word counting the same things,
    one named like a count first. None when no column is: then "how many" counts rows."""
    found = _HOW_MANY.search(text)
    if found is None:
        return None
    phrase = english_words(found.group(1) or found.group(2) or "").casefold()
    words: list[str] = []
    for word in re.findall(r"[a-z0-9]+", phrase):
        if word in _NOT_COUNTED:
            if words:
                break
            continue
        words.append(_stem(word))
    if not words:
        return None
    _, _, counted = meanings()
    wanted = set(words) | {w for word in words for w in counted.get(word, ())}
    best: tuple[int, str] | None = None
    for column in columns:
        parts = [_stem(w) for w in re.findall(r"[a-z0-9]+", str(column).casefold())]
        if not wanted & set(parts):
            continue
        score = 2 * any(w in _COUNTING for w in parts) + any(w in words for w in parts)
        if best is None or score > best[0]:
            best = (score, str(column))
    return best[1] if best else None


def _first_core(name: str) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", name.casefold()) if w not in _QUALIFIERS]
    return _stem(words[0]) if words else name.casefold()


def table_words_only(name: str, text: str = "") -> bool:
    """An unknown Chinese run made only of table words (财年, 一致预期): no entity is named."""
    return only_table_words(name, text)


def key_text(text: str) -> str:
    """A row key compared loosely: case, `FY`, punctuation and spaces do not matter."""
    folded = re.sub(r"\bfy\s*'?", "", str(text).casefold().strip())
    folded = re.sub(r"\.0$", "", folded)
    return re.sub(r"[\s_\-/]+", " ", folded).strip()


def row_keys(text: str, labels: Iterable[Any]) -> list[str]:
    """Row labels the question names, in the order it names them ("2023→2026", "FY2024",
    "AAPL"); a year also names the rows of a dated table within it."""
    lowered = " " + re.sub(r"[→➝>]|->|–|—|~", " ", text.casefold()) + " "
    lowered = re.sub(r"\bfy\s*'?", " ", lowered)
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    labels = list(labels)
    # Days named in full are those rows; then a year names no rows of a dated table.
    days = {str(v)[:10] for v in labels if ISO_DATE.match(str(v)) and str(v)[:10] in lowered}
    found += [(lowered.find(day), day) for day in days]
    for label in labels:
        raw = str(label)
        year = ISO_DATE.match(raw)
        if year and days:
            continue
        key = raw[:4] if year else key_text(raw)
        if not key or key in seen or (len(key) < 2 and not key.isdigit()):
            continue
        spoken = re.escape(key).replace(r"\ ", "[ _-]?")
        match = re.search(rf"(?<![a-z0-9.]){spoken}(?![a-z0-9])", lowered)
        if match:
            seen.add(key)
            found.append((match.start(), raw[:4] if year else raw))
    return [key for _, key in sorted(found)]


def numeric_columns(table: ClientTable, wanted: list[str]) -> list[str]:
    """Columns (among `wanted`, if given) whose values are mostly numbers."""
    found = []
    for index, column in enumerate(table.columns):
        if wanted and column not in wanted:
            continue
        values = [
            row[index] for row in table.rows if index < len(row) and not is_missing(row[index])
        ]
        numbers = sum(parse_number(v) is not None for v in values)
        if values and numbers >= 0.8 * len(values):
            found.append(str(column))
    return found
