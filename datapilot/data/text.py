"""Text normalisation shared by alias keys and mention matching (positions are preserved),
and telling Chinese text from English."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Dropped when comparing names, so "S&P500" = "S&P 500", "T-bill" = "T bill", "Inc." = "Inc".
_SEPARATORS = frozenset(" \t\r\n-_.'·・")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "＇": "'"})
CJK = re.compile(r"[\u3400-\u9fff]")  # the CJK unified ideographs (and extension A)
# A Latin word with its trailing spaces, or one wide character (a line may break after either).
_WRAP_TOKENS = re.compile(r"[^\s\u2e80-\uffff]+\s*|[\u2e80-\uffff]\s*|\s+")


def normalise(text: str) -> str:
    """NFKC each character (full-width → ASCII) without changing the length of the text."""
    if text.isascii():  # NFKC leaves ASCII as it is (and there are no curly quotes in it)
        return text
    out = []
    for char in text.translate(_QUOTES):
        folded = unicodedata.normalize("NFKC", char)
        out.append(folded if len(folded) == 1 else char)
    return "".join(out)


def fold(text: str) -> str:
    """`normalise` then lower-case, still one character per input character."""
    if text.isascii():  # ASCII lower-cases one character per character
        return text.lower()
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in normalise(text))


def compact(text: str) -> tuple[str, list[int]]:
    """Folded text without separators, and for each kept character its index in `text`."""
    kept: list[str] = []
    positions: list[int] = []
    for index, char in enumerate(fold(text)):
        if char not in _SEPARATORS:
            kept.append(char)
            positions.append(index)
    return "".join(kept), positions


def key(name: str) -> str:
    """The comparison key of a name: folded, separators dropped."""
    # Cached for names (the catalog's ~5,500 are keyed by its index, the entity matcher and the
    # name check alike); long text is not kept, so the cache stays small whatever is asked.
    return _name_key(name) if len(name) <= 200 else compact(name.strip())[0]


@lru_cache(maxsize=32_768)
def _name_key(name: str) -> str:
    return compact(name.strip())[0]


def is_word_char(char: str) -> bool:
    """ASCII letters and digits: the characters a Latin name must not run into."""
    return char.isascii() and char.isalnum()


def is_chinese(text: str) -> bool:
    """True when `text` contains CJK characters."""
    return bool(CJK.search(text))


# Zipf frequency (log10 per billion words) from which an English word is everyday vocabulary:
# "should" 6.0, "buy" 5.3, "micro" 4.1 are; "Appel" 2.5, "Rivian" 1.1, "jpm" 2.2 are not.
COMMON_ZIPF = 4.0


# Written with a capital, a word must be more common still to be no name: "Should" (6.0) is a
# word, "Bitcoin" (4.3) a name.
COMMON_CAPITALISED_ZIPF = 5.0


@lru_cache(maxsize=4096)
def is_common_word(word: str) -> bool:
    """An everyday English word ("should", "so", "Buy"), which is never a name by itself."""
    from datapilot.data.common_words import zipf  # a shipped list, not wordfreq's 0.3 s load

    floor = COMMON_CAPITALISED_ZIPF if word[:1].isupper() else COMMON_ZIPF
    return zipf(word.lower()) >= floor


def display_width(text: str) -> int:
    """Columns `text` takes on screen: wide (CJK, full-width) characters count two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap_display(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` display columns, broken at spaces or between wide
    (Chinese) characters, never inside a Latin word."""
    lines: list[str] = []
    line = ""
    for token in _WRAP_TOKENS.findall(text):
        if line and display_width(line + token.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines
