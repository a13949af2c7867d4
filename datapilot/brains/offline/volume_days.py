"""The day of a volume extreme: "which day had the heaviest volume", "trade the most shares",
成交量最大的是哪一天 — the date and the shares of the window's highest (lowest) trading volume,
never the extreme of the closes beside it."""

from __future__ import annotations

import re

from datapilot.brains.offline.family_asks import WhenAsk
from datapilot.brains.offline.honour import WHEN

_HIGH_EN = r"highest|largest|biggest|heaviest|greatest|record|peak|max(?:imum)?|most"
_LOW_EN = r"lowest|smallest|lightest|least|fewest|min(?:imum)?"
_VOLUME_EN = re.compile(
    rf"(?i)\b(?P<side>{_HIGH_EN}|{_LOW_EN})\s+(?:(?:daily|trading|share|dollar)\s+)?"
    r"(?:volume|shares(?:\s+traded)?|turnover)\b"
    r"|\b(?P<busy>busiest|quietest)\s+(?:trading\s+)?(?:day|session)\b"
    rf"|\bvolume\b[^.?!]{{0,20}}?\b(?:was|hit|reached|at)\s+(?:its\s+)?(?P<side2>{_HIGH_EN}|{_LOW_EN})\b"
)
_VOLUME_ZH = re.compile(
    r"(?:成交量|交易量|成交)(?:是|为)?(?P<side>最大|最高|最多|最活跃|最小|最低|最少|最清淡)"
    r"|(?P<side2>最大|最高|最小|最低)(?:的)?(?:成交量|交易量)|交易(?P<side3>最活跃|最清淡)"
)


def read_volume_when(text: str) -> WhenAsk | None:
    """The date of the window's highest or lowest volume asked in `text`, or None: a volume
    extreme and a date asked for ("which day", 哪一天) anywhere in the question, or the busiest
    (quietest) day, which is a day by itself."""
    found = _VOLUME_EN.search(text) or _VOLUME_ZH.search(text)
    if found is None:
        return None
    when = WHEN.search(text)
    groups = found.groupdict()
    if when is None and not groups.get("busy"):
        return None
    word = next((v for k, v in groups.items() if v and k != "busy"), None) or groups["busy"] or ""
    low = bool(re.match(r"(?i)low|small|light|least|fewest|min|quiet|最小|最低|最少|最清淡", word))
    spans = (found.span(),) if when is None else (found.span(), when.span())
    return WhenAsk("worst" if low else "best", "daily", spans)
