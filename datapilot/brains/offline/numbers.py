"""Counts written as digits, English words ("ten", "twenty-five") or Chinese numerals (十二)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
ZH_DIGITS |= {"七": 7, "八": 8, "九": 9}
ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
# No count or year is written with more numerals; a longer run is no number (and a run of
# thousands once read as an int too large for a float).
_ZH_LONGEST = 20
# A run of Chinese numerals, matched from its first character only: a rule never restarts inside
# a run, so a long run costs one reading, not one per character.
ZH_NUMERAL = "(?:(?<![零〇一二两三四五六七八九十百千])[零〇一二两三四五六七八九十百千]+)"
# Digits, likewise from the first of a run (the text's digits are ASCII: parsing.normalise_text).
DIGITS = r"(?:(?<![0-9])[0-9]+)"


def zh_number(text: str) -> int | None:
    """Read a Chinese numeral: 三 → 3, 十二 → 12, 二十五 → 25, 一百 → 100, 二〇一九 → 2019."""
    if len(text) > _ZH_LONGEST:
        return None
    if not text or any(ch not in ZH_DIGITS and ch not in ZH_UNITS for ch in text):
        return None
    if not any(ch in ZH_UNITS for ch in text):
        # Digit by digit, as years are written: 二〇一九.
        return int("".join(str(ZH_DIGITS[ch]) for ch in text))
    total, current = 0, 0
    for ch in text:
        if ch in ZH_DIGITS:
            current = ZH_DIGITS[ch]
        else:
            total += (current or 1) * ZH_UNITS[ch]
            current = 0
    return total + current


def en_number_pattern(words: Mapping[str, int]) -> str:
    """Digits, or one or two number words joined by a hyphen or space ("twenty-five")."""
    word = _any_word(words)
    return rf"(?:\d+(?:\.\d+)?|{word}(?:[-\s]{word})?(?![A-Za-z]))"


def _any_word(words: Iterable[str]) -> str:
    """One of `words`, the longest first, a space in one matching any run of spaces."""
    names = sorted(words, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in names) + ")"


def read_number(text: str, words: Mapping[str, int]) -> float | None:
    """The value of a count in any of the three notations; None when it is not a number."""
    text = text.strip().lower()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    spoken = zh_number(text)
    if spoken is not None:
        return float(spoken)
    normalised = " ".join(text.split())
    if normalised in words:
        return float(words[normalised])
    parts = re.split(r"[-\s]+", normalised)
    if len(parts) == 2 and all(part in words for part in parts):
        tens, ones = words[parts[0]], words[parts[1]]
        if tens % 10 == 0 and tens >= 20 and ones < 10:
            return float(tens + ones)
    return None


# A number said in words where a figure compares or multiplies: "closed above thirty", "more than
# five percent", "two times daily leverage". Quantifiers ("a few", "several") are no figure.
_COMPARED = r"\b(?:above|below|over|under|than|least|most|beyond|exceed(?:ed|ing|s)?)\s+"
_SCALED = r"(?=\s+(?:times\b|x\b|percent\b|per\s?cent\b|points?\b|%|dollars?\b|bucks\b|usd\b))"
_MULTIPLIERS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_VAGUE = frozenset({"a", "an", "few", "a few", "several", "couple", "couple of", "a couple of"})


@lru_cache(maxsize=8)
def _spoken(words: tuple[tuple[str, int], ...]) -> re.Pattern[str]:
    word = _any_word(w for w, _ in words)
    times = "|".join(_MULTIPLIERS)
    spoken = rf"{word}(?:[-\s]{word})?(?:\s+(?:{times}))?(?![A-Za-z])"
    return re.compile(rf"(?P<cue>{_COMPARED})(?P<n>{spoken})|\b(?P<m>{spoken}){_SCALED}", re.I)


def digits_for_words(text: str, words: Mapping[str, int]) -> str:
    """`text` with each number word that states a figure written in digits, zero-padded to the
    word's length so every position stays where it was ("above thirty" → "above 000030")."""
    figures = {w: n for w, n in words.items() if w not in _VAGUE}
    if text.isascii() and not any(w in text.lower() for w in figures):
        return text

    def digits(found: re.Match[str]) -> str:
        said = found.group("n") or found.group("m")
        *count, last = said.lower().split()
        scale = _MULTIPLIERS.get(last)
        value = read_number(" ".join(count) if scale else said, figures)
        value = value * scale if value is not None and scale else value
        # Zeros before the digits keep the length and read as the same number, so a span over
        # the digits covers the whole word ("above thirty" → "above 000030").
        written = f"{value:g}".zfill(len(said)) if value is not None else said
        written = written if len(written) == len(said) else said
        return (found.group("cue") or "") + written

    return _spoken(tuple(sorted(figures.items()))).sub(digits, text)


# A percent said in Chinese words: 百分之二 (2%), 百分之三点五 (3.5%), 百分之十五; a tenth said as
# 成 after a move (涨了三成, 跌超两成: 30%, 20%).
_ZH_PERCENT_WORDS = re.compile(
    r"百分之(?P<n>\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百]+)(?:点(?P<f>[零〇一二三四五六七八九]+))?"
    # (not an approximation: 涨了五成多 is "over half", read as said)
    r"|(?<=[涨跌超过了亏赚到])(?P<t>[一二两三四五六七八九])成(?![本交功立绩为员多左上])"
)
_ZH_DIGIT = {c: str(i) for i, c in enumerate("零一二三四五六七八九")} | {"〇": "0", "两": "2"}


def zh_percents(text: str) -> str:
    """`text` with each percent said in Chinese words written as digits and %."""

    def written(found: re.Match[str]) -> str:
        if found["t"]:
            return f"{zh_number(found['t'])}0%"
        said = found["n"]
        whole = said if said[0].isdigit() else zh_number(said)
        if whole is None:
            return found[0]
        fraction = "".join(_ZH_DIGIT[c] for c in found["f"]) if found["f"] else ""
        return f"{whole}.{fraction}%" if fraction else f"{whole}%"

    return _ZH_PERCENT_WORDS.sub(written, text) if ("百分之" in text or "成" in text) else text
