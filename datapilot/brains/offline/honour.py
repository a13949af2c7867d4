"""Honoured, not recognised: each word of the ledger records what in the plan carries its meaning.

A word the reader recognised is only read once the answer uses it: an entity by a call that
takes its id, a measure by the reading's measure, a rank cue by a ranking of two or more things
(or of sub-periods), a period word (month, 季度) by a grouping or a window, a threshold ("above
$150", 超过3%) by a filter that takes its number, an exclusion ("except", 除了) by a member
removed from the entities. A recognised word nothing honours is left `honoured_by=None`; the
engine then answers `no_data` instead of a figure for another question.

The content words below are a closed list: never fillers, whatever the filler list says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import TYPE_CHECKING, Any, get_args

from datapilot.brains.offline.clauses import clause_around
from datapilot.brains.offline.exclusions import COSTS_LEFT_OUT, DIVIDENDS_LEFT_OUT
from datapilot.brains.offline.family_asks import BETWEEN_EXTREMES, FIRST_COUNTED, RECOVERY
from datapilot.brains.offline.level_changes import LEVEL_GAP, moves_against_a_period
from datapilot.brains.offline.periods import calendar_unit, from_start_within
from datapilot.brains.offline.ratios import MULTIPLE_CUE, RATIO_CUE
from datapilot.core.intent import NESTED_WINDOW, Frequency, Ledger, LedgerEntry, ReadAs
from datapilot.core.plan import Plan

if TYPE_CHECKING:  # the reading imports the ledger, which imports this module
    from datapilot.brains.offline.reading import Reading

# The meaning of a window anchored on words no reading dates ("after the 2008 election").
UNDATED = "anchored on words no date was read for"

# Period words: honoured by a grouping (a frequency, the best days) or a window.
PERIOD_EN = re.compile(
    r"(?i)\b(day|days|week|weeks|month|months|quarter|quarters|year|years|session|sessions)\b"
)
_PERIOD_UNIT = {"session": "day", "sessions": "day"}
# A Chinese period word no time phrase took: 哪个月, 月份, 季度, 单日, 每周.
# A weekday (周六, 星期天) names a day, not a period of weeks.
PERIOD_ZH = re.compile(
    r"月份|季度|星期(?![一二三四五六日天])|周(?![一二三四五六日天末])|月|年度|年份|天|日"
)
_PERIOD_ZH_UNIT = {"月份": "month", "月": "month", "季度": "quarter", "星期": "week", "周": "week"}
_PERIOD_ZH_UNIT |= {"年度": "year", "年份": "year", "天": "day", "日": "day"}
# A threshold: a comparison beside a number ("closed above $150", "more than 3%", 超过3%, 3%以上).
_NUMBER = r"(?:[$¥€£]|US\$|HK\$)?\s*\d[\d,]*(?:\.\d+)?"
THRESHOLD = re.compile(
    r"(?i)\b(above|below|over|under|more than|less than|greater than|higher than|lower than|"
    r"exceed(?:s|ed|ing)?|at least|at most|beyond|north of|south of|topped|crossed|breached|"
    r"bigger than|larger than|smaller than)\s+(?:an?\s+)?" + _NUMBER
    + r"|(超过|超出|高于|低于|大于|小于|突破|跌破|不低于|不高于|不超过|至少|多于|少于)\s*"
    + _NUMBER
    + r"|\d[\d.,]*\s*(?:%|美元|元|块|点)?\s*(以上|以下|之上|之下)"
)  # fmt: skip
# An exclusion: a member left out of a list ("except AMD", "leave AMD out", 除了AMD, 不算AMD).
EXCLUSION = re.compile(
    r"(?i)\b(except(?:\s+for)?|excluding|exclude|excluded|exclusive of|other than|apart from|"
    r"ex(?=[\s.-]+[A-Z0-9])|"
    r"aside from|but not|without(?!\s+(?:context|doubt|question|explanation|asking|more))"
    r"|leave\b(?=(?:\s+\S+){1,4}\s+out\b)|leaving\b"
    r"(?=(?:\s+\S+){1,4}\s+out\b)|leave out|leaving out|left out)\b"
    r"|(除了|除去|除开|不算|不包括|不包含|不含|剔除|排除|去掉|去除|不用算|不要算|不计|除外)"
)
# A date asked for: "when", "which day", 哪天, 何时 — honoured only by an output that dates it.
WHEN = re.compile(
    # "than when I opened my bakery", "when we bought": a clause that tells, asking no date
    # "when the Fed was cutting": a clause that tells what was happening
    r"(?i)\b((?<!\bthan\s)when(?!\s+(?:i|we|you|he|she|they|my\s+\w+|our\s+\w+)\s+"
    r"(?:\w+ed|was|were|had|got|began|bought|sold|made|went|came|left|took)\b"
    r"|\s+the\s+\w+(?:\s+\w+)?\s+(?:was|were)\s+\w+ing\b"
    # "the best return when you chain the monthly returns": a condition, no date asked
    r"|\s+(?:you|we|one)\s+(?!(?:did|do|does|was|were)\b)\w+)"
    r"|(?:on\s+)?which\s+(?:day|date|month|quarter|year|week|session|trading\s+day)s?|"
    r"what\s+(?:day|date)|on\s+what\s+date|(?:and|with|plus)\s+(?:the|its)\s+dates?"
    # the days counted, listed: "how many sessions … ? list them w/ the % moves"
    r"|list\s+(?:them|those|each|every\s+one|the\s+(?:days|sessions|dates))"
    r"|which\s+sessions)\b"
    r"|(哪天|哪一天|哪日|哪个交易日|哪一个交易日|何时|什么时候|啥时候|啥时|几时|哪个月|哪一个月|哪月|哪个季度|"
    r"哪一季度|哪一年|哪年|哪一周|哪周|日期|几号|几月|哪几天|哪些天)"
)
# A distance from a peak or trough: "how far below its 52-week high", 离历史高点还差多少.
# One name beating or trailing another after "how far": "how far the laggard trailed", a gap
_BEAT_AFTER_HOW_FAR = (
    r"(?:[\w'’&.-]+\s+){1,4}?(?:out|under)?(?:perform|beat|lag|trail|led|lead)(?:ed|ged|s|ing)?"
)
_HOW_FAR_BEAT = rf"how\s+far\s+{_BEAT_AFTER_HOW_FAR}"
DISTANCE = re.compile(
    r"(?i)\b(how\s+far(?!\s+(?:ahead|behind|apart|more|less|better|worse)\b)"
    rf"(?!\s+{_BEAT_AFTER_HOW_FAR}\b)"
    # "how far did it fall during the crash": a move over a window, not a distance from a peak
    r"(?!\s+(?:did|has|had|have|does|do)\s+[^.?!]{0,40}?\b(?:fall|fallen|drop|decline|sink|"
    r"slide|plunge|tumble|crash|rise|risen|climb|rally|rebound|bounce|go)\b"
    r"(?!\s+(?:from|off|below|since|back)\b))|distance\s+(?:from|to)|(?:off|below|from|under|beneath)\s+"
    r"(?=(?:its|the|their)\s+(?:52[-\s]week|all[-\s]time|record|recent|peak|high|highs|low|"
    r"lows|top)\b))"
    r"|((?:离|距离|距)(?=[^，。？,?]{0,12}(?:高点|低点|最高|最低|新高|新低|峰值|顶部|高位|均线|移动平均))|(?:还)?有?多远)"
)
# "where long-term rates were when …": a level at a time the words after "when" tell.
_WHERE_IT_WAS = re.compile(r"(?i)\bwhere\b[^.?!]{0,40}?\b(?:was|were|stood|sat|traded)\s+$")
# "from the peak until it closed back at it": the way to a recovery, no distance asked.
_FROM_THE_PEAK_BACK = re.compile(
    r"(?i)from\s+(?:its|the|their)\s+(?:peak|high|top)\s+(?:until|till|to|before)\b"
    r"[^.?!]{0,40}?\b(?:back|recover\w*|regain\w*)\b"
)
# A gap between two figures asked for: "by how many percentage points", 差几个百分点, 扩大了多少 —
# honoured only by an output that states the difference, never by the two figures alone.
GAP = re.compile(
    r"(?i)\b(percentage[-\s]points?|(?:by\s+)?how\s+many\s+(?:percentage\s+)?(?:points|pts)|"
    r"pp|ppts?|by\s+how\s+much|gap\s+between|how\s+(?:much|far|many\s+(?:bps|bp|basis\s+points|"
    r"points|pts))\s+(?:more|less|wider|narrower|"
    r"better|worse|ahead|behind|higher|lower|bigger|smaller|larger|greater|pricier|costlier|"
    r"dearer|cheaper)|(?:outperform|underperform|beat|lag|trail)(?:ed|s)?\s+by\s+how"
    # "how much did SIZE beat the S&P 500 by", "its excess return over the S&P 500"
    r"|how\s+much\s+(?:did|has|had|does)\s+[^.?!;]{1,40}?\b(?:outperform|underperform|beat|"
    r"lag|trail)(?:ed|s)?\b[^.?!;]{1,40}?\bby(?=\s*(?:[?.!;,]|$|\s+(?:in|over|during|since|from)\b))"
    r"|excess\s+returns?\s+(?:over|above|relative\s+to|against|vs\.?|versus)|alpha\s+over"
    # "how far the laggard trailed the leader", "how far BAC beat JPM"
    rf"|{_HOW_FAR_BEAT})\b"
    # "how many bp did it move over 2008 (vs the Dec 2007 reading)": the levels' difference
    r"|(?i:\bhow\s+many\s+(?:bps?|basis\s+points|percentage\s+points|points|pts)\s+"
    r"(?:did|has|had|does|do)\b[^.?!]{0,30}?\b(?:move|moved|change|changed|shift|shifted|rise|"
    r"risen|fall|fallen|drop|climb|widen|narrow|tighten)\b)"
    r"|(?:变动|变化|变|动|移动)了?(?:多少|几)个?基点"
    # "gap 是多少 percent", "gap 多大" (English and Chinese in one question)
    r"|(?i:\bgap\s*(?:是|有|为)?\s*(?:多少|多大|几))"
    r"|(百分点|(?:高|低)了?(?:多少|几)个?点|(?<=[^\s。最])(?:高|低|贵|便宜)(?:出|了)?(?:多少|几成)(?!个?点)|差(?:了|距)?(?:多少|几)|差距(?:是|有|为)?(?:多少|几|多大)|相差(?:多少|几)|高出(?:多少|几)|低(?:了)?(?:多少|几)个?百分点|"
    r"(?<!最)多(?:涨|跌|赚|亏)了?(?:多少|几)|少(?:涨|跌|赚|亏)了?(?:多少|几)|"
    r"跑(?:赢|输)了?[^，。？！?!,;；]{0,12}?(?:多少|几)|"
    # 落后最好的那个多少个点, 领先第二名几个百分点
    r"(?:落后|领先)(?:了|于)?[^，。？！?!,;；]{0,12}?(?:多少|几)|"
    # 相对标普500的超额收益 (never the factor 市场超额收益, a name)
    r"(?:相对|相较于?|对比|比)[^，。？！?!,;；]{0,15}?的?超额收益|"
    # 第一名比最后一名多多少: the gap between a ranking's two ends
    r"(?:第一名?|头名|最好的?|最高的?)比(?:最后一名?|末名|倒数第一|最差的?|最低的?)"
    r"(?:多|高|少|低)(?:了|出)?(?:多少|几)|"
    r"(?:扩大|收窄|缩小|拉大)了?(?:多少|几))"
)
# A count of sub-periods asked beside another figure: "how many months were positive",
# 有几个月是涨的 — honoured only by a count of the periods' signs.
_TALLY_UNIT = r"(?:months?|quarters?|years?|weeks?|days?|sessions?|trading\s+days?)"
# Periods picked by another move ("on the days the S&P 500 fell more than 2%", "in the months
# when it rose", 标普500收跌的那几个月, 跌幅超过3%的那些天里): a condition on the periods
# averaged (`returns_when`).
CONDITION = re.compile(
    r"(?i)\b(?:on|in|during|over|for|counting|across)\s+(?:only\s+)?(?:the\s+)?(?:those\s+)?"
    r"(?:same\s+)?(?:days?|sessions?|weeks?|months?|quarters?|years?)"
    r"(?:\s+(?:in|of|during)\s+(?:(?:19|20)\d\d|the\s+year|this\s+year|last\s+year))?"
    r"\s+(?:when|where|that|on\s+which|"
    r"in\s+which|(?:the\s+\S+(?:\s+\S+){0,3}?|it|they)\s+(?:fell|rose|dropped|gained|lost|was|were|"
    r"closed|finished|ended|declined|climbed|jumped|slid|sank))\b|\bon\s+those\s+(?:same\s+)?days\b"
    # "on up days", "across its down sessions": the name's own up (down) periods
    r"|\b(?:on|over|across|for|in)\s+(?:its\s+|the\s+|their\s+)?(?:up|down|positive|negative|green|red)"
    r"\s+(?:days|sessions|weeks|months|quarters)\b"
    r"|只(?:算|看|统计)(?:收涨|收跌|上涨|下跌|涨|跌)的?(?:那些)?(?:天|日子|交易日|月份|个?月)"
    # (within one clause: full-width punctuation is ASCII by then, "，" a ",")
    r"|(?:涨|跌|收涨|收跌|上涨|下跌|收阳|收阴)[^，。？?！!,;；]{0,12}?的?(?:那些|那几个?|那)"
    r"(?:天|日子|交易日|个?月|月份|个?季度|周)"
)
TALLY = re.compile(
    r"(?i)\bhow\s+many\s+(?:of\s+(?:the|those|these|its|their)\s+)?"
    + _TALLY_UNIT
    + r"\s+(?:(?:were|was|did|had|"
    r"closed|ended|finished|it|they|were\s+they|in\s+\d{4})\s+){0,3}(?:positive|negative|up|"
    r"down|higher|lower|green|red|gains?|losses?|winners?|losers?|rise|rose|fall|fell)\b"
    r"|(?<!过去)(?<!最近)(?<![近前后这那])(?:几|多少)个?(?:月|季度|年|周|天|交易日)(?:是|为|收|出现)?(?:正|负|上涨|下跌|涨|跌|收涨|"
    r"收跌|盈利|亏损)(?![幅跌])"
    # "in how many did it gain", "how many of them were down": periods counted, named before
    r"|\b(?:in\s+)?how\s+many\s+(?:of\s+(?:them|those|these)\s+)?(?:did|were|was|had|closed|"
    r"ended|finished)\b"
    # periods named by their sign ("up days", "down weeks"): a condition, never filler words
    # (not one extreme day: "biggest up day", "worst down day")
    r"|(?<!biggest\s)(?<!largest\s)(?<!best\s)(?<!worst\s)(?<!single\s)"
    r"\b(?:up|down|positive|negative|green|red)\s+(?:trading\s+)?(?:days?|sessions?|weeks?|"
    r"months?|quarters?|years?)\b"
)
# The end of the window said with a period word: "finish the year", "closed the month at".
_PERIOD_END = re.compile(
    r"(?i)\b(?:finish|finished|finishing|end|ended|ending|close|closed|closing)\s+(?:the|that|"
    r"this)\s+$"
)
# A period pointing back at the window just named: "over that year", "during the same year".
_THAT_PERIOD = re.compile(r"(?i)\b(?:over|during|in|across)\s+(?:that|the\s+same|this)\s+$")
# Comparison words in the filler list that rank: "the biggest one-day gain", 最大.
RANK_FILLER = re.compile(r"(?i)^(biggest|largest|smallest)$")


# Reported speech whose figure the question then checks: "says … over 25% … — what was its
# actual CAGR?", 号称年化超过25%，实际是多少.
_CLAIM = re.compile(
    r"(?i)\b(?:says?|saying|said|claims?|claimed|claiming|states?|stated|touts?|touted|boasts?|"
    r"brags?|bragged|bragging|hypes?|hyped|"
    r"advertis\w*|promises?|promised|reports?|reported|reckons?|writes|wrote|argues|argued|"
    r"e-?mailed|texted|tweeted|posted|told\s+me|tells\s+me|insists?|insisted|headlines?|"
    r"ran\s+(?:a\s+)?(?:story|piece|column))\b"
    r"|声称|号称|宣称|宣传|吹嘘|说|称|写道|有人话|人哋话|佢话|听讲"
)
# What follows is said to be checked: "fact check: '…'", 事实核查.
_FACT_CHECK = re.compile(r"(?i)\bfact[-\s]?check\w*|事实核查")
_CHECKED = re.compile(
    r"(?i)\b(?:actual(?:ly)?|really|true|truly|in\s+fact|check|verify|confirm|right|legit|"
    r"accurate|correct|back\s+(?:that|this|it)\s+up|hold\s+up|holds\s+up)\b"
    r"|实际|真的|真有|真是|到底|核实|核对|对不对|对吗|对么|准确|属实|靠谱|没错"
)
# The answer asked for as a yes or a no, after the question: "…? yes or no", "- true or false".
_ANSWER_YES_OR_NO = re.compile(
    r"(?i)\W*(?:(?:just\s+)?(?:a\s+)?(?:yes\s+or\s+no|yes/no|y/n|true\s+or\s+false)\b|是不是|对不对)"
)
# A percentage quoted; after a Chinese word too (真有50%吗).
FIGURE = re.compile(r"(?<![0-9A-Za-z_.])\d[\d,]*(?:\.\d+)?\s*%")
# (A comma beside Chinese text is a Chinese comma the question's normalisation made ASCII.)
_CLAUSE_CUT = re.compile(
    r"\s[-–—]\s|[.;:?!，。；：？！]|(?<=[\u4e00-\u9fff]),|,(?=[\u4e00-\u9fff])"
)


_YES_NO = re.compile(
    r"(?i)\W*(?:[\w'-]+\s*:\s*)?(?:did|does|do|is|was|were|are|has|have|had)\b"
    r"|\W*(?:真的|真有|真是|是不是|是否|有没有)"
)
# A sentence's end: a Latin stop before a space, a Chinese one wherever it is.
_SENTENCE_AFTER = re.compile(r"[.!](?:\s|$)|[。！]|(?<=[.!])\s")
_QUESTION = re.compile(r"(?i)\?|？|\b(?:how|what|which|when)\b|多少|几|哪")
_PHRASE_CUT = re.compile(r"\s[-–—]\s|[.;:?!,，。；：？！]")


# An extreme asked after a claimed level ("never got above $120 … What was the highest monthly
# price?"): that extreme checks the claim, whose level is no threshold.
_EXTREME_ASKED = re.compile(r"(?i)\b(?:highest|lowest|peak|max(?:imum)?|min(?:imum)?)\b|最高|最低")


def claimed_figure(text: str, at: int) -> bool:
    """Whether the figure at `at` sits in a claim's clause that a later clause checks
    ("新闻说埃克森美孚今年涨了80%以上，是真的吗": checked after the comma)."""
    if _FACT_CHECK.search(text, 0, at):
        return True  # "fact check: 'Exxon outgained Chevron by over 10 points in 2021.'"
    start, _ = clause_around(text, at, at, _CLAUSE_CUT)
    _, end = clause_around(text, at, at, _PHRASE_CUT)
    if _YES_NO.match(text, start) and (
        _CHECKED.search(text, start, end) or _ANSWER_YES_OR_NO.match(text, end)
    ):
        # "did the Nasdaq really lose about 80% …?", "was it above 8% in December 2008? yes or
        # no": the figure checked by the one the answer gives
        return True
    if not _CLAIM.search(text, start, at):
        return False
    # checked in so many words, or by a question of its own in the next sentence ("A columnist
    # writes … more than 60% of months. … how many were up, and what share is that?")
    later = _SENTENCE_AFTER.search(text, at)
    asked = later is not None and _QUESTION.search(text, later.end()) is not None
    return bool(_CHECKED.search(text, end)) or asked


# What the answer is for, said after the question ("- need it for a hedge ratio", "I need this
# for my thesis"): the asker's use, no measure asked.
_PURPOSE = re.compile(
    r"(?i)\b(?:i\s+)?need\s+(?:it|this|them|that|these|those)\s+for\s+(?:a|an|my|our|the)\s+"
    r"[a-z][a-z\s-]{0,30}?(?=\s*(?:[.?!;]|$))"
    # what the asker is at, heading the question: "Building a hedge ratio: …"
    r"|^\s*(?:building|working\s+on|writing|putting\s+together|preparing|prepping|doing)\s+"
    r"(?:a|an|my|our|the|this|tonight's|today's)\s+[a-z][a-z\s'-]{0,30}?(?=\s*[:—–-]\s)"
)


def content_words(
    text: str, claimed: list[tuple[int, int]]
) -> Iterator[tuple[int, int, ReadAs, str]]:
    """Thresholds, exclusions, dates and distances asked for in `text` outside the `claimed`
    spans, as (start, end, reading, meaning): claimed before any filler can take their words."""
    for found in _PURPOSE.finditer(text):
        yield found.start(), found.end(), "filler", "what the answer is for"
    for found in THRESHOLD.finditer(text):
        # A claimed change ("up more than 80%") is checked by the change itself; a claimed
        # level ("topped $140 at some point") asks for the extreme, which no filler gives.
        percent = re.match(r"\s*(?:%|percent|个?百分点)", text[found.end() :])
        level_checked = _EXTREME_ASKED.search(text, found.end()) is not None
        if ("%" in found.group(0) or percent or level_checked) and claimed_figure(
            text, found.start()
        ):
            # "a deck says it compounded at over 25% a year — what was its actual CAGR?": the
            # figure of a claim the question checks, not a filter
            yield found.start(), found.end(), "filler", "a claim's figure"
            continue
        group = next(g for g in range(1, 4) if found.group(g))
        start, end = found.span(group)
        number = re.search(r"\d", text[found.start() :])
        at = found.start() + (number.start() if number else 0)
        if any(s <= at < e for s, e in claimed):
            continue  # "over 2020": a window's number, not a threshold's
        yield start, end, "threshold", found.group(0).strip()
    for found in FIGURE.finditer(text):
        # "my spreadsheet says Pfizer was up 66.7% in 2021 — can you double-check": the figure
        # of a claim the question checks, whatever words frame it
        if claimed_figure(text, found.start()) and not any(
            s <= found.start() < e for s, e in claimed
        ):
            yield found.start(), found.end(), "filler", "a claim's figure"
    asked: tuple[tuple[re.Pattern[str], ReadAs], ...] = (
        (WHEN, "when"),
        (DISTANCE, "distance"),
        (GAP, "gap"),
        (LEVEL_GAP, "gap"),
        (TALLY, "tally"),
        (RECOVERY, "recovery"),
        (CONDITION, "condition"),
    )
    # "when" inside "on the days when the S&P 500 fell" names the periods, it asks no date.
    picked = [found.span() for found in CONDITION.finditer(text)]
    for pattern, how in asked:
        for found in pattern.finditer(text):
            start = found.start()
            end = start + len(found.group(0).rstrip())
            inside = how != "condition" and any(s <= start and end <= e for s, e in picked)
            if how == "distance" and _FROM_THE_PEAK_BACK.match(text, start):
                continue  # "days from the peak until it closed back at that peak": a recovery
            if how == "distance" and BETWEEN_EXTREMES.search(text, start, start + 60):
                continue  # "how far did it fall from that high down to that low": the range
            if how == "when" and _WHERE_IT_WAS.search(text, 0, start):
                continue  # "where rates were when things blew up": the time told, no date asked
            if not inside and not any(s < end and start < e for s, e in claimed):
                yield start, end, how, found.group(0).strip().casefold()
    costs = [c.span() for c in COSTS_LEFT_OUT.finditer(text)]
    costs += [c.span() for c in DIVIDENDS_LEFT_OUT.finditer(text)]
    for found in EXCLUSION.finditer(text):
        start, end = found.span()
        if any(s <= start < e for s, e in costs):
            continue  # "ignore fees", 不计费用: a caveat every figure meets, no member removed
        if not any(s < end and start < e for s, e in claimed):
            yield start, end, "exclusion", found.group(0).strip().casefold()


def period_unit(word: str) -> str | None:
    """The unit a period word names (month, quarter…), or None."""
    if PERIOD_EN.fullmatch(word):
        low = word.casefold()
        return _PERIOD_UNIT.get(low, low.rstrip("s"))
    return _PERIOD_ZH_UNIT.get(word)


def zh_periods(piece: str) -> Iterator[tuple[int, int, str]]:
    """Period words inside a short left-over run of Chinese (哪个月 → 月, 单日, 每周), as (start,
    end, unit). A longer run is a name nobody knows (天弘余额宝), not a period."""
    if len(piece) > 3:
        return
    for found in PERIOD_ZH.finditer(piece):
        yield found.start(), found.end(), _PERIOD_ZH_UNIT[found.group(0)]


# --- what honours each word --------------------------------------------------------------------

_AUTOMATIC = {"count", "amount", "rate", "table", "tool"}  # only ledgered once a reader took them
_STRICT_FORMS = {"cue:rank", "cue:worst", "cue:compare"}


def honour(ledger: Ledger, reading: Reading, plan: Plan) -> None:
    """Record on each entry of `ledger` what in `plan` (or the reading it was built from)
    carries its meaning; an entry nothing carries keeps `honoured_by=None`."""
    args = [
        (call.output, name, value) for call in plan.calls() for name, value in call.args.items()
    ]
    interfaces = {call.interface: call.output for call in plan.calls()}
    honoured_ids: dict[str, str] = {}
    for output, name, value in args:
        for text in _strings(value):
            honoured_ids.setdefault(text, f"{output}.{name}")
    drawdowns = [e.start for e in ledger.entries if e.meaning == "max_drawdown"]
    for entry in ledger.entries:
        if entry.honoured_by is not None:
            continue
        if entry.reading == "form" and any(0 <= at - entry.end <= 3 for at in drawdowns):
            entry.honoured_by = "the deepest drawdown"  # "the worst peak-to-trough decline"
            continue
        entry.honoured_by = _honoured_by(entry, reading, args, interfaces, honoured_ids)


def _honoured_by(
    entry: LedgerEntry,
    reading: Reading,
    args: list[tuple[str, str, Any]],
    interfaces: dict[str, str],
    ids: dict[str, str],
) -> str | None:
    how, meaning = entry.reading, entry.meaning or ""
    if how in _AUTOMATIC:
        return f"reading.{how}"
    if how == "entity":
        if meaning == "another name":
            return next((ids[e.id] for e in reading.entities if e.id in ids), None)
        if meaning in ids:
            return ids[meaning]
        table = _table_about(reading, meaning)
        if table is not None:
            return f"table {table}"  # the user's table of AAPL is what "AAPL" means
        return f"group {meaning}" if _group_used(reading) else None
    if how == "window":
        # "the two weeks after the 2008 election": no window stands for words nothing dates.
        if meaning in (UNDATED, NESTED_WINDOW):
            return None
        if (
            reading.parts
            and _FROM_TO.search(entry.text)
            and not _starts_in_a_part(reading, meaning)
        ):
            # "at each 2008 quarter-end … and how many bps did it rise from Dec 2007 to Dec
            # 2008": a window starting before every part asks a move no part measures
            return None
        return _window(reading)
    if how == "measure":
        return _measure(reading, meaning)
    if how == "chart":
        return next((out for name, out in interfaces.items() if name.startswith("plot")), None) or (
            "declined: " + meaning
        )  # a chart the plan cannot draw is said so in a note, the figures stand
    if how == "form" and meaning.startswith("amount "):
        # A sum of money is honoured only where a step invests it ("$150" of "closed at $150
        # or more" read as an amount is a level nothing filters by).
        number = meaning.split()[-1].replace(",", "")
        found = [f"{out}.amount" for out, name, value in args if name == "amount" and value]
        # or the same number as a level a step filters by ("at $150 or more")
        return found[0] if found else _filter_with(args, number)
    if how == "form" and meaning == RATIO_CUE:  # "how many times": only a computed ratio
        return interfaces.get("figure_ratio")
    if how == "form" and meaning == MULTIPLE_CUE:  # 涨了几倍: only the end over the start
        asked = (f"{out}.{name}" for out, name, value in args if name == "multiple" and value)
        return next(asked, None)
    if how == "form" and meaning == "cue:absolute":  # only returns taken by their size
        return next((f"{out}.absolute" for out, name, value in args if name == "absolute"), None)
    if how == "form":
        return _form(reading, meaning, entry.text, reading.text[entry.end :])
    if how == "period":
        if _PERIOD_END.search(reading.text[: entry.start]) and reading.end is not None:
            return "the window's end"  # "how far above the low did it finish the year"
        if _THAT_PERIOD.search(reading.text[: entry.start]) and reading.parts:
            return "the window between the periods named"  # "how many bp over that year"
        if _COUNTED.search(reading.text[: entry.start]):
            # "in how many quarters did investment shrink", 有几个月: only a count of them; the
            # series being quarterly is no answer to how many. A recovery's days are counted
            # from its peak to the first close back at it.
            recovered = reading.trough_by is not None or reading.peak_within is not None
            if recovered and "max_drawdown" in interfaces:
                return "the recovery's calendar days"
            if "first_close" in reading.metrics and meaning == "day":
                return "calendar days to the first close"  # "how many calendar days did it take"
            return next((interfaces[c] for c in _COUNTING if c in interfaces), None)
        return _period(reading, meaning)
    if how == "threshold":
        number = re.sub(r"[^\d.]", "", meaning.split()[-1] if " " in meaning else meaning)
        return _filter_with(args, number)
    if how == "number":
        return None  # a number no reader took: nothing in the plan carries it
    if how == "when":
        return _dated(reading, entry.text, (entry.start, entry.end))
    if how == "distance":
        if "extreme_from_day" in reading.metrics:
            return "the extreme's distance from the first day"
        if "distance" in reading.metrics:
            return "measure distance"
        if "max_drawdown" in reading.metrics and reading.peak_within is not None:
            # "how far did it drop from that December 1999 peak close": the fall from it
            return "the fall from the named peak"
        if set(reading.metrics) & _AVERAGES and reading.price_entities:
            return "the close against its moving average, in %"  # "how far from its 200-day"
        return None
    if how == "gap":
        return _gap(reading, args, entry.text)
    if how == "recovery":
        # A fall made good is dated by a drawdown's recovery (its first close back at the peak),
        # or by the first close back past the level the question names ("its February 2020 peak").
        if "max_drawdown" in reading.metrics:
            return "the drawdown's recovery date"
        return "the first close back past the level" if "first_close" in reading.metrics else None
    if how == "condition":
        return interfaces.get("returns_when")  # the periods another name's move picks
    if how == "tally":
        # The periods' signs counted, or the sessions themselves ("how many days rose 4%") on
        # a condition: every session counted answers no "how many were up".
        if reading.count_condition in (None, "sessions"):
            return interfaces.get("count_signs")
        # "the longest run of down days": the run of sessions on that side
        return (
            interfaces.get("count_signs")
            or interfaces.get("count_days")
            or interfaces.get("longest_streak")
        )
    if how == "exclusion":
        removed = getattr(reading, "excluded", None)
        if reading.without_extremes is not None:  # "excluding the worst day"
            return interfaces.get("drop_extremes")
        return f"removed {', '.join(removed)}" if removed else None
    return "reading"


# Readings whose figure is a level a percent series takes: its change is in percentage points.
_LEVEL_READINGS = {"value", "level", "close", "spread", "yield", "rate"}


def _gap(reading: Reading, args: list[tuple[str, str, Any]], said: str = "") -> str | None:
    """What states a difference between two figures: a ranking's gap column, the distance from
    a peak, or the change of one percent series over one window (said in percentage points)."""
    # A ranking's gap column, or a change between a window's ends in the level's unit.
    # "minus": one part's figure less the other's; "against": each name less a benchmark's
    asked = ("gap", "difference", "minus", "against")
    found = [f"{out}.{name}" for out, name, value in args if name in asked and value]
    if found:
        return found[0]
    if "distance" in reading.metrics:
        return "measure distance"
    if "investment_growth" in reading.metrics and reading.amount is not None:
        return "the gain or loss in money"  # "what's the gain in dollars", 一共赚了多少美元
    if "extreme_from_day" in reading.metrics:
        return "the extreme's distance from the first day"  # 比上市首日收盘价低了多少
    if set(reading.metrics) & _AVERAGES and reading.price_entities:
        return "the close against its moving average, in %"  # 比200日均线低多少
    if "spread" in reading.metrics:
        return "the spread, a difference"  # 利差的平均值是多少个百分点
    if "range" in reading.metrics:
        return "the high less the low"  # 最高价和最低价相差多少
    moved = re.fullmatch(r"(?i)by\s+how\s+much", said.strip())
    if moved and len(reading.entities) == 1 and set(reading.metrics) & _MOVES:
        # "which quarter was GE's best, and by how much did it rise": the move itself
        return "the move measured"
    if set(reading.metrics) & _ON_EARLIER:
        return "change on the earlier period"  # "how much higher than a year earlier": the yoy
    percent = in_percent(reading)
    if percent and not reading.parts and set(reading.metrics) <= _LEVEL_READINGS:
        return "change in percentage points"
    one = len(reading.entities) == 1 and not reading.parts and not percent
    in_points = re.search(r"(?i)point|pp|pts|点", said)  # a level's difference: not a percent
    if one and not in_points and reading.metrics and set(reading.metrics) <= _WINDOW_CHANGES:
        # "By how much did GDP change from Q4 2007 to Q2 2009": one thing's change over one
        # window is the difference asked (a gap between two things needs a gap column).
        return "change over the window"
    return None


# (a CAGR is said with the change in all beside it: "…% a year, compounded …; 26.20% in all")
_WINDOW_CHANGES = {"return", "cumulative_return", "value", "close", "annualized_return"}
_AVERAGES = {"ma", "ema"}


_ON_EARLIER = {"yoy", "qoq", "mom", "pop"}
# Measures that state one name's move: "by how much did it rise" asks nothing more.
_MOVES = {"return", "cumulative_return", "period_extremes", "max_drawdown", "streak"}
_STATISTICS = {"mean", "median"}
# The analyst families' own outputs: none of them states a statistic of the window's values.
_FAMILIES = {"period_extremes", "first_close", "count_days", "streak", "distance", "ma_cross"}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def in_percent(reading: Reading) -> bool:
    """Whether every series asked for is a percent (a rate): its changes are in points."""
    return bool(reading.series_entities) and all(
        e.units.casefold() in ("percent", "%") for e in reading.series_entities
    )


def _filter_with(args: list[tuple[str, str, Any]], number: str) -> str | None:
    """The first step argument, other than the window and the names, that carries `number`."""
    found = [
        f"{out}.{name}"
        for out, name, value in args
        if name not in ("start", "end", "ids", "id") and _has_number(value, number)
    ]
    return found[0] if found else None


def _has_number(value: Any, number: str) -> bool:
    if not number:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return abs(float(value) - float(number)) < 1e-9
        except ValueError:
            return False
    if isinstance(value, list | tuple | dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_has_number(v, number) for v in items)
    return False


def _table_about(reading: Reading, entity_id: str) -> str | None:
    """The user's table an entity's name points at (its name or parameters say the id), or the
    only table when the reading took the name off its entities for it."""
    for table in reading.tables:
        said = [table.name, *(str(v) for v in (table.params or {}).values())]
        if any(entity_id.casefold() == s.casefold() for s in said):
            return table.name
    if reading.tables and all(e.id != entity_id for e in reading.entities):
        return reading.tables[0].name
    return None


def _group_used(reading: Reading) -> bool:
    """A named group ("the big banks", 成分股) honoured by its members being the entities."""
    return bool(reading.entities) or reading.members_named or bool(reading.members_of)


# A window said as a move's ends ("from Dec 2007 to Dec 2008", 从…到…), not a period's name.
_FROM_TO = re.compile(r"(?i)\b(?:from|since|between|through|thru|until|till|to)\b|从|自|到|至")


def _starts_in_a_part(reading: Reading, window: str) -> bool:
    """Whether the window said ("2007-12-01..2008-12-31") starts inside some part's window (or
    says no start): a year that only dates its parts does; a move's start before them does not."""
    start, _, _ = window.partition("..")
    try:
        day = date.fromisoformat(start)
    except ValueError:
        return True
    return any(
        p.part.start is None or p.part.end is None or p.part.start <= day <= p.part.end
        for p in reading.parts
    )


