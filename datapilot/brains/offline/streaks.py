"""Streaks: "Apple's longest losing streak in 2022", "most consecutive up days", "fell N days in
a row", 最长连涨几天, 连跌了几天 — the longest run of up or down sessions, with its dates
(`longest_streak`). A rule of grammar in both languages; the words it used are recorded on the
reading (`family_spans`) so the ledger counts them as read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from datapilot.brains.offline.reading import Reading

_DOWN = r"losing|down|red|negative|falling|declining|fell|dropped|declined|lost|sank|slid"
_UP = r"winning|up|green|positive|rising|gaining|rose|gained|climbed|advanced|rallied"
_STREAK = re.compile(
    rf"(?i)\b(?:(?:longest|biggest|longest-ever|record)\s+)?(?P<dir>{_DOWN}|{_UP})\s+"
    r"(?:streaks?|runs?)\b"
    rf"|\b(?:longest|most)\s+(?:consecutive|straight|back[-\s]to[-\s]back)\s+(?P<dir2>{_DOWN}|{_UP})\s+"
    r"(?:days|sessions|closes)\b"
    rf"|\b(?:longest|most)\s+(?:consecutive|straight)\s+(?:days|sessions)\s+(?:of\s+)?"
    rf"(?P<dir3>{_DOWN}|{_UP}|gains|losses|declines)\b"
    r"|\blongest\s+(?:streak|run|stretch|string)\s+of\s+(?:(?:consecutive|straight|"
    r"back[-\s]to[-\s]back)\s+)?"
    r"(?P<dir4>up|down|losing|winning|gains|losses|declines|green|red|falling|rising|negative|"
    r"positive)\b"
)
_ZH = re.compile(
    r"(?:最长的?|最多)?(?P<zh>连涨|连跌|连阳|连阴|连续(?:上涨|下跌|收涨|收跌|收阳|收阴|涨|跌))"
)
_ENDED = re.compile(r"(?i)\b(?:run|streak)\s+end(?:ed)?\b|结束")
_IS_DOWN = re.compile(rf"(?i)^(?:{_DOWN}|losses|declines)$|跌|阴")


@dataclass(frozen=True)
class StreakAsk:
    """The longest run of `direction` ("up" or "down") sessions, said at `spans`."""

    direction: str
    spans: tuple[tuple[int, int], ...]


def read_streak_ask(text: str) -> StreakAsk | None:
    """The longest streak a question asks about, or None."""
    found = _STREAK.search(text) or _ZH.search(text)
    if found is None:
        return None
    word = next(g for g in found.groupdict().values() if g)
    spans = [found.span()]
    row = re.search(r"(?i)\b(?:in\s+a\s+row|straight|consecutive(?:ly)?)\b", text)
    if row is not None and not (found.start() <= row.start() < found.end()):
        spans.append(row.span())  # "how many sessions in a row": the same run
    end = _ENDED.search(text)
    if end is not None:
        spans.append(end.span())  # 到哪天结束: the run's last day, which the answer dates
    return StreakAsk("down" if _IS_DOWN.search(word) else "up", tuple(spans))


def as_streak(reading: Reading, streak: StreakAsk, replaced: set[str]) -> None:
    """Read the question as the longest streak: the measures it replaces are dropped, a count of
    up or down days read beside it aside (几天收涨？最长连跌几天？: both answered)."""
    if "count_days" in reading.metrics and reading.count_condition in ("up", "down", "both"):
        reading.metrics = ["count_days", "streak"]
        reading.streak_direction = streak.direction
    else:
        reading.metrics = ["streak", *(m for m in reading.metrics if m not in replaced)]
        reading.count_condition = streak.direction
    reading.family_spans += [(s, e, f"{streak.direction} streak") for s, e in streak.spans]
    reading.rank = False
    up = streak.direction == "up"
    reading.trace.append(
        f"最长{'连涨' if up else '连跌'}：连续{'上涨' if up else '下跌'}的交易日数及起止日期"
        if reading.zh
        else f"the longest run of {streak.direction} sessions, with its first and last day"
    )
