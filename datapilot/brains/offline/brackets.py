"""What words in brackets do to what they follow: restate it, never add to it.

"In the early 80s (1980-1984)": dates in brackets right after a period say what that period
means, so they are the window (never a second window the first sits inside).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the time grammar imports this module
    from datapilot.brains.offline.windows import Clause

_OPEN = re.compile(r"\s*[(（\[]\s*")
_CLOSE = re.compile(r"\s*[)）\]]")


def restates(text: str, said: Clause, inside: Clause) -> bool:
    """`inside` is the whole of a bracket right after `said`, and says its window otherwise:
    overlapping it, not the same (a day without its year read in another year, "Thanksgiving
    2011 (Nov 24)", restates nothing)."""
    if not (
        _OPEN.fullmatch(text[said.span[1] : inside.span[0]]) and _CLOSE.match(text, inside.span[1])
    ):
        return False
    if None in (said.start, said.end, inside.start, inside.end):
        return False
    assert said.start and said.end and inside.start and inside.end
    overlap = said.start <= inside.end and inside.start <= said.end
    return overlap and (said.start, said.end) != (inside.start, inside.end)