def _window(reading: Reading) -> str | None:
    if reading.horizon is not None or reading.future is not None:
        return "forecast horizon"
    if reading.parts:
        return "parts' windows"
    if reading.start is not None or reading.end is not None or reading.tables:
        return f"window {reading.start}..{reading.end}"
    return None


# Measures that date a day and state no move: a return asked beside them ("how far did it fall,
# and on which day did it first close back above") is a figure none of them gives.
_DAY_ONLY = {"first_close", "ma_cross"}
_DAYS_COUNTED = re.compile(
    r"(?i)\bhow\s+many\s+(?:\w+\s+)?days\b|多少天|几天|多少个交易日|几个交易日"
)


def _measure(reading: Reading, metric: str) -> str | None:
    if metric in reading.metrics:
        return f"measure {metric}"
    if metric in ("return", "cumulative_return") and set(reading.metrics or ["?"]) <= _DAY_ONLY:
        return None
    if (
        metric == "stats"
        and reading.metrics == ["count_days"]
        and reading.count_condition in (None, "sessions")
    ):
        # "how many days closed at a new all-time high": a count of every session carries no
        # high, so the word the condition rests on is unhonoured.
        return None
    if (
        metric in _STATISTICS
        and set(reading.metrics) & _FAMILIES
        and getattr(reading, "extreme_of", "") != "period_mean"
    ):
        # "the average monthly excess return in 2008, and the worst month": the worst month
        # carries no average; only "the month with the highest average" does.
        return None
    if reading.metrics or reading.parts:
        # A measure refined into a neighbour the reader settled on (return → CAGR, "value"
        # beside a real measure): the reading's measures carry it.
        return "measure " + "+".join(reading.metrics)
    return None


