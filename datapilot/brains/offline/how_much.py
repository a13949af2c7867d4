""" "How much" beside a name and a window, with no measure word, asks what the name made: "Exxon -
how much last year?", "how much did Exxon make in 2021", "how much was the S&P up this year",
"how much would I have made in Exxon"; so does "how did Exxon do in 2021" ("how's it done YTD",
"how has it fared"). Read as the name's return over the window, so each window
asked in a sentence of its own is a part ("…last year? and ytd?").

A multiple claimed and checked ("is it true that AMD more than doubled in 2020?", "did it
double?", 礼来近两年翻倍了吗, AMD前年是不是翻倍了, 腰斩了没) asks the same: the return over the
window, which says whether it did.

A price is what is asked when "how much" is said of a name itself ("how much is Apple"), of a day
("how much was Apple on 2021-03-01"), or beside a word of price or money (cost, worth, pay,
money, volume…); a gap ("by how much", "how much more") is the ledger's, not a return.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from datapilot.brains.offline.phrases import Hit
from datapilot.brains.offline.windows import TimeReading

PRICE_KINDS = ("stock", "etf", "index", "fund")

_HOW_MUCH = re.compile(r"(?i)\bhow\s+much\b")
# What the rest of the sentence says after "how much".
_MADE = re.compile(
    r"(?i)^\s+(?:did|does|do|has|have|had|would|will|could|can)\b[^.?!;]{0,40}?"
    r"\b(?:make|made|making|do|done)\b"
)
_UP_OR_DOWN = re.compile(
    r"(?i)^\s+(?:is|was|are|were|has|have|had|'s)\b[^.?!;]{0,40}?\b(?:up|down)\b"
)
# "How did it do", "how's it done", "how has it fared" over a window: its return.
_HOW_DID = re.compile(
    r"(?i)\bhow(?:'s|’s|\s+(?:did|has|have|had|does|do|is|was))\s+[^.?!;]{1,40}?\s+"
    r"(?:do|done|doing|did|fare|fared|faring|go|gone|going)\b"
)
# Nothing but the window, or nothing at all, before the sentence ends: "how much last year?".
_BARE = re.compile(r"(?i)^\s*(?:[?.!;]|$)")
_PRICE_WORDS = re.compile(
    r"(?i)\b(?:cost|costs|costing|worth|pay|paid|money|cash|dollars?|volume|shares?\s+traded|"
    r"trade|traded|trading|dividends?|debt|revenue|profit|sell\s+for|buy\s+for)\b"
)
_GAP = re.compile(
    r"(?i)\bby\s+how\s+much\b|\bhow\s+much\s+(?:more|less|better|worse|higher|lower)\b"
)
_SENTENCE = re.compile(r"[.?!;]\s|[?!;]|$")


def how_much_return(
    text: str, hits: Sequence[Hit], kinds: Sequence[str], time: TimeReading
) -> Hit | None:
    """A return read from "how much", when `text` names no measure and only priced names (of
    `kinds`), over a window longer than a day; None otherwise."""
    if not kinds or any(k not in PRICE_KINDS for k in kinds) or _GAP.search(text):
        return None
    if any(h.group("metric") and not names_the_start(h, time) for h in hits):
        return None
    did = _HOW_DID.search(text)
    if did is not None and _spans_days(time):
        # "how's Eli Lilly done YTD?", "how did MSFT do in 2021": what the name made.
        return Hit(("metric:return",), did.start(), did.end(), did.group(0))
    for found in _HOW_MUCH.finditer(text):
        end = _SENTENCE.search(text, found.end())
        sentence_end = end.start() if end is not None else len(text)
        rest = text[found.end() : sentence_end + 1]
        if _PRICE_WORDS.search(rest):
            continue
        # The window's words taken out: "how much last year?" is "how much ?".
        bare = rest
        for s, e in time.spans:
            if found.end() <= s and e <= sentence_end:
                bare = bare.replace(text[s:e], "", 1)
        bare = re.sub(r"(?i)^\s*(?:in|over|during|for|so\s+far)\b", "", bare)
        asks = _MADE.match(rest) or _UP_OR_DOWN.match(rest)
        if asks is None and not (_BARE.match(bare) and _spans_days(time)):
            continue
        if not _spans_days(time) and time.clauses:
            continue  # a day's figure ("on 2021-03-01") is its close
        return Hit(("metric:return",), found.start(), found.end(), found.group(0))
    return None


# Level words that may name the day a window starts from.
_ANCHOR_WORDS = frozenset({"metric:close", "metric:value", "metric:stats"})


def names_the_start(hit: Hit, time: TimeReading) -> bool:
    """Whether a level word sits inside the phrase of a window's start: "since its IPO day close
    (May 18 2012)", "since COVID hit (Feb 19 2020 peak)" name the day measured from, not what
    is asked."""
    return (
        bool(hit.labels)
        and set(hit.labels) <= _ANCHOR_WORDS
        and any(
            c.rule in ("since", "first") and c.span[0] <= hit.start and hit.end <= c.span[1]
            for c in time.clauses
        )
    )


_CLOSE = r"\bclos(?:e|ing(?:\s+prices?)?)s?\b"
# Two closes bounding one move: "between the 2019 year-end close and the 2021 year-end close",
# "from its Dec 31, 2019 close to its Dec 31, 2021 close", "bought at the 2014 year-end close,
# never rebalanced, held to the 2019 year-end close", 从2019年底的收盘价到2021年底的收盘价.
_BOUNDING_CLOSES = re.compile(
    rf"(?i)\b(?:between|from|at)\s[^;?!]{{0,40}}?{_CLOSE}[^;?!]{{0,25}}?\s(?:and|to|through|until|till)"
    rf"\s[^;?!]{{0,40}}?{_CLOSE}"
    r"|从[^，。？！,?]{1,20}?收盘价?[^，。？！,?]{0,8}?(?:到|至)[^，。？！,?]{1,20}?收盘价?"
    # one close set against another, the move asked after: 2018年平安夜的收盘价，跟2019年平安夜的
    # 收盘价比，涨了多少
    r"|收盘价?[，,]?\s*(?:跟|和|与|同|较)[^，。？！,?]{1,20}?收盘价?(?:相比|比)(?=[，,]?\s*(?:是)?[涨跌升降])"
)


def bounds_a_move(hit: Hit, text: str) -> bool:
    """Whether a close word is one of two closes bounding the move asked ("did it double
    between the 2019 year-end close and the 2021 year-end close"): an end, not the measure."""
    bounds = _BOUNDING_CLOSES.finditer(text)
    return any(m.start() <= hit.start and hit.end <= m.end() for m in bounds)


def closes_bound_a_move(text: str) -> bool:
    """Whether the question's windows are two closes bounding one move (`bounds_a_move`)."""
    return _BOUNDING_CLOSES.search(text) is not None


def _spans_days(time: TimeReading) -> bool:
    """A window of more than one day was read (by one phrase, or a start and an end said apart:
    "from its March 9 2009 close by the last close of 2012")."""
    if time.start is not None and time.end is not None and time.start < time.end:
        return True
    return any(c.start is not None and c.end is not None and c.start < c.end for c in time.clauses)


# A multiple of the money in, said as a verb: doubled (+100%), tripled (+200%), halved (−50%).
MULTIPLE = re.compile(
    r"(?i)\b(?:(?:more\s+than|over|nearly|almost|roughly|about)\s+)?"
    r"(?:doubled?|tripled?|halved?|quadrupled?)\b"
    r"|翻了?一?倍|翻番|翻了?(?:两|三)倍|腰斩"
)
# The multiple is a claim to check: a yes/no question, or one the question says someone made.
MULTIPLE_CHECKED = re.compile(
    r"(?i)\b(?:is\s+it\s+true|is\s+that\s+(?:right|true|correct)|true\?|really|did|has|have|"
    r"had|does|says?|said|claims?|right\?)|是不是|是否|有没有|有没|了吗|了没|吗|没有|真的|对不对|真是[^，。,]*[？?]|实际|到底|究竟|有人说|据说|都说"
)


def multiple_return(
    text: str, hits: Sequence[Hit], kinds: Sequence[str], time: TimeReading
) -> Hit | None:
    """The return over the window, read from a multiple claimed of priced names ("did it
    double in 2020?"); None when no such claim is checked."""
    spans = _spans_days(time) or closes_bound_a_move(text)  # (two days' closes bound one move)
    if not kinds or any(k not in PRICE_KINDS for k in kinds) or not spans:
        return None
    found = MULTIPLE.search(text)
    if found is None or MULTIPLE_CHECKED.search(text) is None:
        return None
    if any(h.group("metric") and h.start <= found.start() < h.end for h in hits):
        return None
    return Hit(("metric:return",), found.start(), found.end(), found.group(0))
