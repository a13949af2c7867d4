"""The first day past a level: "when did Apple first close above $150", "on what date did the
S&P 500 first close back above its Feb 19, 2020 record close", 苹果什么时候首次收盘站上150美元,
标普500哪天首次收盘重新站上2020年2月19日的收盘价 — the first session past a number, or past the
close of a day said (`first_close_past`). The words it used are recorded on the reading
(`family_spans`) so the ledger counts them as read; "back"/"again"/重新 ask for a return to it.
The level may be a multiple of a day's close: "from its March 23 2020 close, when did Apple first
close at double that price", 从2009年3月9日的低点算起第一次收盘翻倍, "first close up 50% from".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Literal

from datapilot.brains.offline.windows import read_time

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading
    from datapilot.brains.offline.windows import Clause

_FIRST_EN = re.compile(
    r"(?i)\b(?P<first>first\s+(?:ever\s+)?(?:time\s+(?:(?!did\b|was\b)[\w&.'’-]+\s+){0,3}?)?"
    r"(?:(?:it|they)\s+)?)?"
    r"(?:close[ds]?|closing|finish(?:ed)?|settle[ds]?|settling|trade[ds]?|traded|printed|went|"
    r"rose|climbed|moved|got|broke|crossed|f[ae]ll|falls|dropped|dipped|sank|slipped"
    r"|end(?:ed)?)\s+(?P<back>back\s+)?(?P<inc>at\s+or\s+)?(?P<side>above|over|higher\s+than|"
    r"below|under|lower\s+than)\b"
)
_FIRST_ZH = re.compile(
    r"(?:(?:之后|此后|以后|后来|随后)的?)?"  # 之后第一次: after the day said, which the search is
    r"(?:(?P<first>首次|第一次|头一次|最早|第一个)(?:在)?(?:收盘(?:价)?)?|(?:在)?收盘(?:价)?)"
    r"(?P<back>重新|再次|再度)?"
    r"(?P<side>站上|站回|重回|回到|突破|升破|涨破|高于|超过|跌破|低于|跌回)"
)
_AGAIN = re.compile(r"(?i)\bagain\b|重新|再次|再度|重回|站回|回到|跌回")
# What the level is: a number right after the side word ("above $150", 站上150美元) …
_NUMBER = re.compile(
    r"\s*(?:US\$|\$)?\s*(?P<n>\d[\d,]*(?:\.\d+)?)(?![\d.年月日/-])\s*(?:美元|点|元|块)?"
)
# … or the close of a day said in the words up to its noun ("its Feb 19, 2020 record close").
_REFERENCE = re.compile(
    r"(?i)(?:[^.?!;,，。？；]|,(?=\s*\d)){0,60}?(?:close|closing\s+(?:high|level|price)|high|peak|level|收盘价|收盘点位|"
    r"高点|点位|收盘)"
)
# … or a level said before, pointed at: "that level", "this close", 这个点位, 该价位.
_ANAPHOR = re.compile(
    r"(?i)\s*(?:that|this|the\s+same)\s+(?:level|close|closing\s+(?:level|price)|price|mark|"
    r"point|number|figure)\b|\s*(?:这个|那个|这一|那一|该|此|同一)(?:个)?(?:点位|水平|价位|价格|"
    r"收盘价|收盘点位|点数|位置)"
)
_BELOW = re.compile(r"(?i)below|under|lower|跌破|低于|跌回")
# A multiple of a day's close: "first close at double that price", "first tripled", "first close
# up 50% from its March 9 close", 第一次收盘翻倍, 首次涨到三倍, 首次较该日上涨50%.
_MULTIPLE_EN = re.compile(
    r"(?i)\bfirst\s+(?:time\s+)?(?:(?:it|they)\s+)?(?:(?:close[ds]?|closing|finish(?:ed)?)\s+"
    r"(?:at\s+|up\s+)?)?(?:(?P<m>double[ds]?|twice|triple[ds]?|thrice|quadruple[ds]?|halve[ds]?)"
    r"|(?P<pct>\d+(?:\.\d+)?)\s*%\s*(?:above|over|higher\s+than|up\s+from|from))"
)
_MULTIPLE_ZH = re.compile(
    r"(?:首次|第一次|头一次|最早)[^，。？；,?;]{0,8}?(?:(?P<m>翻了?两番|翻了?一?[倍番]|[两二2三3四4]倍|腰斩)"
    r"|(?:上涨|涨了?|涨幅达到?)(?P<pct>\d+(?:\.\d+)?)\s*[%％])"
)
_MULTIPLES = (
    (re.compile(r"(?i)halve|腰斩"), 0.5),
    (re.compile(r"(?i)quadruple|两番|[四4]倍"), 4.0),
    (re.compile(r"(?i)triple|thrice|[三3]倍"), 3.0),
    (re.compile(r"(?i)double|twice|翻|[两二2]倍"), 2.0),
)
# A time phrase that names a day (not a month or a year): "March 23 2020", 2009年3月9日.
_DAY_SAID = re.compile(
    r"(?i)\d{1,2}\s*[日号]|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}|"
    r"\b[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?\b(?![:\d])|\b\d{1,2}(?:st|nd|rd|th)?\s+[a-z]{3,9}\b"
)
# "first day in 2021 the S&P 500 closed above 4,000": the first day said before the name, in the
# same sentence, with no "did"/"was" between (that asks about the one day: "on the first day of
# 2021, did it close above 3,700?").
_FIRST_DAY_BEFORE = re.compile(
    r"(?i)\bfirst\s+(?:trading\s+|business\s+)?(?:day|session|date)\b"
    r"(?![^.?!;]*\b(?:did|does|do|was|were|is)\b)[^.?!;]{0,80}$"
)
# The period a first day is searched in: "first (trading) day of|in March 2020", 2021年第一天.
_FIRST_DAY_OF = re.compile(
    r"(?i)^(?:on\s+)?(?:the\s+)?first\s+(?:trading\s+|business\s+)?(?:day|session|date)\s+"
    r"(?:of|in|during)\s+(?:the\s+)?"
)
_FIRST_DAY_ZH = re.compile(r"的?第一(?:个)?(?:交易)?[天日]$")


# Breaking even on a purchase made at a day's close: "break even", "back to the purchase price",
# 回本, 解套.
_BREAK_EVEN = re.compile(
    r"(?i)\bbr(?:eak|oke|eaks)\s+even\b|\bget(?:s|ting)?\s+back\s+to\s+even\b|\bback\s+"
    r"(?:to|at|above|over|at\s+or\s+above)\s+"
    r"(?:the\s+|its\s+|my\s+|our\s+|their\s+)?(?:purchase|buy(?:ing)?|entry|cost)\s+(?:price|level)\b"
    r"|回本|解套"
)


@dataclass(frozen=True)
class FirstAsk:
    """The first close `side` a level: `level` said, or the close of the day a time phrase
    inside `reference` names; `back` a return to it; `spans` the words read."""

    side: str
    inclusive: bool
    back: bool
    level: float | None
    reference: tuple[int, int]
    spans: tuple[tuple[int, int], ...]
    multiple: float = 1.0  # the level is this multiple of the day's close (2: double)


def read_first_ask(text: str) -> FirstAsk | None:
    """The first close past a level a question asks about, or None."""
    multiple = _MULTIPLE_EN.search(text) or _MULTIPLE_ZH.search(text)
    if multiple is not None:
        said = multiple.group("m")
        factor = next((f for word, f in _MULTIPLES if said and word.search(said)), None)
        if factor is None:
            factor = 1 + float(multiple.group("pct")) / 100
        side = "below" if factor < 1 else "above"
        # The level is reached at equality: "close at double that price".
        span = multiple.span()
        return FirstAsk(side, True, False, None, (0, len(text)), (span,), factor)
    even = _BREAK_EVEN.search(text)
    if even is not None:
        # "on what day did it close back at the purchase price", 哪一天收盘才算回本: the first
        # close at or above the close of the day bought, after that day
        return FirstAsk("above", True, True, None, (0, len(text)), (even.span(),))
    found = _FIRST_EN.search(text) or _FIRST_ZH.search(text)
    if found is None:
        return None
    back = bool(found.group("back")) or bool(_AGAIN.search(text))
    first = found.group("first") or _FIRST_DAY_BEFORE.search(text[: found.start()])
    if not first and not back:
        return None  # "closed above 150": a count or a threshold, not a first day
    inclusive = bool(found.groupdict().get("inc"))
    side = "below" if _BELOW.search(found.group("side")) else "above"
    rest = text[found.end() :]
    number = _NUMBER.match(rest)
    if number is not None:
        level = float(number.group("n").replace(",", ""))
        end = found.end() + number.end()
        return FirstAsk(side, inclusive, back, level, (found.end(), end), (found.span(),))
    anaphor = _ANAPHOR.match(rest)
    if anaphor is not None:
        # "…close at on March 24, 2000? When did it first close back above that level?": the
        # day whose close is the level was said before.
        span = (found.end(), found.end() + anaphor.end())
        return FirstAsk(side, inclusive, back, None, (0, span[1]), (found.span(), span))
    reference = _REFERENCE.match(rest)
    if reference is None:
        return None
    span = (found.end(), found.end() + reference.end())
    return FirstAsk(side, inclusive, back, None, span, (found.span(), span))


def as_first(reading: Reading, ask: FirstAsk, parsed: Parsed, replaced: set[str]) -> bool:
    """Read the question as the first close past the level; False when the level is the close
    of a day and no time phrase in its words names the day."""
    level_day: date | None = None
    others = []
    for clause in parsed.time.clauses:
        if ask.multiple != 1.0:
            # The day whose close is multiplied is said anywhere ("from its March 23 2020 close").
            named = clause.start is not None and _DAY_SAID.search(clause.text)
            if level_day is None and named:
                level_day = clause.start
            else:
                others.append(clause)
            continue
        inside = ask.reference[0] <= clause.span[0] and clause.span[1] <= ask.reference[1]
        if inside and ask.level is None and clause.start is not None:
            level_day = clause.start if clause.start == clause.end else clause.end
            extreme = _extreme_of(parsed.text[ask.reference[0] : ask.reference[1]])
            if clause.end is not None and clause.start != clause.end and extreme is not None:
                # "its February 2020 peak": the highest close of that month, not its last
                reading.level_from, reading.level_extreme = clause.start, extreme
        else:
            others.append(clause)
    if ask.level is None and level_day is None and ask.multiple == 1.0:
        return False  # a multiple with no day said is still read, so it is declined, not dropped
    if ask.level is not None:
        _widen_first_day(reading, others)
    first = reading.history_start
    if ask.level is not None and not others and level_day is None and first is not None:
        # "first time IBM closed above $200?": no period said, so the whole history is searched,
        # never only the default past year
        reading.start, reading.end = first, reading.today
        reading.trace.append(
            f"没有指定时段：从{reading.start}起的全部历史"
            if reading.zh
            else f"no period said: the whole history from {reading.start}"
        )
    # A purchase said without a sum (在…收盘买入, "if you bought at the close on …") names the
    # day whose close is the level, no amount to grow.
    bought = set() if reading.amount is not None else {"investment_growth"}
    reading.metrics = ["first_close", *(m for m in reading.metrics if m not in replaced | bought)]
    reading.count_condition = ask.side
    reading.count_inclusive = ask.inclusive
    reading.threshold = ask.level
    reading.level_day = level_day
    reading.level_multiple = ask.multiple
    reading.first_back = ask.back
    if level_day is not None:
        # The search runs from the day whose close is the level (or from a later phrase, "after
        # the COVID crash") to the end of the later phrase, else to today.
        later = [c for c in others if c.start is not None and c.start > level_day]
        reading.start = later[0].start if later else level_day
        reading.end = (later[0].end if later else None) or reading.today
    reading.family_spans += [(s, e, f"first close {ask.side}") for s, e in ask.spans]
    for crossed in _CROSSED.finditer(parsed.text):  # "did it really drop under $40 in 2015?"
        reading.family_spans.append((*crossed.span(), f"the level crossed, {ask.side}"))
    reading.rank = False
    if reading.zh:
        level = f"{ask.level:g}" if ask.level is not None else f"{level_day}的收盘价"
        level += f"的{ask.multiple:g}倍" if ask.multiple != 1.0 else ""
        side = "高于" if ask.side == "above" else "低于"
        reading.trace.append(f"首次收盘{side}{level}的交易日")
    else:
        level = f"{ask.level:g}" if ask.level is not None else f"the close of {level_day}"
        level = f"{ask.multiple:g}x {level}" if ask.multiple != 1.0 else level
        reading.trace.append(f"the first session closing {ask.side} {level}")
    return True


# A move past the level said beside the first close asked: the crossing it dates.
_CROSSED = re.compile(
    r"(?i)\b(?:drop(?:ped|s)?|f[ae]ll(?:s)?|sank|slid|dip(?:ped|s)?|r[io]se(?:s)?|climb(?:ed|s)?|"
    r"jump(?:ed|s)?|top(?:ped|s)?|br[eo]ke?)\s+(?:under|below|above|over|past|through)\b"
    r"|(?:跌|涨|升)(?:破|穿|到)"
)


_PEAK_WORDS = re.compile(r"(?i)\b(?:peak|high|top|record)\b|最高|高点|峰值|顶部|新高")
_TROUGH_WORDS = re.compile(r"(?i)\b(?:low|bottom|trough)\b|最低|低点|谷底|底部")


def _extreme_of(words: str) -> Literal["max", "min"] | None:
    """Which close of a period the level's words name: its peak (max) or its low (min)."""
    if _TROUGH_WORDS.search(words):
        return "min"
    if _PEAK_WORDS.search(words):
        return "max"
    return None


def _widen_first_day(reading: Reading, clauses: list[Clause]) -> None:
    """ "first day in 2021 … closed above 4,000": the time words name the period searched (all of
    2021), not its first day, which is what is asked."""
    for clause in clauses:
        said = _FIRST_DAY_OF.sub("", clause.text)
        said = _FIRST_DAY_ZH.sub("", said)
        if said == clause.text or not said.strip():
            continue
        period = [
            (c.start, c.end) for c in read_time(said, reading.today).clauses if c.start and c.end
        ]
        if len(period) == 1:
            start, end = period[0]
            reading.start, reading.end = start, min(end, reading.today)
            reading.trace.append(
                f"“{clause.text}” → 在{reading.start}至{reading.end}内找"
                if reading.zh
                else f'"{clause.text}" → searched within {reading.start} to {reading.end}'
            )
            return
