"""Counts written as digits, English words ("ten", "twenty-five") or Chinese numerals (十二)."""

from __future__ import annotations

import re
from collections.abc import Mapping

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
    names = sorted(words, key=lambda w: (-len(w), w))
    word = "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in names) + ")"
    return rf"(?:\d+(?:\.\d+)?|{word}(?:[-\s]{word})?(?![A-Za-z]))"


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
