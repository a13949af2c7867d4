"""Questions about single days: "Apple's 3 best days", "which day was JPMorgan's best",
"best and worst day of Walmart", 涨幅最大的5天, 跌幅最大的3个交易日, 表现最差的一天.

The rule is grammatical, not a list of phrases: a superlative (best / worst, biggest gain or
drop, 涨幅最大 / 跌幅最大, 最好 / 最差) attached to a day word (day, session, 天, 交易日) asks for
the days with the largest daily return on that side, optionally with a count. What the rule
finds also says which measure words it used up ("涨幅" in 涨幅最大的5天 is not a period return).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from datapilot.brains.offline.family_asks import DOWN_MOST_ZH, UP_MOST_ZH
from datapilot.brains.offline.numbers import ZH_NUMERAL, en_number_pattern, read_number

Side = str  # "best" | "worst"

_BEST_EN = r"best|top|strongest"
_WORST_EN = r"worst|bottom|weakest"
_UP_EN = (
    r"gain|gains|rise|rises|jump|jumps|rally|rallies|increase|increases|advance|advances|"
    r"spike|spikes|spiked|surge|surges|surged|pop|pops|climb|climbs"
)
_DOWN_EN = (
    r"drop|drops|fall|falls|loss|losses|decline|declines|plunge|plunges|selloff|selloffs|"
    r"sell-off|sell-offs|slide|slides|crash|crashes|tumble|tumbles|dip|dips|slump|slumps"
)
# Either way: "the biggest one-day move", "largest daily swings".
_MOVE_EN = r"moves?|swings?|changes?"
_ROSE_EN = (
    r"rise|rose|risen|gain|gained|jump|jumped|rally|rallied|climb|climbed|surge|surged|"
    r"pop|popped|spike|spiked|rip|ripped"
)
_FELL_EN = (
    r"fall|fell|fallen|drop|dropped|lose|lost|decline|declined|plunge|plunged|slump|slumped|"
    r"tumble|tumbled|sink|sank|crash|crashed|dump|dumped|tank|tanked"
)
# "day", "trading days", "single day", "one-day session"
_DAY_EN = r"(?:(?:single|one|1|trading|market)[-\s]+){0,2}(?:days?|sessions?)"
_BIG_EN = r"biggest|largest|sharpest|greatest|steepest|worst|best|strongest"

_BEST_ZH = (
    rf"{UP_MOST_ZH}|涨幅最大|涨幅最高|涨得最多|涨最多|上涨最多|收益最高|收益率最高|表现最好|"
    r"表现最佳|最好|最佳|最强"
)
_WORST_ZH = (
    rf"{DOWN_MOST_ZH}|跌幅最大|跌幅最深|跌得最多|跌最多|下跌最多|收益最低|收益率最低|表现最差|"
    r"亏损最大|最差|最糟|最惨|最弱"
)
_COUNT_ZH = rf"(?:\d+|{ZH_NUMERAL}|几)"
_DAY_ZH = r"(?:个)?(?:交易日|天|日子|日(?![收涨跌均内线]))"
# One day (单日, 一天), or several sessions a change spans (5日, 三个交易日).
_DAY_ONE_ZH = rf"(?P<day>单日|一天|一日|日|(?P<span>\d{{1,3}}|{ZH_NUMERAL})(?:个交易日|个?日|天))"


@dataclass(frozen=True)
class DayAsk:
    """The sides asked for, the count said (None when none was), and the text it came from."""

    sides: frozenset[Side]
    n: int | None
    plural: bool
    spans: tuple[tuple[int, int], ...]
    sessions: int = 1  # the sessions one change spans: 5 for "the worst 5-day drop"

    @property
    def which(self) -> str:
        """`extreme_days`' `which`: best, worst or both."""
        return "both" if len(self.sides) == 2 else next(iter(self.sides))

    @property
    def count(self) -> int:
        """The days to show: the count said, else 5 for "days" / 几天, else 1."""
        return self.n or (5 if self.plural else 1)


