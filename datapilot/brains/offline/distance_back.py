"""A distance from a high or low said earlier in the question and referred back to: "walmart
52wk high & how far below it is it now?", "its 52-week low - how far above it is it trading",
沃尔玛52周最高价是多少？现在离它还差多少 — the distance of the latest close from that extreme."""

from __future__ import annotations

import re

from datapilot.brains.offline.family_asks import DistanceAsk

_BACK_EN = re.compile(
    r"(?i)\b(?P<what>highs?|peaks?|tops?|lows?|troughs?|bottoms?)\b[^.!]{0,60}?"
    r"\bhow\s+(?:far|much)\s+(?:(?:is|was|are|were)\s+(?:it|the\s+stock|the\s+price|the\s+"
    r"shares|\w+)\s+)?(?:below|above|off|from|under|beneath|over|short\s+of|away\s+from)\s+"
    r"(?:it|that|this|there|them)\b"
)
_BACK_ZH = re.compile(
    r"(?P<what>最高价|最高点|最高|高点|新高|峰值|最低价|最低点|最低|低点|新低|谷底)[^。]{0,20}?"
    r"(?:离|距离|距|比|低于|高于|较)(?:它(?!们)|其(?![他余])|这个(?:价|点|价位|位置)?|那个(?:价|点)?|该(?:价|点|水平))"
)


def read_distance_back(text: str) -> DistanceAsk | None:
    """ "Its 52-week high, and how far below it is it now": the distance from that extreme."""
    found = _BACK_EN.search(text) or _BACK_ZH.search(text)
    if found is None:
        return None
    what = found.group("what").lower()
    low = bool(re.match(r"low|trough|bottom|最低|低点|新低|谷底", what))
    all_time = bool(re.search(r"(?i)\bever\b|all[-\s]time|\brecord\b|历史|有史以来", text))
    return DistanceAsk("low" if low else "high", all_time, (found.span(),))