def _left_out(reading: Reading) -> bool:
    """Names of the question left out with a note (no data, unknown): a separable part. A word
    left unread counts only where a name would stand, listed beside a name that was read
    ("pepsi and qwzzle"): an unread verb (除掉 in 因子ETF里除掉USMV) or a word elsewhere ("USMV
    kicked to the curb") leaves no other name behind."""
    if reading.ledger is not None and _unread_in_a_list(reading.text, reading.ledger.entries):
        return True
    return any(
        line.startswith(("names the catalog does not know", "answering for", "no bundled data"))
        for line in reading.trace
    )


# What joins the names of a list: commas, "and", "or", "vs", 和, 与, 、.
_LIST_GAP = re.compile(
    r"(?i)\s*(?:,|，|、|&|/|\band\b|\bor\b|\bvs\.?|\bversus\b|和|与|跟|及|以及|或)\s*"
)


def _unread_in_a_list(text: str, entries: list[LedgerEntry]) -> bool:
    names = [e for e in entries if e.reading == "entity"]
    for entry in entries:
        if entry.reading != "unread":
            continue
        for name in names:
            lo, hi = (name.end, entry.start) if name.end <= entry.start else (entry.end, name.start)
            if hi >= lo and _LIST_GAP.fullmatch(text[lo:hi]):
                return True
    return False


