"""What words in brackets do to what they follow: restate it, never add to it.

"In the early 80s (1980-1984)": dates in brackets right after a period say what that period
means, so they are the window (never a second window the first sits inside). A formula in
brackets after a measure ("annualized (q/q compounded, i.e. (Q/Qprev)^4-1)", 年化波动率（日收益率
样本标准差×√252）) says how that measure is computed: the measure answers it, and its numbers are
no thresholds or amounts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the time grammar imports this module
    from datapilot.brains.offline.windows import Clause

_OPEN = re.compile(r"\s*[(（\[]\s*")
_CLOSE = re.compile(r"\s*[)）\]]")
# ... or after the name of what the period held: "今年春节（2月5号）" (an English start said so,
# "since this year's Lunar New Year (Feb 5)", is pinned by its day: `windows._pins`).
_NAMED_OPEN = re.compile(r"[\u4e00-\u9fff]{1,4}\s*[(（\[]\s*")
_RESTATED = re.compile(r"\s*(?:[,:，：(（]\s*)?(?:(?:from|of|in)\s+)?")


def restates(text: str, said: Clause, inside: Clause) -> bool:
    """`inside` is the whole of a bracket right after `said`, and says its window otherwise:
    overlapping it, not the same (a day without its year read in another year, "Thanksgiving
    2011 (Nov 24)", restates nothing)."""
    if None in (said.start, said.end, inside.start, inside.end):
        return False
    if said.rule == "rolling" and _RESTATED.fullmatch(text[said.span[1] : inside.span[0]]):
        # "over the ten years 2010–2019": a length restated by the dates right after it
        assert said.start and said.end and inside.start and inside.end
        length, dated = (said.end - said.start).days, (inside.end - inside.start).days
        return length > 0 and abs(length - dated) <= 0.02 * length
    gap = text[said.span[1] : inside.span[0]]
    opens = _OPEN.fullmatch(gap) or _NAMED_OPEN.fullmatch(gap)
    if not (opens and _CLOSE.match(text, inside.span[1])):
        return False
    assert said.start and said.end and inside.start and inside.end
    overlap = said.start <= inside.end and inside.start <= said.end
    return overlap and (said.start, said.end) != (inside.start, inside.end)


def names_the_anchor(text: str, said: Clause, inside: Clause) -> bool:
    """`inside`, a day in brackets right after a length anchored on an occasion ("the week
    after the Lehman bankruptcy (Sept 15 2008)"), is that occasion's day: the length stands."""
    if said.rule != "duration" or inside.start is None or inside.start != inside.end:
        return False
    if not (
        _OPEN.fullmatch(text[said.span[1] : inside.span[0]]) and _CLOSE.match(text, inside.span[1])
    ):
        return False
    return inside.start in (said.start, said.end)


# "2015年到2019年这五年", "2010-2019, these ten years": a length said right after dates, as theirs.
_THESE = re.compile(r"[\s,，、]*(?:(?:这|這|那|these|those|the)\s*)?", re.IGNORECASE)


def length_restates(text: str, said: Clause, length: Clause) -> bool:
    """`length` (a trailing length) right after `said`'s dates, with 这 or "these" between, and
    as long as they are: the dates' own length restated, not a second window."""
    if length.rule != "rolling" or None in (said.start, said.end, length.start, length.end):
        return False
    if not _THESE.fullmatch(text[said.span[1] : length.span[0]]):
        return False
    assert said.start and said.end and length.start and length.end
    days, dated = (length.end - length.start).days, (said.end - said.start).days + 1
    return days > 0 and abs(days - dated) <= 0.02 * days


# "2020年11月这个月", "2008年那一年", "Q3 2019, that quarter": the period just named, pointed
# back at.
_THAT_UNIT = re.compile(
    r"(?:这|這|那)(?:个|個|一)?(?P<unit>月|季度|季|年)|(?i:(?:this|that)\s+(?P<en>month|quarter|year))"
)
_UNIT_DAYS = {"月": (28, 31), "季度": (89, 92), "季": (89, 92), "年": (365, 366)}
_UNIT_DAYS |= {"month": (28, 31), "quarter": (89, 92), "year": (365, 366)}


def points_back(text: str, said: Clause, clause: Clause) -> bool:
    """`clause` is 这个月 / "that quarter" said right after `said`, a period of that unit: the
    same period pointed back at, not the current one."""
    if None in (said.start, said.end):
        return False
    that = _THAT_UNIT.fullmatch(clause.text.strip())
    if that is None or not re.fullmatch(r"[\s,，的]*", text[said.span[1] : clause.span[0]]):
        return False
    assert said.start and said.end
    low, high = _UNIT_DAYS[that.group("unit") or that.group("en").lower()]
    return low <= (said.end - said.start).days + 1 <= high


# A formula or a restatement inside a bracket: an operator no plain words use, or "i.e." / 即.
_FORMULA = re.compile(
    r"[\^√×÷=]|(?<![A-Za-z])i\.\s?e\.|\bthat\s+is\b|即|也就是|(?i:\bsqrt\b|\bsquare\s+root\b)|根号"
)
_PAIRS = {"(": ")", "（": "）", "[": "]"}


def formulas(text: str) -> list[tuple[int, int]]:
    """The brackets (outermost, nesting allowed) that hold a formula or say "i.e.": what the
    measure before them is, "annualized (q/q compounded, i.e. (Q/Qprev)^4-1)",
    年化波动率（日收益率样本标准差×√252）."""
    found = []
    index = 0
    while index < len(text):
        opening = text[index]
        if opening not in _PAIRS:
            index += 1
            continue
        end = _closing(text, index)
        if end is None:
            break
        if _FORMULA.search(text, index + 1, end):
            found.append((index, end + 1))
        index = end + 1
    return found


def _closing(text: str, start: int) -> int | None:
    """Where the bracket opened at `start` closes (any bracket kind counts for nesting)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] in _PAIRS:
            depth += 1
        elif text[index] in _PAIRS.values():
            depth -= 1
            if depth == 0:
                return index
    return None
