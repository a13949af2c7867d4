"""The common wordings of a Chinese name, so a series is found however its name is worded.

A tenor's count is written in digits or characters (3个月 / 三个月, 2年期 / 两年期 / 二年期),
with or without 期 (3个月期 / 3个月); 美国 before a name that opens with a tenor may also follow
the tenor or be left out (美国3个月国债利率 / 3个月期美国国债利率 / 3个月国债利率); words a file
lists as one (`zh_interchangeable` in the matching rules: 国债 / 美债 / 国库券) stand for each
other. Only names with a tenor or such a word have other wordings; 美国 is never dropped
elsewhere (美国银行 is a bank, not 银行). A frequency word at one end of a name may stand at the
other (WTI月度 / 月度WTI).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

_DIGITS = "零一二三四五六七八九"
_TENOR = re.compile(
    r"(?P<count>\d{1,2}|[一二两三四五六七八九十]{1,3})\s*(?P<unit>个月|年|周|天)(?P<term>期)?"
)
_COUNTRY = "美国"
_FREQUENCY_WORDS = ("月度", "季度", "年度", "周度", "日度")


def zh_wordings(name: str, interchangeable: Sequence[Sequence[str]] = ()) -> set[str]:
    """Every wording of `name` but itself (empty for a name with no tenor and no listed word)."""
    listed = [group for group in interchangeable if any(word in name for word in group)]
    moved = _frequency_moved(name)
    if not listed and _TENOR.search(name) is None:
        return moved - {name}
    found = {name, *moved}
    for group in listed:
        found |= {swapped for said in found for swapped in _swaps(said, group)}
    found |= {worded for said in found for worded in _tenors(said)}
    found |= {placed for said in found for placed in _placings(said)}
    found.discard(name)
    return found


def _frequency_moved(name: str) -> set[str]:
    """The name with a frequency word at one end said at the other (WTI月度 → 月度WTI)."""
    for word in _FREQUENCY_WORDS:
        rest = name.removeprefix(word) if name.startswith(word) else name.removesuffix(word)
        if rest != name and rest:
            return {f"{word}{rest}", f"{rest}{word}"}
    return set()


def _swaps(name: str, group: Iterable[str]) -> set[str]:
    words = sorted(group, key=len, reverse=True)  # 国库券 before a shorter word inside it
    for word in words:
        if word in name:
            return {name.replace(word, other) for other in words}
    return set()


def _tenors(name: str) -> set[str]:
    found = _TENOR.search(name)
    if found is None:
        return set()
    number = _count(found["count"])
    if number is None:
        return set()
    counts = {str(number), *_characters(number)}
    unit = found["unit"]
    terms = ("", "期") if unit in ("个月", "年") else ("",)
    head, tail = name[: found.start()], name[found.end() :]
    return {f"{head}{count}{unit}{term}{tail}" for count, term in itertools.product(counts, terms)}


def _placings(name: str) -> set[str]:
    """美国 before a tenor that opens the name, after it, or not said."""
    rest = name.removeprefix(_COUNTRY)
    tenor = _TENOR.match(rest)
    if tenor is None:
        return set()
    opening, after = rest[: tenor.end()], rest[tenor.end() :].removeprefix(_COUNTRY)
    return {f"{_COUNTRY}{opening}{after}", f"{opening}{_COUNTRY}{after}", f"{opening}{after}"}


def _count(said: str) -> int | None:
    if said.isdigit():
        return int(said)
    said = said.replace("两", "二")
    if said == "十":
        return 10
    if said.startswith("十"):
        return 10 + _DIGITS.index(said[1]) if len(said) == 2 else None
    if len(said) == 1:
        return _DIGITS.index(said)
    if len(said) in (2, 3) and said[1] == "十":
        tens = _DIGITS.index(said[0]) * 10
        return tens + (_DIGITS.index(said[2]) if len(said) == 3 else 0)
    return None


def _characters(number: int) -> list[str]:
    """A count in characters: 3 → 三, 2 → 两 and 二, 10 → 十, 12 → 十二, 30 → 三十."""
    if number <= 0 or number > 99:
        return []
    tens, ones = divmod(number, 10)
    if tens == 0:
        return ["两", "二"] if number == 2 else [_DIGITS[ones]]
    head = "十" if tens == 1 else _DIGITS[tens] + "十"
    return [head + (_DIGITS[ones] if ones else "")]