def _several(reading: Reading) -> bool:
    return (
        len(reading.entities) + len(reading.tables) >= 2
        or reading.universe
        or bool(reading.members_of)
        or reading.members_named
        or bool(reading.tables)  # a client table's rows are what is ranked
    )


# Rank words that name a level's extreme ("the highest close", 最低点), which the highest or
# lowest value of one series answers; "best", "fell the most" rank changes over sub-periods.
_LEVEL_EXTREME = re.compile(
    r"(?i)^(highest|lowest|high|low|peak|max|maximum|min|minimum|biggest|largest|smallest|top|"
    r"bottom|trough|"
    r"最高|最低|最大|最小)$"
)


# The two ends of a drawdown or a streak, asked by "which days were the peak and the trough",
# "on which days did it start and end", "between which dates", 高点和低点分别在哪天: the answer
# dates both.
_RUN_ENDS = re.compile(
    r"(?i)\b(?:peak|trough|top|bottom|start|end|begin|began|ended|started|ending|starting)s?\b"
    r"|\b(?:dates|days)\b|高点|低点|顶部|底部|峰值|谷底|开始|结束|起止|始于|止于|哪几天|哪两天"
)
_DATED_RUNS = {"max_drawdown", "streak"}


# Finest first, as `Frequency` lists them.
_FREQUENCIES: tuple[str, ...] = get_args(Frequency)


