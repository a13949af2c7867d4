"""A statistic of daily returns without the best or worst day(s): "excluding the worst day,
what was JPMorgan's average daily return in March 2020", 去掉涨得最多的那一天，日均收益率是多少.
The days left out are shown (their own table, with their dates), and the statistic is taken of
the other days' returns; a note says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from datapilot.brains.offline.numbers import read_number
from datapilot.brains.offline.weekdays import KEPT_DAYS_MEASURES

if TYPE_CHECKING:  # reading.py calls in here
    from datapilot.brains.offline.reading import Reading

_LEAVE_EN = (
    r"(?:excluding|exclude|ex|without|leaving\s+out|leave\s+out|dropping|drop|minus|ignoring|"
    r"ignore|stripping\s+out|strip\s+out|removing|remove|apart\s+from|except(?:\s+for)?)"
)
_EN = re.compile(
    # "leave out JPMorgan's 2 best days": whose days, by a possessive name
    rf"(?i)\b{_LEAVE_EN}\s+(?:the\s+|its\s+|their\s+|(?:[\w.&-]+\s+){{0,2}}[\w.&-]+['’]s\s+)?"
    r"(?:single\s+|(?P<n>[a-z]+|\d+)\s+)?"
    r"(?:(?P<worst>worst|biggest\s+(?:down|losing)|largest\s+(?:down|losing))|"
    r"(?P<best>best|biggest\s+(?:up|winning)|largest\s+(?:up|winning)))\s+"
    r"(?:(?:trading|single)\s+)?(?:days?|sessions?)\b"
)
_ZH = re.compile(
    r"(?:去掉|剔除|去除|除去|排除|不算|不含|扣除|拿掉)(?:了)?(?:[\u4e00-\u9fffA-Za-z&.]{1,8}?的?)?"
    r"(?:(?P<worst>跌得最多|跌幅最大|跌得最狠|表现最差|最差)|(?P<best>涨得最多|涨幅最大|涨得最猛|表现最好|最好))"
    r"的?(?:那)?(?P<n>[一两二三四五\d])?(?:个)?(?:交易日|天)"
)


def read_without_extremes(reading: Reading, text: str, numbers: Mapping[str, int]) -> None:
    """Set `reading.without_extremes` (the side and how many days) from the words that leave
    the best or worst days out of a statistic of daily returns."""
    found = _EN.search(text) or _ZH.search(text)
    if found is None or not reading.price_entities:
        return
    if not set(reading.metrics) & KEPT_DAYS_MEASURES:
        return  # "the best day, excluding…" of another measure: left to the other readers
    said = read_number(found.group("n") or "1", numbers)
    if said is None or said < 1 or not said.is_integer():
        return  # "excluding the worst day" with a word before it that is no count
    n = int(said)
    side = "worst" if found.group("worst") else "best"
    reading.without_extremes = (side, n)
    shown = f"{side}_day"
    # The statistic first, then the days left out (with their dates).
    reading.metrics = [
        *(m for m in reading.metrics if m not in ("worst_day", "best_day")),
        shown,
    ]
    reading.days = n
    reading.frequency = None
    reading.family_spans.append((*found.span(), f"the {side} {n} day(s) left out"))
    days = f"{n}天" if reading.zh else ("day" if n == 1 else f"{n} days")
    reading.notes.append(
        f"去掉了{'跌幅' if side == 'worst' else '涨幅'}最大的{days}（见表），其余交易日的日收益率"
        "用于计算。"
        if reading.zh
        else (
            f"The {side} day (in its own table) is left out"
            if n == 1
            else f"The {side} {n} days (in their own table) are left out"
        )
        + "; the statistic is of the other sessions' daily returns."
    )
