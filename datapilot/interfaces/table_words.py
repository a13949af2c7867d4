"""The words of a table's columns in Chinese: a vocabulary (`table_words.toml`) maps common
finance words (营收, 每股收益, 收盘价 …) to the words English column names are made of, so a
Chinese question finds `revenue_avg` or `close`; rapidfuzz matches what the vocabulary lacks."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from rapidfuzz import fuzz, process

_FILE = Path(__file__).with_name("table_words.toml")
_CJK = re.compile(r"[\u3400-\u9fff]")
_FUZZY = 85  # rapidfuzz ratio (0–100) for a misspelt word to stand for a column's word


@cache
def _vocabulary() -> tuple[dict[str, str], tuple[str, ...]]:
    content = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    columns = {str(k): str(v) for k, v in content["columns"].items()}
    return columns, tuple(str(w) for w in content["question"]["words"])


def column_words() -> dict[str, str]:
    """The Chinese column words and the English words they stand for (营收 → revenue)."""
    return dict(_vocabulary()[0])


@cache
def meanings() -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, ...]]]:
    """The English question words that mean a column word (closing → close), those that mean one
    only when no column has the word itself (price → close), and the other words a column
    counting a thing may be named by (estimates → analysts); see `table_words.toml`."""
    content = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    synonyms = {str(k): str(v) for k, v in content["synonyms"].items()}
    fallback = {str(k): str(v) for k, v in content["fallback"].items()}
    counted = {str(k): tuple(map(str, v)) for k, v in content["counted"].items()}
    return synonyms, fallback, counted


def english_words(text: str) -> str:
    """`text` with its Chinese column words put in English words ("2024财年营收" → "2024
    fiscal year revenue"), longest phrase first; other text kept."""
    if not _CJK.search(text):
        return text
    columns, _ = _vocabulary()
    pattern = "|".join(re.escape(k) for k in sorted(columns, key=len, reverse=True))
    return re.sub(pattern, lambda m: f" {columns[m.group(0)]} ", text)


def only_table_words(run: str, text: str = "") -> bool:
    """A run of Chinese the catalog does not know is made only of column and question words
    (财年, 一致预期, 按财年), so it names no entity. With the question's `text`, words that
    straddle the run's ends count too (a run "分析师对每股" inside "…每股收益…")."""
    columns, words = _vocabulary()
    vocabulary = sorted([*columns, *words], key=len, reverse=True)
    at = text.find(run) if text else -1
    rest = text if at >= 0 else run
    for word in vocabulary:
        rest = rest.replace(word, " " * len(word))
    if at >= 0:
        rest = rest[at : at + len(run)]
    return not re.search(r"[\u3400-\u9fff]{2,}", rest)


@cache
def _english_vocabulary() -> frozenset[str]:
    content = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    columns, _ = _vocabulary()
    synonyms, fallback, counted = meanings()
    words = {w for v in columns.values() for w in v.split()}
    words |= {*synonyms, *synonyms.values(), *fallback}
    words |= {*counted, *(w for v in counted.values() for w in v)}
    words |= set(content["question"].get("en", []))
    return frozenset(words)


def reads_word(word: str) -> bool:
    """Whether the table reader acts on `word` of a question about a table: a column or question
    word in either language ("latest", "estimates", 最新, 分析师, 基于), so a ledger of the
    question counts it as read."""
    if _CJK.search(word):
        return only_table_words(word)
    folded = word.casefold()
    vocabulary = _english_vocabulary()
    return folded in vocabulary or (folded.endswith("s") and folded[:-1] in vocabulary)


@cache
def _answer_words() -> dict[tuple[str, ...], str]:
    """English column words (as word tuples) → how a Chinese answer says them."""
    content = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    columns, _ = _vocabulary()
    said: dict[tuple[str, ...], str] = {}
    for zh, en in columns.items():
        said.setdefault(tuple(en.split()), zh)  # the first Chinese word listed for it
    said.update({tuple(str(k).split()): str(v) for k, v in content["answer"].items()})
    return said


_SPLIT = re.compile(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])")
_UNIT = re.compile(r"\s*\(([^)]*)\)\s*$")


def chinese_column(name: str) -> str:
    """A column as a Chinese answer says it: `close` → 收盘价, `number_of_analysts` → 分析师人数,
    "Revenue (USD bn)" → 营收（USD bn）. A name with a word the vocabulary lacks is kept as it is,
    so the answer never says half a column."""
    unit = _UNIT.search(name)
    words = [w.casefold() for w in _SPLIT.split(name[: unit.start()] if unit else name) if w]
    said = _answer_words()
    parts: list[str] = []
    i = 0
    while i < len(words):
        n = next((n for n in range(len(words) - i, 0, -1) if tuple(words[i : i + n]) in said), 0)
        if n == 0:
            return name
        parts.append(said[tuple(words[i : i + n])])
        i += n
    if not parts:
        return name
    return "".join(parts) + (f"（{unit.group(1)}）" if unit else "")


def said_column(column: str) -> str:
    """A column as a Chinese table or legend names it: a result's column by its display name
    (预测值, 最新值), a column of the user's table by its words (营收（USD bn）), else as
    written."""
    from datapilot.data.display import column_name

    named = column_name(column, True)
    return named if named != column else chinese_column(column)


def named_cell(value: object, column: str) -> object:
    """A Chinese table's cell that names a column: a column of the user's table (in a table
    answer's "column") or a measure (return_pct, in the id column of statistics over entities)
    by its Chinese name; an entity's id and any other value as it is."""
    from datapilot.data.display import column_name

    if not isinstance(value, str):
        return value
    if column == "column":
        return said_column(value)
    return column_name(value, True) if column == "id" else value


def closest_word(word: str, choices: list[str]) -> str | None:
    """The column word a misspelt or inflected question word stands for ("revenu" → revenue)."""
    if len(word) < 4 or not choices:
        return None
    found = process.extractOne(word, choices, scorer=fuzz.ratio, score_cutoff=_FUZZY)
    return str(found[0]) if found else None