def _finer_than_the_data(asked: str, reading: Reading) -> bool:
    """Whether a frequency asked ("daily data", 日度数据, "weekly CPI") is finer than a named
    series is kept at, with no note saying so: its values cannot be made up, so the word is
    not honoured."""
    if asked not in ("daily", "weekly"):
        # Monthly and coarser: the series is read at its own frequency and the answer says so
        # ("CPI is quarterly in the data, so its quarterly values are shown").
        return False
    # Every name coarser: "Plot WTI daily and Brent monthly" says each series' own frequency.
    kept = [e.frequency for e in reading.entities if e.frequency in _FREQUENCIES]
    return bool(kept) and all(_FREQUENCIES.index(asked) < _FREQUENCIES.index(f) for f in kept)


def _form(reading: Reading, cue: str, word: str, after: str = "") -> str | None:
    if cue.endswith(" change"):  # "the biggest 1 day jump": the extreme changes computed
        return "extreme changes" if set(reading.metrics) & _DAYS else None
    if cue.startswith("freq:") and _finer_than_the_data(cue.removeprefix("freq:"), reading):
        return None  # "用日度数据…失业率": no daily values of a quarterly series to use
    if cue not in _STRICT_FORMS:
        return "reading"
    if (
        cue == "cue:rank"
        and _DATED_RUNS & set(reading.metrics)
        and _RUN_ENDS.search(after[: clause_around(after, 0, 0)[1]])
    ):
        return "the dates the run starts and ends"  # "on which days were the peak and trough"
    if cue == "cue:compare":
        if "distance" in reading.metrics:
            return "the last close against the high or low"  # "the S&P vs its 52-week high"
        if set(reading.metrics) & _AVERAGES and reading.price_entities:
            return "the close against its moving average"  # "how did the close compare"
        if reading.count_condition == "both":
            return "sessions up and down counted side by side"
        if _several(reading) or len(reading.parts) >= 2:
            return "comparison of several"
        if reading.basis or moves_against_a_period(reading.text):
            return "one period measured over the other"  # 二季度GDP相比一季度增长了多少
        if _left_out(reading):
            return "comparison, the other names said to have no data"
        return None
    if "range" in reading.metrics and _LEVEL_EXTREME.match(word):
        return "the high and the low, with their dates"  # 最高是多少、最低是多少？差了几美元
    if "distance" in reading.metrics and _LEVEL_EXTREME.match(word):
        return "the high or low the distance is measured from"  # 离历史最高价还差多少？最高是哪天
    if "max_drawdown" in reading.metrics and _FALL_AFTER.match(after):
        return "the largest fall (the maximum drawdown)"  # 最多跌了几%, "the most it fell"
    if reading.days is not None:
        return "extreme days"
    if reading.tables:
        return "rows of the table"
    if _several(reading) and (reading.rank or reading.compare or reading.both_ends):
        return "ranking of several"
    if cue == "cue:rank" and len(reading.parts) >= 2 and not _several(reading):
        return "the parts' windows, side by side"  # "which was bigger, in the 1970s or 1980s"
    if _left_out(reading):
        return "ranking, the other names said to have no data"
    if getattr(reading, "extreme_of", "") == "period_mean":
        return f"ranking of the {reading.period_label} periods' average levels"
    if reading.rank and reading.frequency is not None:
        return f"ranking of {reading.frequency} periods"
    if _LEVEL_EXTREME.match(word) and _sub_period_measure(reading):
        return "extreme of a series"
    return None