@lru_cache(maxsize=4)
def _patterns(numbers: tuple[tuple[str, int], ...]) -> tuple[re.Pattern[str], ...]:
    count = en_number_pattern(dict(numbers))
    side = rf"(?P<s1>{_BEST_EN}|{_WORST_EN})(?:\s+(?:and|&|or)\s+(?P<s2>{_BEST_EN}|{_WORST_EN}))?"
    return (
        # "best day", "best and worst day", "worst 3 trading days", "top five sessions", "the
        # best day and which the worst"
        re.compile(
            rf"(?i)\b{side}\s+(?:(?P<n>{count})\s+)?(?P<day>{_DAY_EN})\b"
            rf"(?:,?\s+and\s+(?:which|what)\s+(?:(?:was|is|were)\s+)?(?:the\s+)?"
            rf"(?P<s3>{_BEST_EN}|{_WORST_EN})\b)?"
        ),
        # "5 best days", "the three worst trading days"
        re.compile(rf"(?i)(?<![\w.])(?P<n>{count})\s+{side}\s+(?P<day>{_DAY_EN})\b"),
        # "which day was JPMorgan's best", "what session was the worst for Apple"
        re.compile(
            rf"(?i)\b(?:which|what)\s+(?P<day>{_DAY_EN}|dates?)\b[^.?;!]{{0,40}}?\b{side}\b"
        ),
        # "on which day did Apple fall the most"
        re.compile(
            rf"(?i)\b(?:which|what)\s+(?P<day>{_DAY_EN}|dates?)\b[^.?;!]{{0,40}}?\b"
            rf"(?:(?P<up>{_ROSE_EN})|(?P<down>{_FELL_EN}))\s+(?:the\s+)?(?:most|hardest)\b"
            # "… and which day did it dump the hardest": the other side asked after it
            rf"(?:[^.?;!]{{0,30}}?\band\s+(?:which|what)\s+{_DAY_EN}\b[^.?;!]{{0,30}}?"
            rf"(?:(?P<up2>{_ROSE_EN})|(?P<down2>{_FELL_EN}))\s+(?:the\s+)?(?:most|hardest)\b)?"
        ),
        # "biggest up day and biggest down day", "biggest green day and its worst red day": the
        # day's side said by up or down, green or red
        re.compile(
            rf"(?i)\b(?:{_BIG_EN})\s+(?:(?P<up>up|green)|(?P<down>down|red))\s+(?P<day>day|session)\b"
            rf"(?:[^.?;!]{{0,40}}?\b(?:{_BIG_EN})\s+(?:(?P<up2>up|green)|(?P<down2>down|red))\s+"
            r"(?:day|session)\b)?"
        ),
        # "the days with the biggest drops", "sessions of the largest gains"
        re.compile(
            rf"(?i)\b(?P<day>{_DAY_EN})\s+(?:with|of)\s+the\s+(?:{_BIG_EN})\s+"
            rf"(?:(?:one|single)[- ]day\s+|daily\s+)?(?:(?P<up>{_UP_EN})|(?P<down>{_DOWN_EN}))\b"
        ),
        # "the 5 biggest one-day drops", "largest daily gains", "sharpest single-day falls",
        # "biggest 1 day jump", and changes over several sessions: "the worst 5-day drop"
        re.compile(
            rf"(?i)(?:(?<![\w.])(?P<n>{count})\s+)?\b(?:{_BIG_EN})\s+(?P<day>(?:one|single|"
            rf"(?P<span>\d{{1,3}}))[-\s]?(?:day|session|trading[-\s]day)|daily|day's|days')\s+"
            # ("the biggest one-day percentage drop": the move is in percent)
            rf"(?:(?:percent(?:age)?|%)\s+)?(?:(?P<up>{_UP_EN}|{_MOVE_EN})|(?P<down>{_DOWN_EN}))\b"
        ),
        # "the biggest jump in a single day", "largest drop over one session"
        re.compile(
            rf"(?i)\b(?:{_BIG_EN})\s+(?:(?P<up>{_UP_EN}|{_MOVE_EN})|(?P<down>{_DOWN_EN}))\s+"
            rf"(?:in|on|over|within)\s+(?:a|one|any|1)\s+(?:single\s+)?(?P<day>day|session|trading\s+day)\b"
        ),
        # 涨幅最大的5天, 跌幅最大的3个交易日, 表现最差的一天, 最好和最差的交易日
        re.compile(
            rf"(?P<s1>{_BEST_ZH}|{_WORST_ZH})(?:(?:和|与|及|、|以及)(?P<s2>{_BEST_ZH}|{_WORST_ZH}))?"
            rf"(?:的|那)?(?:是)?(?:哪)?(?P<n>{_COUNT_ZH})?(?P<day>{_DAY_ZH})"
        ),
        # each day said with its move: 跌得最厉害那日和涨得最多那日 (Cantonese 嗰日同…嗰日)
        re.compile(
            rf"(?P<s1>{_BEST_ZH}|{_WORST_ZH})(?:的|那)(?P<day>日|天)(?:和|与|及|、|以及)"
            rf"(?P<s2>{_BEST_ZH}|{_WORST_ZH})(?:的|那)(?:日|天)"
        ),
        # 哪一天涨得最多, 哪个交易日跌幅最大, 在哪天表现最差
        re.compile(
            rf"哪(?:一|个)?(?P<day>交易日|天|日)[^,，。？?;；]{{0,8}}?(?P<s1>{_BEST_ZH}|{_WORST_ZH})"
        ),
        # 单日涨幅最大的5天 is caught above; 单日跌幅最大 / 日涨幅最大 without a day count
        re.compile(
            rf"(?<![今昨当本每近]){_DAY_ONE_ZH}(?:(?P<up>涨幅|涨)|(?P<down>跌幅|跌))(?:最大|最多|最高)"
        ),
        # 单日最大涨幅, 一天最大跌幅, 5日最大跌幅, and 单日最大涨幅和最大跌幅 (both, "respectively")
        re.compile(rf"(?<![今昨当本每近]){_DAY_ONE_ZH}最大(?:(?P<up>涨幅)|(?P<down>跌幅))"),
        re.compile(
            r"(?<![今昨当本每])(?P<day>单日|日)最大涨幅(?:和|与|及|、|以及)(?:单日)?(?P<down>最大跌幅)"
        ),
        re.compile(
            r"(?<![今昨当本每])(?P<day>单日|日)最大跌幅(?:和|与|及|、|以及)(?:单日)?(?P<up>最大涨幅)"
        ),
    )


