"""A change asked in the level's own unit: "how many points did the S&P 500 gain", 涨了多少点,
"how many dollars did AAPL rise", 比…高多少美元. The answer owes the difference between the
window's two ends in index points or dollars, beside the return; a percent alone answers a
different question. A level said in points ("标普500是多少点") asks no difference.
"""

from __future__ import annotations

import re

# A change verb before the unit: "涨了多少点", "高多少美元", "跌了几个点"; in English the unit
# counted ("how many points", "how many dollars did it rise"). 最高多少点 asks a level and "how
# many dollars would I have" an amount, not a change.
_MOVED = (
    r"\b(?:rise|rose|risen|gain(?:ed)?|fall|fell|fallen|lose|lost|drop(?:ped)?|climb(?:ed)?|"
    r"add(?:ed)?|jump(?:ed)?|move[ds]?|increase[ds]?|decrease[ds]?|go\s+(?:up|down)|went\s+(?:up|down)|"
    r"narrow(?:ed)?|widen(?:ed)?|shr[iu]nk|shrank|up|down|higher|lower)\b"
)
LEVEL_GAP = re.compile(
    r"(?i)\bhow\s+many\s+(?:index\s+)?points\b|\bin\s+(?:index\s+)?points\b|\bhow\s+many\s+(?:dollars|bucks|usd)\b(?=[^.?!;]{0,40}"
    + _MOVED
    + r")|"
    # "how much did it drop, in % and in $/bbl": the move, then the unit it is wanted in
    + _MOVED
    + r"[^.?!;]{0,60}?\bin\s+(?:\$|us\s+dollars\b|dollars\b|usd\b|dollar\s+terms\b)"
    r"|(?<!最)(?:涨|跌|高|低|升|降|多|少|赚|亏|回升|反弹|下挫|上涨|下跌)了?(?:多少|几)个?(?:点|美元|块钱|块|元)"
)
_PERCENT_POINTS = re.compile(r"(?i)percentage\s+points?|百分点")
# A rate's change in points: "how many (percentage) points did unemployment rise", 上升了几个百分点.
_RATE_GAP = re.compile(
    r"(?i)\bhow\s+many\s+(?:percentage\s+)?(?:points|pts|pp|bps|bp|basis\s+points)\b"
    r"|\bin\s+(?:percentage\s+points|pp|basis\s+points|bps|bp)\b"
    r"|(?<!最)(?:涨|跌|高|低|升|降|多|少|上升|下降|上涨|下跌|回升|回落|变动|变化|改变|移动|走阔|走扩|"
    r"扩大|收窄|缩小|拉大)了?(?:多少|几)个?"
    r"(?:百分点|点|基点)"
)


def asks_level_change(text: str) -> bool:
    """Whether `text` asks a difference in the level's unit (points, dollars), not in percentage
    points of a rate."""
    return bool(LEVEL_GAP.search(text)) and not _PERCENT_POINTS.search(text)


def asks_rate_change(text: str) -> bool:
    """Whether `text` asks a rate's change in (percentage) points: "by how many points did the
    unemployment rate rise during 2008", 上升了几个百分点."""
    return bool(_RATE_GAP.search(text))


# A move measured against another period: "how many bps did it move versus Dec 2007".
_MOVED_AGAINST = re.compile(
    r"(?i)\b(?:move[ds]?|change[ds]?|r[io]se|fall|fell|widen(?:ed)?|tighten(?:ed)?|"
    r"narrow(?:ed)?|gain(?:ed)?|drop(?:ped)?)\s+(?:versus|vs\.?|compared\s+(?:to|with)|against|"
    r"relative\s+to)\b"
    # "how many bp above the December 2007 print was that"
    # (not "points lower than the 1990 average": two averages, each a part)
    r"|\b(?:bps?|basis\s+points|(?:percentage\s+)?points|pts)\s+(?:above|below|over|under)\s+"
    r"(?:the\s+|its\s+)?(?=[^.?!]{0,30}?\b(?:19|20)\d\d)(?![^.?!]{0,30}?\baverage)"
)


def moves_against_a_period(text: str) -> bool:
    """Whether a rate's move in points is asked against another period said ("how many bps
    did it move versus Dec 2007"): one move between the two periods, not a part each."""
    return _MOVED_AGAINST.search(text) is not None and asks_rate_change(text)