# A fall right after a superlative: 最多跌了, "most it fell", "biggest drop".
_FALL_AFTER = re.compile(
    r"(?i)\s*(?:了|曾)?(?:跌|下跌|回撤|亏)|\s*(?:it\s+)?(?:fell|fall|falls|drop(?:ped|s)?|declin|"
    r"lost|loss)"
)


# A date asked for by a period longer than a day: "which month", 哪个季度.
_LONGER = re.compile(r"(?i)month|quarter|year|week|月|季|年|周")


def _dated(reading: Reading, said: str, at: tuple[int, int] = (-1, -1)) -> str | None:
    """What answers "when": the dates of the best or worst days, of a drawdown's peak and
    trough, of a forecast; "which month" only a grouping by months."""
    if reading.tables:
        return "rows of the table"  # "which year has the lowest estimate": the row's label
    if "ma_cross" in reading.metrics:
        return "dates of the crosses"
    if "streak" in reading.metrics:
        return "first and last day of the streak"
    if "first_close" in reading.metrics:
        return "date of the first close past the level"
    first_counted = any(
        s < at[1] and at[0] < e for s, e, what in reading.family_spans if what == FIRST_COUNTED
    )
    if "count_days" in reading.metrics and first_counted:
        return "dates of the first and last sessions counted"  # "and when was the first one"
    if "extreme_from_day" in reading.metrics:
        return "date of the extreme"
    if "period_extremes" in reading.metrics:
        return "dates of the extremes"  # the best month, 哪个季度: each period named
    if "max_drawdown" in reading.metrics and _LONGER.search(said):
        return "dates of the drawdown's peak and trough"  # "which quarters were the peak and …"
    if _LONGER.search(said) and len(reading.parts) >= 2:
        return "the parts' windows, compared"  # "2019 vs 2020 - which year was better"
    if _LONGER.search(said):
        return None  # sub-periods nothing here ranks
    if reading.days is not None or set(reading.metrics) & _DAYS:
        return "dates of the extreme days"
    if "distance" in reading.metrics:
        return "date of the peak or trough"  # the distance table dates the high (low) it measures
    if "max_drawdown" in reading.metrics:
        return "dates of the drawdown's peak and trough"
    if reading.horizon is not None or reading.future is not None or "forecast" in reading.metrics:
        return "dates of the forecast"
    return None