def _side(word: str) -> Side:
    if re.fullmatch(rf"(?i){_WORST_EN}", word) or re.fullmatch(_WORST_ZH, word):
        return "worst"
    return "best"


# "single" said before the sides: one day each, however the day word is said.
_SINGLE = re.compile(r"(?i)\bsingle\s+$")


# The other side of a day asked after the first ("… and its worst red day").
_OTHER_SIDES = (("up2", "best"), ("down2", "worst"))


def read_day_ask(text: str, numbers: Mapping[str, int]) -> DayAsk | None:
    """The best/worst-days request in `text`, or None when the question asks no such thing."""
    sides: set[Side] = set()
    counts: list[int] = []
    lengths: list[int] = []
    plural = False
    spans: list[tuple[int, int]] = []
    words = {w: n for w, n in numbers.items() if w not in ("a", "an")}
    for pattern in _patterns(tuple(sorted(words.items()))):
        for match in pattern.finditer(text):
            groups = {k: v for k, v in match.groupdict().items() if v}
            sides.update(_side(groups[key]) for key in ("s1", "s2", "s3") if key in groups)
            if "up" in groups:  # "biggest daily moves", "swings": both sides
                moves = groups["up"].lower().startswith(("move", "swing", "change"))
                sides.update(("best", "worst") if moves else ("best",))
            if "down" in groups:
                sides.add("worst")
            sides.update(side for key, side in _OTHER_SIDES if key in groups)
            said = groups.get("n")
            if said and said != "几":
                value = read_number(said, words)
                if value and value >= 1:
                    counts.append(int(value))
            if groups.get("span"):
                length = read_number(groups["span"], words)
                if length and length >= 1:
                    lengths.append(int(length))
            day = groups.get("day", "").lower().rstrip("'")
            if _SINGLE.search(text, 0, match.start()):
                counts.append(1)  # "its single best and worst days": one of each
            else:
                plural = plural or said == "几" or day.endswith(("days", "sessions", "dates"))
            spans.append(match.span())
    if not sides:
        return None
    return DayAsk(
        sides=frozenset(sides),
        n=max(counts) if counts else None,
        plural=plural,
        spans=tuple(spans),
        sessions=max(lengths) if lengths else 1,
    )


def inside(spans: tuple[tuple[int, int], ...], start: int, end: int) -> bool:
    """Whether [start, end) lies within one of `spans`."""
    return any(s <= start and end <= e for s, e in spans)