# Measures that pick the highest or lowest point of a series: "which day was the peak".
_EXTREMES = {"max_drawdown", "stats", "best_day", "worst_day", "drawdown"}
# Measures whose output names the day of each figure: the best and worst days.
_DAYS = {"best_day", "worst_day"}


def _sub_period_measure(reading: Reading) -> bool:
    return bool(set(reading.metrics) & _EXTREMES)


# Periods counted ("how many months", 多少个季度, 几个月) and the steps that count them.
_COUNTED = re.compile(
    r"(?i)\b(?:how\s+many|number\s+of)\s+(?:(?:of\s+)?(?:the|its|their)\s+)?"
    # (哪几个月 names the months: which ones, not how many)
    r"(?:(?:calendar|trading|business)\s+)?$|(?:多少|(?<!哪)几)个?(?:日历|交易)?$"
)
_COUNTING = ("count_days", "count_signs", "longest_streak", "returns_when")

# Statistics taken over a series' values: "the mean of daily returns", 日收益率的均值.
_OVER_VALUES = {"mean", "median", "stats", "correlation", "volatility", "beta", "sharpe", "var"}
_NATIVE = {"daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter"}
_NATIVE |= {"annual": "year"}


def _period(reading: Reading, unit: str) -> str | None:
    if (
        unit == "day"
        and set(reading.metrics or ["?"]) <= _DAY_ONLY
        and _DAYS_COUNTED.search(reading.text)
    ):
        return None  # "how many calendar days from the bottom": a first close counts no days
    columns = [c for t in reading.tables for c in t.columns if unit in c.casefold()]
    if columns:
        return f"table column {columns[0]}"  # "which year" of a table with a fiscal_year
    if reading.frequency is not None:
        return f"grouping {reading.frequency}"
    if unit == "day" and (reading.days is not None or _sub_period_measure(reading)):
        return "daily values"
    if reading.entities and all(_NATIVE.get(e.frequency) == unit for e in reading.entities):
        return (
            f"{'daily' if unit == 'day' else unit + 'ly'} data"  # 季度GDP: the series is quarterly
        )
    if unit == "day" and set(reading.metrics) & _OVER_VALUES:
        return "statistic of daily values"
    if reading.window is not None or reading.ma_windows:
        return "rolling window"
    if reading.horizon is not None:
        return "forecast horizon"
    if calendar_unit(reading.start, reading.end) == unit:
        # "November 2020 - percent change for the month": the window is that one month, so
        # every grouping by month is the window itself.
        return f"the window (one {unit})"
    if from_start_within(reading.start, reading.end, unit):
        # "close the books for the year: how's Lilly done YTD", "a mid-year recap … the first
        # half of this year": the year the window runs in, not a grouping by years.
        return f"the window's {unit}"
    return None
