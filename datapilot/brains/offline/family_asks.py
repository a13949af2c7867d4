"""The asks of the analyst families, each read by a grammatical rule in both languages:

- best and worst sub-periods: a superlative beside a period word ("best month", "worst quarter",
  "biggest monthly loss", 表现最差的一个月, 哪个季度涨得最多);
- the date of an extreme: "which day was the peak", "when did it bottom", 最高是哪天, and the
  extreme of a produced series ("the peak of the 60-day rolling volatility");
- conditional counts: "how many days" / 多少天 with a condition (a close above a level, a daily
  move beyond a %, up or down days), or the number of trading days itself;
- distance from a peak or trough: "how far below its 52-week high", 离历史高点还差多少.

Each reader returns what it read and the spans of the words it used, or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from datapilot.brains.offline.numbers import read_number

Span = tuple[int, int]

# --- best and worst sub-periods ---------------------------------------------------------------

_FREQ = {
    "week": "weekly",
    "month": "monthly",
    "quarter": "quarterly",
    "year": "annual",
    "周": "weekly",
    "星期": "weekly",
    "月": "monthly",
    "月份": "monthly",
    "季度": "quarterly",
    "季": "quarterly",
    "年": "annual",
    "年份": "annual",
    "年度": "annual",
}
_ADJ_FREQ = {
    "weekly": "weekly",
    "monthly": "monthly",
    "quarterly": "quarterly",
    "annual": "annual",
    "yearly": "annual",
    "单周": "weekly",
    "周度": "weekly",
    "单月": "monthly",
    "月度": "monthly",
    "单季": "quarterly",
    "单季度": "quarterly",
    "季度": "quarterly",
    "年度": "annual",
}
_BEST_EN = r"best|strongest|top|biggest|largest|greatest|highest|widest"
_WORST_EN = r"worst|weakest|poorest|lowest|tightest|narrowest"
_NUMBER_EN = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten)"
_UP_EN = r"gains?|rises?|rall(?:y|ies)|returns?|advances?|jumps?|increases?|performance"
_DOWN_EN = r"loss|losses|drops?|falls?|declines?|plunges?|slides?|slumps?|decreases?"
_PERIOD_EN = r"(?P<unit>week|month|quarter|year)s?"
# "V得最X" (涨得最猛, 跌得最狠, 回撤最严重) is a superlative of a move, whatever the adverb.
UP_MOST_ZH = r"(?:上涨|涨|反弹|回升|大涨|增长|增加|上升)得?最(?:多|猛|凶|狠|快|厉害)"
DOWN_MOST_ZH = (
    r"(?:下跌|跌|亏|回撤|大跌|暴跌|下降|减少|萎缩|收缩)得?最(?:多|狠|凶|猛|快|厉害|惨|严重)"
)
# 最高/最低 name a sub-period's extreme of a rate (利率最高的季度); of a price (股价最高的月份) they
# are the highest close, dated, not the best period's return.
_NOT_A_PRICE = r"(?<!股价)(?<!价格)(?<!收盘价)(?<!收盘)(?<!点位)(?<!净值)"
_BEST_ZH = (
    rf"{UP_MOST_ZH}|表现最好|表现最佳|涨幅最大|涨得最多|涨最多|收益最高|收益率最高|最好|最佳|最强|"
    rf"{_NOT_A_PRICE}最高"
)
_WORST_ZH = (
    rf"{DOWN_MOST_ZH}|表现最差|跌幅最大|跌得最多|跌最多|亏损最大|亏得最多|收益最低|收益率最低|"
    rf"最差|最糟|最弱|最惨|{_NOT_A_PRICE}最低"
)
_PERIOD_ZH = r"(?P<unit>月份|季度|星期|年份|年度|季|周|月|年)"
_COUNTED = r"(?:\d+|[一两二三四五六七八九十几])"

_PERIOD_PATTERNS = (
    # "best month", "worst quarters", "best and worst year", "biggest monthly loss"
    re.compile(
        rf"(?i)\b(?P<s1>{_BEST_EN}|{_WORST_EN})(?:\s+(?:and|&|or)\s+(?P<s2>{_BEST_EN}|{_WORST_EN}))?"
        rf"\s+(?:(?P<n>\d+|two|three|four|five)\s+)?(?:(?:single|calendar|full|whole)\s+){{0,2}}{_PERIOD_EN}\b"
        rf"(?!\s*(?:-|to|over|on)\s*(?:date|year|month|quarter|week)"
        rf"|[-\s]+(?:on|over)[-\s]+(?:year|month|quarter|week))"
    ),
    re.compile(
        rf"(?i)\b(?P<s1>{_BEST_EN}|{_WORST_EN})\s+(?P<adj>weekly|monthly|quarterly|annual|yearly)\s+"
        rf"(?:(?P<up>{_UP_EN})|(?P<down>{_DOWN_EN}))\b"
    ),
    # "which month was the best", "what quarter did it gain the most", "which three months
    # printed the tightest"
    re.compile(
        rf"(?i)\b(?:which|what)\s+(?:{_NUMBER_EN}\s+)?(?:(?:single|calendar|full|whole)\s+){{0,2}}"
        rf"{_PERIOD_EN}\b[^.?;!]{{0,50}}?\b"
        rf"(?:(?P<s1>{_BEST_EN}|{_WORST_EN})(?:\s+(?:[\w/-]+\s+){{0,2}}?(?P<fall>{_DOWN_EN})\b)?"
        # "which quarter was best and which was worst", "at its widest and at its narrowest",
        # "widest, and which narrowest": the other side said after it
        rf"(?:,?\s+and\s+(?:which\s+(?:one\s+)?(?:(?:was|were|is)\s+)?|at\s+)?(?:its\s+|the\s+)?"
        rf"(?P<s2>{_BEST_EN}|{_WORST_EN}))?"
        rf"|(?P<up>gain(?:ed)?|r[io]se|rall(?:y|ied)|jump(?:ed)?|climb(?:ed)?|surge(?:d)?)\s+"
        rf"(?:the\s+)?most"
        rf"|(?P<down>f[ae]ll|drop(?:ped)?|lo(?:se|st)|declined?|slump(?:ed)?|sank|sink)\s+"
        rf"(?:the\s+)?most)\b"
    ),
    # "the month with the biggest loss"
    re.compile(
        rf"(?i)\b{_PERIOD_EN}\s+(?:with|of)\s+the\s+(?:{_BEST_EN}|{_WORST_EN})\s+"
        rf"(?:(?P<up>{_UP_EN})|(?P<down>{_DOWN_EN}))\b"
    ),
    # A level's extreme periods: "the 3 months with the highest unemployment rate", "the three
    # lowest monthly readings" (of a rate only: `PeriodAsk.levels`)
    re.compile(
        rf"(?i)\b(?:{_NUMBER_EN}\s+)?{_PERIOD_EN}\s+(?:with|of|when)\s+the\s+"
        rf"(?P<level>{_BEST_EN}|{_WORST_EN})\b"
        rf"(?!\s+(?:{_UP_EN}|{_DOWN_EN})\b)"
    ),
    re.compile(
        rf"(?i)\b(?:{_NUMBER_EN}\s+)?(?P<level>{_BEST_EN}|{_WORST_EN})\s+"
        r"(?P<adj>weekly|monthly|quarterly|annual|yearly)\s+"
        r"(?:readings?|prints?|values?|levels?|figures?|averages?|observations?)\b"
    ),
    # 表现最差的一个月, 最好的季度, 涨幅最大的月份, 最差的是哪个月
    re.compile(
        rf"(?P<s1>{_BEST_ZH}|{_WORST_ZH})(?:(?:和|与|及|、|以及|跟)(?P<s2>{_BEST_ZH}|{_WORST_ZH}))?"
        rf"的?(?:又|则|各|分别)?(?:是)?(?:哪)?(?:{_COUNTED})?(?:一|个|一个|那个|那)?{_PERIOD_ZH}"
        r"(?!初|末|底|中|以来|内)"
    ),
    # 涨幅前三的月份, 跌幅前两名的季度: the first N periods by the move
    re.compile(
        r"(?:(?P<up>涨幅|收益率?|回报率?|表现)|(?P<down>跌幅|亏损))(?:最大|最高|最好|最差)?的?"
        rf"前\s*{_COUNTED}\s*(?:名|个|位)?的?(?:是)?(?:哪)?(?:几)?(?:个)?{_PERIOD_ZH}"
        r"(?!初|末|底|中|以来|内)(?:(?:分别)?是?哪(?:几|一)?个?(?:月份?|季度|年|周))?"
    ),
    # 哪个月涨得最多, 哪一季度表现最好
    re.compile(
        rf"哪(?:一|个|一个)?{_PERIOD_ZH}[^,，。？?;；]{{0,8}}?(?P<s1>{_BEST_ZH}|{_WORST_ZH})"
    ),
    # 单月最大跌幅, 月度最大涨幅, 季度涨幅最大
    re.compile(
        r"(?P<adj>单周|周度|单月|月度|单季度|单季|季度|年度)(?:最大|最高)?"
        r"(?:(?P<up>涨幅|收益率?|回报)|(?P<down>跌幅|亏损|回撤))(?:最大|最高|最多)?"
    ),
)


@dataclass(frozen=True)
class PeriodAsk:
    """Best/worst sub-periods asked for: the sides, the frequency, and where they were said."""

    sides: frozenset[str]
    frequency: str
    spans: tuple[Span, ...]
    # Said only as a level's highest or lowest ("the month with the highest rate"): a rate's
    # periods, never a price's (its months' returns are not "the highest close")
    levels: bool = False

    @property
    def which(self) -> str:
        return "both" if len(self.sides) == 2 else next(iter(self.sides))

    def count(self, text: str, numbers: Mapping[str, int]) -> int | None:
        """How many periods the words ask for ("the best three quarters", 最好的3个月)."""
        for start, end in self.spans:
            for found in _HOW_MANY_PERIODS.finditer(text[start:end]):
                said = read_number(found.group(1) or found.group(2) or found.group(3), numbers)
                if said is not None and said >= 2:
                    return int(said)
        return None


# A count of periods: "three quarters", "3 months", 三个季度, 2个 (one period is the default);
# looked for at each word, so "best three quarters" tries "best", then "three".
_HOW_MANY_PERIODS = re.compile(
    r"(?i)(?=\b([a-z]+|\d+)\s+(?:\w+\s+)?(?:weeks|months|quarters|years|"
    r"(?:weekly|monthly|quarterly|annual|yearly)\s+\w+s)\b)"
    r"|(?:前\s*)?(\d+|[两二三四五六七八九十]+)\s*个|前\s*(\d+|[两二三四五六七八九十]+)"
)


def _side(word: str) -> str:
    if re.fullmatch(rf"(?i){_WORST_EN}", word) or re.fullmatch(_WORST_ZH, word):
        return "worst"
    return "best"


def read_period_ask(text: str) -> PeriodAsk | None:
    """The best/worst-period request in `text`, or None."""
    sides: set[str] = set()
    freqs: list[str] = []
    spans: list[Span] = []
    levels: list[bool] = []
    for pattern in _PERIOD_PATTERNS:
        for match in pattern.finditer(text):
            groups = {k: v for k, v in match.groupdict().items() if v}
            if "adj" in groups:
                freq = _ADJ_FREQ[groups["adj"].lower()]
                if not (groups.get("s1") or groups.get("level") or "最" in match.group(0)):
                    continue  # 月度涨幅 alone is a table of returns, not an extreme
            else:
                freq = _FREQ[groups["unit"].lower()]
            said = [_side(groups[k]) for k in ("s1", "s2", "level") if k in groups]
            levels.append("level" in groups)
            if "down" in groups:
                said = ["worst"]
            elif "fall" in groups and said == ["best"]:
                said = ["worst"]  # "which quarter saw the largest quarter-on-quarter drop"
            elif "up" in groups and not said:
                said = ["best"]
            if (
                "up" in groups
                and said == ["best"]
                and groups.get("s1", "").lower()
                in (
                    "lowest",
                    "weakest",
                    "poorest",
                )
            ):
                said = ["worst"]
            sides.update(said or ["best"])
            freqs.append(freq)
            spans.append(match.span())
    if not sides:
        return None
    return PeriodAsk(
        sides=frozenset(sides), frequency=freqs[0], spans=tuple(spans), levels=all(levels)
    )


# --- the date of an extreme -------------------------------------------------------------------

_WHEN_UNIT = {"day": "daily", "date": "daily", "session": "daily", "week": "weekly"}
_WHEN_UNIT |= {"month": "monthly", "quarter": "quarterly", "year": "annual"}
_HIGH_EN = (
    r"peak(?:ed)?|high|highs|highest|top(?:ped)?|max(?:imum)?|low|lows|lowest|bottom(?:ed)?|"
    r"trough|min(?:imum)?|widest|narrowest|fastest|strongest|slowest|weakest|"
    # "when core inflation ran hottest": a rate's highest (coolest: its lowest)
    r"hottest|coolest|coldest|"
    # "when was Brent dearest over WTI": a premium's widest (cheapest: its narrowest)
    r"dearest|priciest|most\s+expensive|cheapest|"
    # "how wide did the spread get … and which month": the extreme it reached
    r"how\s+(?:wide|high|low|narrow)(?=\s+(?:did|does|has|had|was|were|is)\b)"
)
_HOW_FAR = re.compile(
    r"(?i)\bhow\s+(?:wide|high|low|narrow)(?=\s+(?:did|does|has|had|was|were|is)\b)"
    r"|(?:最高|最低|最宽|最窄)(?:是|为|到|达到|有)?(?:多少|几)"
)
_WHEN_PATTERNS = (
    re.compile(
        # (far enough for two names between: "which month was the spread between Moody's Baa
        # and Aaa corporate bond yields at its widest")
        r"(?i)\b(?:which|what|on\s+what)\s+(?P<unit>day|date|session|week|month|quarter|year)\b"
        rf"[^.?!]{{0,90}}?\b(?P<side>{_HIGH_EN})\b"
    ),
    # (not a condition: "which had the best return when you chain the monthly returns")
    re.compile(rf"(?i)\bwhen\b(?!\s+(?:you|we|i|one)\b)[^.?!]{{0,90}}?\b(?P<side>{_HIGH_EN})\b"),
    re.compile(
        rf"(?i)\b(?P<side>{_HIGH_EN})\b[^.?!]{{0,40}}?\b(?:and|with|plus)\s+(?:the\s+|its\s+)?"
        r"(?P<unit>date|day)s?\b"
    ),
    # "all time high close - when and what price": the date asked after a comma, a dash, a colon.
    re.compile(rf"(?i)\b(?P<side>{_HIGH_EN})\b[^.?!]{{0,60}}?(?:\band|,|[–—:;(]|\s?-)\s*when\b"),
    # "peak … - how high and which quarter?": the date asked in a clause of its own.
    re.compile(
        rf"(?i)\b(?P<side>{_HIGH_EN})\b[^.!]{{0,80}}?(?:\band\b|,|[-–—?;(])\s*(?:(?:in|on)\s+)?"
        r"(?:which|what)\s+(?P<unit>day|date|session|week|month|quarter|year)s?\b"
    ),
    # "the month core inflation topped out", "the quarter it bottomed": the period named first,
    # its extreme by a verb after it.
    re.compile(
        r"(?i)\bthe\s+(?P<unit>day|date|session|week|month|quarter|year)\s+(?:[\w'-]+\s+){0,4}?"
        r"(?P<side>peaked|topped(?:\s+out)?|bottomed(?:\s+out)?|troughed)\b"
    ),
    # "brent peak month in 2008 and the price": the period of the extreme named by its unit.
    re.compile(
        r"(?i)\b(?P<side>peak|trough|widest|narrowest)\s+"
        r"(?P<unit>day|date|session|week|month|quarter|year)\b(?!\s+(?:ago|high|low)\b)"
    ),
    re.compile(
        r"(?P<side>最高点?|最低点?|高点|低点|峰值|顶点|谷底|新高|新低|最大值|最小值|"
        # 利差最大是什么时候: the widest, never 最大涨幅/最大回撤 (a day's move, a drawdown)
        r"最大(?![涨跌回振])|最小(?![涨跌回振])|最宽|最窄|最快|最慢|"
        # 布伦特比WTI贵得最多的是哪个月: the widest premium
        r"(?:贵|高出|高)得?最多)"
        r"[^。？?]{0,10}?(?:是|在|出现在)?(?P<unit>哪一?天|哪日|哪个交易日|什么时候|啥时候|啥时|几时|何时|几号|哪一?个月|哪月|"
        r"哪个季度|哪一?年|日期)"
    ),
    # 最高到多少？是哪个季度？ or 最高的时候，到了多少？是在哪个季度？: the date asked later.
    re.compile(
        r"(?P<side>最高|最低|高点|低点|峰值|谷底|最大|最小|最宽|最窄)[^。？?，,]{0,10}[？?，,]"
        r"(?:[^。？?，,]{0,14}[？?，,])?\s*"
        r"(?:各|分别|又)?(?:是在|是|在|出现在)?(?P<unit>哪一?天|哪日|哪个交易日|什么时候|啥时候|啥时|几时|何时|几号|哪一?个月|哪月|"
        r"哪个季度|哪一?年)"
    ),
    re.compile(
        # 利差2008年哪个月最大: the widest, never 哪个月涨幅最大 (the best month's gain)
        r"(?P<unit>哪一?天|什么时候|啥时候|啥时|几时|何时|哪个交易日|哪一?个月|哪个季度|哪一?年)"
        # (a blanked aside, a run of spaces, counts as one)
        r"(?:(?![涨跌收回振波])[^，。？,?\s]|\s+){0,8}?"
        r"(?P<side>最高|最低|见顶|见底|创新高|创新低|达到峰值|最大(?![涨跌回振])|最小(?![涨跌回振])|最宽|最窄)"
    ),
)
_ZH_WHEN_UNIT = {"月": "monthly", "季": "quarterly", "年": "annual"}
# The distance between a window's high and low: "the difference between its highest and lowest
# close", "high-low range", 最高价和最低价相差多少.
# The move between the window's two extremes, said after them: "how far did it fall from that
# high down to that low", 从那个最低点到最高点涨了百分之多少.
_OWNER = r"(?:(?:that|the|its|this|last)\s+)?(?:(?:year|month|quarter|week)'?s\s+)?"
_HIGH = r"(?:high|peak|top|highest(?:\s+(?:close|closing\s+price|price|level|point))?)"
_LOW = r"(?:low|bottom|trough|lowest(?:\s+(?:close|closing\s+price|price|level|point))?)"
_BETWEEN_EXTREMES = (
    rf"\bfrom\s+{_OWNER}{_HIGH}\s+(?:(?:all\s+the\s+way\s+)?down\s+)?to\s+{_OWNER}{_LOW}\b"
    rf"|\bfrom\s+{_OWNER}{_LOW}\s+(?:(?:all\s+the\s+way\s+)?up\s+)?to\s+{_OWNER}{_HIGH}\b"
    r"|从(?:那个|这个|该|全年|年内|当年)的?(?:最高点|高点|最高价|最高收盘价?)(?:跌)?到"
    r"(?:那个|这个|该|全年|年内|当年)?的?(?:最低点|低点|最低价|最低收盘价?)"
    r"|从(?:那个|这个|该|全年|年内|当年)的?(?:最低点|低点|最低价|最低收盘价?)(?:涨)?到"
    r"(?:那个|这个|该|全年|年内|当年)?的?(?:最高点|高点|最高价|最高收盘价?)"
)
BETWEEN_EXTREMES = re.compile(rf"(?i){_BETWEEN_EXTREMES}")
RANGE_ASK = re.compile(
    rf"(?i){_BETWEEN_EXTREMES}"
    r"|\b(?:difference|gap|spread|distance)\s+between\s+(?:the\s+|its\s+|their\s+)?"
    # the name may sit before its extremes: "between the S&P 500's highest and lowest close"
    r"(?:[\w&.'’-]+\s+){0,4}?"
    r"(?:highs?|highest|peak|max(?:imum)?)\b[^.?!]{0,30}?\band\s+(?:the\s+|its\s+)?"
    r"(?:lows?|lowest|trough|min(?:imum)?)\b"
    r"|\bhigh[-\s]?(?:to[-\s]?)?low\s+range\b|\b(?:trading|price)\s+range\b"
    r"|\bhigh[-\s]+(?:minus|less)[-\s]+low\s+(?:gap|range|difference|spread|distance)\b"
    r"|(?:最高|高点)[^，,。？?]{0,8}(?:最低|低点)[^，,。？?]{0,6}?(?:相差|之差|差距|差了|差多少|差值|差额)"
    # the two extremes listed, then their gap: "highest close, lowest close, and the gap between
    # the two", 最高收盘、最低收盘，以及两者相差多少
    r"|\b(?:highs?|highest|peak|max(?:imum)?)\b[^.?!]{0,40}?\b(?:lows?|lowest|trough|min(?:imum)?)\b"
    r"[^.?!]{0,40}?\b(?:difference|gap|spread|distance)\s+between\s+(?:the\s+two|them|both|those)\b"
    r"|(?:最高|高点)[^？?]{0,20}(?:最低|低点)[^？?]{0,12}?(?:两者|二者)(?:之间)?(?:相差|差距|之差|差了|差多少|差值)"
    # the two extremes asked, then their range or how far apart they are: "high and low for the
    # year, the months, and the range in bp", "top and bottom month, and how many basis points
    # separate them"
    r"|\b(?:highs?|highest|top|peak|max(?:imum)?)\b[^?!]{0,40}?\b(?:lows?|lowest|bottom|trough|"
    r"min(?:imum)?)\b[^?!]{0,120}?(?:\b(?:the|its|a)\s+range\b|\bseparates?\s+(?:them|the\s+two|both)\b|\bapart\b"
    r"|\bbetween\s+(?:the\s+two|them|both|those)\b)"
    # the gap asked in the next question: 最高值和最低值各是多少？差价是多少？ / 两者相差多少点？
    r"|(?:最高|高点)[^。？?]{0,20}(?:最低|低点)[^。？?]{0,16}[？?]\s*(?:两者|二者)?(?:之间)?"
    r"(?:相差|差距|之差|差了|差多少|差值|差额|差价)"
)
# A high and a low said together: "high and low", "highest and lowest close", 最高价和最低价.
BOTH_EXTREMES = re.compile(
    r"(?i)\b(?:highs?|highest|peak|max(?:imum)?)\s+(?:(?:close|closing\s+price|price|level|value)s?\s+)?"
    r"(?:and|&|/|or)\s+(?:the\s+|its\s+)?(?:lows?|lowest|trough|min(?:imum)?)\b"
    r"|\b(?:lows?|lowest|trough|min(?:imum)?)\s+(?:(?:close|closing\s+price|price|level|value)s?\s+)?"
    r"(?:and|&|/|or)\s+(?:the\s+|its\s+)?(?:highs?|highest|peak|max(?:imum)?)\b"
    r"|(?:最高|高点)[^，。？?,和与及、]{0,4}(?:和|与|及|、|跟)(?:最低|低点)"
    r"|(?:最低|低点)[^，。？?,和与及、]{0,4}(?:和|与|及|、|跟)(?:最高|高点)"
)


@dataclass(frozen=True)
class WhenAsk:
    """The date of a series' highest (`best`) or lowest (`worst`) value, labelled by `label`."""

    side: str
    label: str
    spans: tuple[Span, ...]


_OF_SERIES = re.compile(
    r"(?i)\b(?P<side>peak|highest|maximum|max|lowest|minimum|min|trough)\s+(?:value\s+|level\s+)?of\b"
    r"|(?P<zh>最高值|最大值|峰值|最高点|最低值|最小值|最低点)"
)


def read_series_extreme(text: str) -> WhenAsk | None:
    """ "The peak of the rolling volatility", 滚动波动率的最大值: an extreme of a series the
    measure produced."""
    found = _OF_SERIES.search(text)
    if found is None:
        return None
    word = (found.group("side") or found.group("zh")).lower()
    low = bool(re.match(r"low|min|trough|最低|最小", word))
    return WhenAsk("worst" if low else "best", "daily", (found.span(),))


# A short aside in brackets ("哪个月核心通胀（核心CPI同比）最低"), blanked so the words around it
# read as one phrase; every offset stays.
_ASIDE = re.compile(r"（[^（）]{1,20}）|\([^()]{1,20}\)")


# The other extreme asked right after, its noun left out: "which quarter was it highest, which
# lowest", 哪个月最高，哪个月最低.
_OTHER_SIDE = re.compile(
    r"(?i)\s*[,;，；]?\s*(?:and\s+|以及|和)?(?:which|哪)\s*(?:(?:one|day|date|month|quarter|year|"
    r"week|个|一个|一)\s*)?(?:(?:天|日|月份?|季度|年|周)\s*)?(?:(?:was|did|is)\s+(?:it\s+)?)?"
    r"(?:(?:at|hit)\s+(?:its\s+)?)?(?:是)?"
    r"(?P<side>highest|lowest|peak(?:ed)?|trough|bottom(?:ed)?|top(?:ped)?|low|high|最高|最低)(?![A-Za-z])"
    # "at its widest and at its narrowest": the other end of a spread said the same way
    r"|(?i:\s*(?:,\s*)?and\s+(?:at\s+)?(?:its\s+|the\s+)?)(?P<ends>narrowest|widest|tightest)\b"
)


# A word naming the low end (the lowest, the trough, 见底), not the high.
_LOW_SIDE = re.compile(
    r"(?:how\s+)?(?:low|bottom|trough|min|narrow|slow|weak|cheap|cool|cold)|最窄|最低|低点|谷底|新低|最小|"
    r"见底|创新低|最慢"
)


def _names_the_low(word: str) -> bool:
    return _LOW_SIDE.match(word) is not None


def _other_side_after(text: str, end: int, low: bool) -> re.Match[str] | None:
    """The other extreme asked right after one (`end`), or None."""
    found = _OTHER_SIDE.match(text, end)
    if found is None:
        return None
    side = found.group("side") or found.group("ends")
    return found if _names_the_low(side.lower()) != low else None


def read_when_ask(text: str) -> WhenAsk | None:
    """ "Which day was the peak", 最高是哪天: the date of an extreme, or None."""
    plain = _ASIDE.sub(lambda aside: " " * len(aside.group(0)), text)
    for pattern in _WHEN_PATTERNS:
        found = pattern.search(text) or (pattern.search(plain) if plain != text else None)
        if found is None:
            continue
        side_word = found.group("side").lower()
        low = _names_the_low(side_word)
        if re.match(r"fastest|最快", side_word):  # 跌得最快, "fell fastest": the steepest fall
            before = text[max(0, found.start() - 12) : found.start()]
            low = bool(re.search(r"(?i)跌|降|缩|f[ae]ll|drop|declin|shr[iau]nk|contract", before))
        unit = (found.groupdict().get("unit") or "day").lower()
        # "the high and low, and on which days", 最高价和最低价…各在哪天: both extremes.
        both = BOTH_EXTREMES.search(text) or _other_side_after(text, found.end(), low)
        side = "both" if both else "worst" if low else "best"
        spans: tuple[Span, ...] = (found.span(), both.span()) if both else (found.span(),)
        # "… at its widest, and how wide did it get": the extreme's size, asked again after it.
        spans += tuple(
            again.span() for again in _HOW_FAR.finditer(text) if again.start() >= found.end()
        )
        label = _WHEN_UNIT.get(unit) or next(
            (v for k, v in _ZH_WHEN_UNIT.items() if k in unit), "daily"
        )
        return WhenAsk(side, label, spans)
    return None


# --- conditional counts -----------------------------------------------------------------------

_NUM = r"(?P<num>\d[\d,]*(?:\.\d+)?)"
_COUNT_EN = re.compile(
    r"(?i)\bhow\s+many\s+(?:(?:trading|market|business|up|down|positive|negative|green|red|"
    r"winning|losing)\s+){0,2}(?:days|sessions|closes|times(?!\s+(?:higher|lower|more|less|bigger|larger|"
    r"greater|smaller|as|over)\b))\b"
    # the sessions left out after a first count: "…, how many closed down more than 2%"
    r"|\bhow\s+many\s+(?=(?:closed|finished|ended|fell|rose|dropped|gained|lost)\b)"
    r"|(?:\bnumber|\bnum\b\.?|\bno\b\.?|\bcount|\btally|#)\s*of\s+(?:(?:trading|market|up|down)\s+)?"
    r"(?:days|sessions)\b"
    # a name between: "how many Nasdaq sessions saw a drop of more than 5%" (not a month or a
    # year, which the window reads)
    r"|\bhow\s+many\s+(?:(?-i:(?!(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b)"
    r"[A-Z][\w&.'’-]*)\s+){1,3}(?:trading\s+)?(?:days|sessions)\b"
    # the name between: "count of S&P 500 sessions in 2020 with a drop of more than 2%"
    r"|\b(?:number|count|tally)\s+of\s+(?:[\w&.^'’-]+\s+){1,4}?(?:trading\s+)?(?:days|sessions)\b"
    r"|\bcount\s+(?:the\s+)?(?:(?:trading|up|down)\s+)?(?:days|sessions)\b"
    r"|\b(?:days|sessions)\s+count\b"
    # the share of sessions ("what % of days were up", "share of up days")
    r"|(?:\b(?:share|percentage|proportion|fraction|percent)|%)\s+of\s+(?:the\s+)?(?:(?:trading|"
    r"up|down|positive|negative|green|red)\s+){0,2}(?:days|sessions)\b"
    # "msft up days so far this year?": the days named by their side, as what is asked (never
    # "the average return on up days")
    r"|(?<!on\s)(?<!in\s)(?<!of\s)(?<!for\s)(?<!during\s)"
    r"\b(?:up|down|green|red|positive|negative)\s+(?:trading\s+)?(?:days|sessions)\b"
)
_COUNT_ZH = re.compile(
    r"(?:有)?(?:多少|几)(?:个)?(?:交易日|天|日|次)|天数|交易日数|交易日的数量|几个交易日|多少交易日"
    # 收升的日子有多少, 升的日子有几多: the days said, then how many
    r"|(?:交易日|日子|天数)(?:一共|总共|共)?有(?:多少|几)"
    r"|(?:交易日|天数|天)的?(?:占比|比例|比重|百分比|占(?:了)?(?:多少|几成|百分之几))"
)
_MORE = (
    r"(?P<cmp>more\s+than|over|above|greater\s+than|bigger\s+than|larger\s+than|at\s+least|"
    r"beyond|exceeding|in\s+excess\s+of)"
)
_RETURN_EN = (
    re.compile(
        rf"(?i)\b(?:move[sd]?|moving|swing\w*|change[sd]?|moves)\s+(?:by\s+)?{_MORE}\s+{_NUM}\s*"
        r"(?:%|percent)(?P<either>\s+(?:either\s+way|in\s+either\s+direction|up\s+or\s+down))?"
    ),
    re.compile(
        rf"(?i)\b{_MORE}\s+{_NUM}\s*(?:%|percent)\s+(?:either\s+way|in\s+either\s+direction|up\s+or\s+down)"
    ),
    re.compile(
        rf"(?i)\b(?P<dir>up|gain(?:ed|s)?|r[io]se|rising|jump(?:ed|s)?|climb(?:ed|s)?|advanc(?:ed|es)|"
        rf"rall(?:y|ied|ies)|surg(?:e|ed|es)|"
        rf"down|f[ae]ll|falling|drop(?:ped|s)?|lost|los(?:e|es|ing)|declin(?:ed|es)|slid|sank)\s+"
        rf"(?:by\s+)?{_MORE}\s+{_NUM}\s*(?:%|percent)"
    ),
    re.compile(
        r"(?i)\b(?:daily|one[- ]day|single[- ]day)\s+"
        r"(?P<dir>gain|rise|move|drop|fall|loss|decline)s?\s+"
        rf"(?:of\s+)?{_MORE}\s+{_NUM}\s*(?:%|percent)"
    ),
    # "sessions with a drop of more than 2%", "days with any gain over 3%", "sessions saw a drop"
    re.compile(
        r"(?i)\b(?:(?:with|saw|see|had|posted|suffered)\s+)?(?:a|an|any)\s+"
        r"(?P<dir>gain|rise|move|drop|fall|loss|decline|jump)s?\s+"
        rf"(?:of\s+)?{_MORE}\s+{_NUM}\s*(?:%|percent)"
    ),
)
_LEVEL_EN = re.compile(
    r"(?i)\b(?:(?:clos(?:e|ed|es|ing)|trad(?:e|ed|es|ing)|settl(?:e|ed|es|ing)|finish(?:ed|es)?|"
    r"end(?:ed|s)?|stay(?:ed|s)?|was|were)\s+)?"
    r"(?P<cmp>above|over|below|under|higher\s+than|lower\s+than|at\s+or\s+above|at\s+or\s+below|"
    r"at\s+least|at\s+most|greater\s+than|less\s+than|more\s+than)\s+(?:\$|US\$|USD\s*)?"
    + _NUM
    # (nor a number's head: "above 2.5%" is no level of 2)
    + r"(?!\s*(?:%|percent|\d|-|/(?!\s*(?:bbl|barrel|share|oz|ounce|t\b|ton)))|[.,]\d)"
)
# The comparison said after the level: "closed at $150 or more", "$60 or higher", "50 or lower".
_LEVEL_AFTER_EN = re.compile(
    r"(?i)\b(?:clos(?:e|ed|es|ing)|trad(?:e|ed|es|ing)|settl(?:e|ed|es|ing)|finish(?:ed|es)?|"
    r"end(?:ed|s)?|stay(?:ed|s)?|was|were)\s+(?:at\s+)?(?:\$|US\$|USD\s*)?"
    + _NUM
    + r"\s+or\s+(?P<dir>more|higher|above|greater|better|less|lower|below|under|worse)\b"
)
_UPDOWN_EN = re.compile(
    r"(?i)\b(?P<dir>up|down|positive|negative|green|red|gaining|losing|winning)\s+(?:trading\s+)?(?:days|sessions)\b"
    r"|\b(?:days|sessions)\b[^.?!]{0,40}?\b(?:clos(?:e|ed)\s+)?(?P<verb>higher|lower|up|down|r[io]se|f[ae]ll|gained|lost|declined|advanced)\b"
)
_RETURN_ZH = re.compile(
    r"(?:单日|日|当日|一天)?(?P<dir>涨跌幅|振幅|波动|涨幅|上涨|大涨|涨|跌幅|下跌|大跌|跌)(?:的?绝对值)?"
    r"(?P<cmp>超过|大于|高于|逾|超|不低于|至少|达到|在)?\s*" + _NUM + r"\s*[%％](?P<above>以上)?"
)
_LEVEL_ZH = re.compile(
    r"(?P<cmp>高于|低于|高过|低过|超过|大于|小于|站上|站稳|跌破|不低于|不高于|在)?\s*"
    + _NUM
    # (收在80块上面, 在3000点上方: above it, the number itself not included)
    + r"\s*(?:美元|美金|元|点|块|刀)?"
    r"(?P<side>(?:及|或)?(?:以上|以下|之上|之下)|上面|下面|上方|下方)?(?![\d.%％])"
)
# A close against its own N-day moving average: "below its 200-day moving average", "above
# its 200dma", 收在200日均线下方, 站上50日均线.
_MA_EN = re.compile(
    r"(?i)\b(?P<cmp>above|over|below|under)\s+(?:its|the|their|a)?\s*(?P<n>\d+)\s*-?\s*"
    r"(?:days?|d|sessions?)?\s*-?\s*(?:simple\s+)?(?:moving[-\s]+average|ma|dma|sma)\b"
)
_MA_ZH = re.compile(
    r"(?P<cmp>高于|低于|站上|站稳|跌破|收在|在|位于)?\s*(?P<n>\d+)\s*(?:日|天)\s*"
    r"(?:均线|移动平均线|移动均线|简单移动平均线?)\s*(?P<side>上方|下方|之上|之下|以上|以下)?"
)
# Both sides asked together: "up days vs down days", "down and up sessions", 涨跌天数.
_UP_EN = r"(?:up|gaining|positive|green|winning|higher)"
_DOWN_EN = r"(?:down|losing|negative|red|lower)"
_JOIN_EN = (
    r"\s+(?:(?:trading\s+)?(?:days|sessions)\s+)?"
    r"(?:vs\.?|versus|and|or|against|compared\s+(?:to|with)|to)\s+"
)
_BOTH_EN = re.compile(
    rf"(?i)\b(?:{_UP_EN}{_JOIN_EN}{_DOWN_EN}|{_DOWN_EN}{_JOIN_EN}{_UP_EN})\s+(?:trading\s+)?"
    r"(?:days|sessions)\b"
    # the other side set against it later: "how many down days in 2015, vs up days?"
    rf"|\b(?:{_UP_EN}|{_DOWN_EN})\s+(?:trading\s+)?(?:days|sessions)\b[^.?!;]{{0,60}}?"
    rf"(?:\bvs\.?|\bversus|\bagainst|\bcompared\s+(?:to|with)|\band\s+how\s+many)\s+"
    rf"(?:{_UP_EN}|{_DOWN_EN})\s+(?:trading\s+)?(?:days|sessions)\b"
)
_BOTH_ZH = re.compile(
    r"(?:上涨|收涨|收阳|收红|涨)(?:的?(?:交易日|天数|天|日子))?(?:和|与|跟|、|对|比|vs)"
    r"(?:下跌|收跌|收阴|收绿|跌)"
    r"(?:的?(?:交易日|天数|天|日子))?|涨跌(?:的?(?:交易日|天数|天|日子))|涨跌各"
)
# A day closing up is red in Chinese quotes (收红), down green (收绿).
# (升, 收升: Cantonese for a close up, 收市升嘅日子; 日 a day only after 几/多少:
# 有多少日收盘是升的)
_SIDE_ZH = r"上涨|收涨|收阳|收红|收升|下跌|收跌|收阴|收绿|涨|跌|升"
_UPDOWN_ZH = re.compile(
    rf"(?P<dir>{_SIDE_ZH})(?:的)?(?:(?:一共|总共|共)?有(?:几|多少)个?)?"
    r"(?:交易日|天|日子|天数)"
    # the side said after the sessions counted: 有多少个交易日是上涨的, 几天收跌
    r"|(?:交易日|天|(?<=几|少)个?日)(?:里|中|当中)?(?:是|为|在)?(?:收盘|收市)?(?:是|为)?"
    rf"(?P<dir2>{_SIDE_ZH})"
    r"(?![了幅过超息值级])"
)


# A close beyond every close before it: "a new all-time high", "record closes", 创历史新高.
_RECORD_EN = (
    r"\b(?:new\s+)?(?:all[-\s]time|record)\s+(?:closing\s+)?(?:highs?|lows?)\b"
    r"|\bnew\s+(?:closing\s+)?(?:highs?|lows?)\b|\brecord\s+(?:high\s+|low\s+)?closes?\b"
)
# 刷新历史纪录, 创下纪录: a record said without its side is a high.
_RECORD = re.compile(
    rf"(?i){_RECORD_EN}|创?(?:历史)?新(?:高|低)|(?:刷新|创下?|打破)了?(?:历史)?(?:纪录|记录)"
)
# The records themselves counted: "how many record closes", "the number of new all-time highs",
# 创了几次历史新高, 历史新高有几次.
_RECORDS_COUNTED = re.compile(
    rf"(?i)\b(?:how\s+many|number\s+of|count\s+of)\s+(?:times\s+[^.?!]{{0,30}}?)?(?:{_RECORD_EN})"
    r"|创(?:了)?(?:几|多少)次(?:历史)?新(?:高|低)|(?:历史)?新(?:高|低)(?:有|共)?(?:几|多少)次"
)


@dataclass(frozen=True)
class CountAsk:
    """A count of sessions: the condition, its threshold, whether equality counts, the spans."""

    condition: str
    threshold: float | None
    inclusive: bool
    spans: tuple[Span, ...]


def _records(found: re.Match[str], spans: list[Span]) -> CountAsk:
    """A count of record highs, or of record lows when the words say low (新低)."""
    low = re.search(r"(?i)low|新低", found.group(0)) is not None
    return CountAsk("record_low" if low else "record_high", None, False, (*spans, found.span()))


def _num(text: str) -> float:
    return float(text.replace(",", ""))


# Months or quarters counted: "how many months was Brent above $100", 有几个月在100美元以上.
_VALUES_EN = re.compile(
    r"(?i)\b(?:how\s+many|number\s+of|count\s+(?:of\s+)?(?:the\s+)?)\s*(?:the\s+)?"
    r"(?P<unit>month|quarter)s\b"
)
_VALUES_ZH = re.compile(
    r"(?:有)?(?:几|多少)个?(?P<unit>月|季度)"
    r"|(?P<unit2>月份?|季度)[^，。？?,]{0,6}?(?:一共|总共|共)?有?(?:几|多少)个"  # 的季度一共有几个
)
_VALUE_UNITS = {"month": "monthly", "quarter": "quarterly", "月": "monthly", "季度": "quarterly"}


def read_values_count(text: str) -> tuple[str, CountAsk] | None:
    """The months or quarters `text` counts by a level their values met, as (the frequency,
    the count), or None: the values of a series with one a month or a quarter."""
    trigger = _VALUES_EN.search(text) or _VALUES_ZH.search(text)
    if trigger is None:
        return None
    count = read_count_ask(text, trigger)
    if count is None or count.condition not in ("close_above", "close_below"):
        count = _percent_level(text, trigger)
    if count is None:
        return None
    unit = (trigger["unit"] or trigger["unit2"]).lower().replace("月份", "月")
    return _VALUE_UNITS[unit], count


# A rate's level in percent: "above 8%", 高于8%, 8%以上 (of a day's move it would be a return).
_PERCENT_LEVEL_EN = re.compile(
    r"(?i)(?:\b(?P<cmp>at\s+or\s+above|at\s+or\s+below|above|over|below|under|higher\s+than|"
    r"lower\s+than|at\s+least|at\s+most|more\s+than|less\s+than|no\s+less\s+than|"
    r"no\s+more\s+than)\s+)?" + _NUM + r"\s*(?:%|percent)"
    r"(?P<post>\s+or\s+(?:more|higher|above|greater|over|less|lower|below|under))?"
)
_PERCENT_LEVEL_ZH = re.compile(
    r"(?P<cmp>高于|低于|超过|大于|小于|不低于|不高于|在)?\s*" + _NUM + r"\s*[%％]"
    r"(?P<side>(?:及|或)?(?:以上|以下|之上|之下))?"
)


def _percent_level(text: str, trigger: re.Match[str]) -> CountAsk | None:
    """A count of a percent series' values against a level said in percent."""
    found = next((f for f in _PERCENT_LEVEL_EN.finditer(text) if f["cmp"] or f["post"]), None)
    if found is not None:
        cmp = re.sub(r"\s+", " ", (found["cmp"] or "").lower())
        post = (found["post"] or "").split()[-1].lower() if found["post"] else ""
        below = cmp in (
            "below",
            "under",
            "lower than",
            "at most",
            "less than",
            "at or below",
            "no more than",
        ) or post in ("less", "lower", "below", "under")
        inclusive = bool(post) or cmp in (
            "at least",
            "at most",
            "at or above",
            "at or below",
            "no less than",
            "no more than",
        )
    else:
        found = _PERCENT_LEVEL_ZH.search(text)
        if found is None or not (found["side"] or found["cmp"] not in (None, "在")):
            return None
        cmp, side = found["cmp"] or "", found["side"] or ""
        below = cmp in ("低于", "小于", "不高于") or side.endswith(("以下", "之下"))
        inclusive = cmp in ("不低于", "不高于") or (cmp in ("在", "") and bool(side))
    condition = "close_below" if below else "close_above"
    return CountAsk(condition, _num(found["num"]), inclusive, (trigger.span(), found.span()))


# A move either way: "close up or down by more than 3%", "涨跌幅超过".
_EITHER_WAY = re.compile(r"(?i)\bup\s+or\s+down\b|\bdown\s+or\s+up\b")


def read_count_ask(text: str, trigger: re.Match[str] | None = None) -> CountAsk | None:
    """The count of sessions `text` asks for, or None when it asks no count (`trigger`: the
    words asking the count, when the caller found them)."""
    trigger = trigger or _COUNT_EN.search(text) or _COUNT_ZH.search(text)
    records = _RECORDS_COUNTED.search(text)
    if trigger is None and records is not None:  # "how many record closes", 创了几次历史新高
        return _records(records, [])
    if trigger is None:
        both = _BOTH_EN.search(text) or _BOTH_ZH.search(text)
        # "Up days vs down days" names what is counted; "涨跌各" asks a count only when told to.
        counted = both is not None and re.search(
            r"(?i)\b(?:days|sessions)\b|天|交易日|日子", both[0]
        )
        if both is not None and (
            counted or re.search(r"(?i)\bcount|\bnumber\b|\btally|统计|数一数", text)
        ):
            return CountAsk("both", None, False, (both.span(),))
        return None
    spans: list[Span] = [trigger.span()]
    for pattern in _RETURN_EN:
        found = pattern.search(text)
        if found is None:
            continue
        groups = found.groupdict()
        value = _num(groups["num"])
        inclusive = "least" in (groups.get("cmp") or "").lower()
        direction = (groups.get("dir") or "").lower()
        spans.append(found.span())
        either = _EITHER_WAY.search(text[max(0, found.start() - 30) : found.end()])
        if groups.get("either") or "either" in found.group(0) or either:
            return CountAsk("move_beyond", value, inclusive, tuple(spans))
        if direction in ("", "move"):
            return CountAsk("move_beyond", value, inclusive, tuple(spans))
        if re.match(r"up|gain|r[io]s|jump|climb|advanc|rall|surg", direction):
            return CountAsk("gain_beyond", value, inclusive, tuple(spans))
        return CountAsk("fall_beyond", value, inclusive, tuple(spans))
    found_zh = _RETURN_ZH.search(text)
    if found_zh is not None and (found_zh.group("cmp") or found_zh.group("above")):
        value = _num(found_zh.group("num"))
        word = found_zh.group("dir")
        inclusive = found_zh.group("cmp") in ("不低于", "至少") or bool(found_zh.group("above"))
        spans.append(found_zh.span())
        if word in ("涨跌幅", "振幅", "波动"):
            return CountAsk("move_beyond", value, inclusive, tuple(spans))
        if "涨" in word:
            return CountAsk("gain_beyond", value, inclusive, tuple(spans))
        return CountAsk("fall_beyond", value, inclusive, tuple(spans))
    record = _RECORD.search(text)
    if record is not None:  # "how many days closed at a new all-time high", 几天创历史新高
        return _records(record, spans)
    average = _MA_EN.search(text) or _MA_ZH.search(text)
    if average is not None:
        said = (average.group("cmp") or "") + (average.groupdict().get("side") or "")
        below = bool(re.search(r"(?i)below|under|低于|跌破|下方|之下|以下", said))
        if said.strip() and said not in ("在", "收在", "位于"):
            spans.append(average.span())
            condition = "below_ma" if below else "above_ma"
            return CountAsk(condition, float(average.group("n")), False, tuple(spans))
    after = _LEVEL_AFTER_EN.search(text)
    if after is not None:
        below = after.group("dir").lower() in ("less", "lower", "below", "under", "worse")
        spans.append(after.span())
        condition = "close_below" if below else "close_above"
        return CountAsk(condition, _num(after.group("num")), True, tuple(spans))
    level = _LEVEL_EN.search(text)
    if level is not None:
        cmp = re.sub(r"\s+", " ", level.group("cmp").lower())
        below = cmp in ("below", "under", "lower than", "at or below", "at most", "less than")
        inclusive = cmp in ("at or above", "at or below", "at least", "at most")
        spans.append(level.span())
        condition = "close_below" if below else "close_above"
        return CountAsk(condition, _num(level.group("num")), inclusive, tuple(spans))
    # The first level said with a comparison: "在2020年" before it is a year, not a level.
    level_zh = next(
        (
            f
            for f in _LEVEL_ZH.finditer(text)
            if f.group("side") or f.group("cmp") not in (None, "在")
        ),
        None,
    )
    if level_zh is not None:
        cmp, side = level_zh.group("cmp") or "", level_zh.group("side") or ""
        below = cmp in ("低于", "低过", "小于", "跌破", "不高于") or side.endswith(
            ("以下", "之下", "下面", "下方")
        )
        # 以上/以下 include the number said (as in Chinese law and usage): "在150以上", "150以上".
        inclusive = cmp in ("不低于", "不高于") or (
            cmp in ("在", "") and side.endswith(("以上", "以下", "之上", "之下"))
        )
        inclusive = inclusive or side.startswith(("及", "或"))
        spans.append(level_zh.span())
        condition = "close_below" if below else "close_above"
        return CountAsk(condition, _num(level_zh.group("num")), inclusive, tuple(spans))
    both = _BOTH_EN.search(text) or _BOTH_ZH.search(text)
    if both is not None:  # "up days vs down days", 上涨和下跌的天数: both counted
        spans.append(both.span())
        return CountAsk("both", None, False, tuple(spans))
    updown = _UPDOWN_EN.search(text)
    if updown is not None:
        word = (updown.group("dir") or updown.group("verb") or "").lower()
        down = word in (
            "down",
            "negative",
            "red",
            "losing",
            "lower",
            "fell",
            "fall",
            "lost",
            "declined",
        )
        spans.append(updown.span())
        return CountAsk("down" if down else "up", None, False, tuple(spans))
    updown_zh = _UPDOWN_ZH.search(text)
    if updown_zh is not None:
        side = updown_zh.group("dir") or updown_zh.group("dir2")
        down = side in ("下跌", "收跌", "收阴", "收绿", "跌")
        spans.append(updown_zh.span())
        return CountAsk("down" if down else "up", None, False, tuple(spans))
    return CountAsk("sessions", None, False, tuple(spans))


# --- distance from a peak or trough ------------------------------------------------------------

_PEAK_EN = (
    r"(?P<what>(?:highest|lowest)(?:\s+(?:close|closing\s+(?:price|level)|level|point))?|highs?|"
    r"peaks?|tops?|lows?|troughs?|bottoms?|record\s+(?:close|closing\s+(?:high|level|price)|"
    r"level))"
)
_DISTANCE_EN = re.compile(
    r"(?i)\b(?:how\s+far|how\s+much|what\s+percent(?:age)?|distance|percent|%|pct)\b[^.?!]{0,60}?"
    r"\b(?:below|under|off|from|above|beneath|short\s+of|away\s+from|to)\s+(?:its|the|their|his|her)?\s*"
    r"(?P<span>(?:[\w'’-]+\s+){0,2}?)" + _PEAK_EN + r"\b"
    r"|\b(?:below|off|from|under)\s+(?:its|the|their)\s+(?P<span2>(?:52[-\s]?week|all[-\s]time|record)\s+)"
    + _PEAK_EN.replace("what", "what2")
    + r"\b"
    # "X vs its high that year, how far below?": the peak named first, the distance asked after.
    r"|\b(?:vs\.?|versus|against|compared\s+(?:to|with))\s+(?:its|the|their)\s+"
    r"(?P<span3>(?:[\w'’-]+\s+){0,2}?)"
    + _PEAK_EN.replace("what", "what3")
    + r"\b[^.?!]{0,40}?\bhow\s+(?:far|much)\s+(?:below|under|off|above|down)\b"
)
_DISTANCE_ZH = re.compile(
    r"(?:离|距离|距|较|比|低于|高于)(?P<scope>[^，。？,?]{0,10}?)"
    r"(?P<what>历史最高点?|历史高点|历史新高|最高点|最高价|高点|新高|峰值|顶部|高位|最高|"
    r"历史最低点?|历史低点|最低点|最低价|低点|新低|谷底|底部|最低)"
    r"(?P<tail>[^，。？,?]{0,8}?(?:还差|差|有|低|高|回落|下跌|相差|跌了|涨了|多少|多远|百分之))"
    # 今年从最低位反弹了多少: the last close above the window's low
    r"|(?:从|自|由)(?P<scope2>[^，。？,?]{0,8}?)(?P<what2>最低位|最低点|最低价|最低|低位|低点|谷底|底部)"
    r"(?P<tail2>[^，。？,?]{0,4}?(?:反弹|回升|回弹|涨|升)了?(?:多少|几))"
)


_PEAK_TO_TROUGH = re.compile(
    r"(?i)\b(?:highs?|peaks?|tops?)\b[^.?!]{0,30}?\bto\s+(?:the\s+|its\s+)?(?:lows?|troughs?|bottoms?)\b"
    r"|(?:高点|最高点?|顶部|峰值)[^，,。？?]{0,6}?到[^，,。？?]{0,4}?(?:低点|最低点?|谷底|底部)"
)


@dataclass(frozen=True)
class DistanceAsk:
    """How far from a peak (`high`) or trough (`low`); `all_time` when over all the data."""

    side: str
    all_time: bool
    spans: tuple[Span, ...]


def read_distance_ask(text: str) -> DistanceAsk | None:
    """The distance-from-peak request in `text`, or None."""
    if _PEAK_TO_TROUGH.search(text):
        return None  # "from its high to its low": a fall between two points, not from the last
    found = _DISTANCE_EN.search(text)
    if found is not None:
        what = (found.group("what") or found.group("what2") or found.group("what3") or "").lower()
        scope = (found.group("span") or found.group("span2") or found.group("span3") or "").lower()
        low = what.startswith(("low", "trough", "bottom"))
        all_time = bool(re.search(r"all[-\s]time|record|historical", scope)) or bool(
            re.search(r"(?i)\bever\b|all[-\s]time|\brecord\b", text)
        )
        return DistanceAsk("low" if low else "high", all_time, (found.span(),))
    found_zh = _DISTANCE_ZH.search(text)
    if found_zh is not None:
        what = found_zh.group("what") or found_zh.group("what2")
        scope = found_zh.group("scope") or found_zh.group("scope2") or ""
        low = "低" in what or "底" in what
        all_time = "历史" in what or "历史" in scope or "有史以来" in text
        return DistanceAsk("low" if low else "high", all_time, (found_zh.span(),))
    return None


# What a count's family span says of the words asking its first (last) session: the count
# dates them, so they are answered.
FIRST_COUNTED = "the first session counted"


# --- recovery from a fall -----------------------------------------------------------------------

# "When did the S&P 500 recover from the COVID crash", 哪天收复了疫情前的高点: the date a drawdown's
# peak close was first matched again, which a maximum drawdown states with its peak and trough.
RECOVERY = re.compile(
    r"(?i)\brecover(?:ed|y|s|ing)?\b|\bregain(?:ed|s)?\b|\breclaim(?:ed|s)?\b"
    r"|\b(?:get|got|gotten|came|come|climb(?:ed)?|clos(?:e|ed|es)|bounce[ds]?|made?\s+it)\s+back"
    r"\s+(?:at\s+or\s+)?(?:to|above|at|over)\b"
    r"(?=\s+it\b|[^.?!]{0,40}\b(?:peak|high|top|level|record|where\s+it\s+was)\b)"
    r"|(?:收复|重回|回到|恢复到|恢复至|回升至|重新站上|重新站回|站回|重新回到)(?=[^，,。？?]{0,14}(?:高点|前高|高位|最高|峰值|水平|失地|跌幅|损失))"
    r"|收复失地"
)


# 收复 said alone after the peak it regains ("从2007年10月的高点跌了多少，什么时候收复的").
# 回本 after a peak said (从2007年10月的高点跌下来，用了多久才回本) is the peak regained.
_REGAINED_ZH = re.compile(
    r"(?:高点|前高|高位|最高点|峰值|纪录|最高的?收盘价?|最高价)[^。？?！!]*?"
    r"(收复|重回|回到|站回|回本|收回|涨回|升回)"
)


def read_recovery_ask(text: str) -> Span | None:
    """The words asking when a fall was made good ("recover", 收复…高点), or None."""
    found = RECOVERY.search(text)
    if found is not None:
        return found.span()
    regained = _REGAINED_ZH.search(text)
    return regained.span(1) if regained is not None else None


# A peak named by the period it was set in: "its October 2007 peak", "the 2007 high", "record
# close of March 2000", 2007年10月的高点. Each pattern is matched against the words just after
# (`_PEAK_AFTER`) or just before (`_PEAK_BEFORE`) the period's own words.
_PEAK_AFTER = re.compile(
    r"(?i)^(?:'s)?\s*(?:closing\s+|record\s+|all[-\s]time\s+|market\s+)?"
    r"(?:peak|high|top|record)s?\b"
    r"(?!\s*(?:/|and|&|to|-)\s*(?:the\s+)?(?:trough|low(?!est)|bottom))"
    # 2020年最高收盘价, 2015年从年内最高收盘价, 2011年，从当年最高的收盘价: the year's highest close
    r"|^[，,]?\s*(?:从|自)?(?:年内|当年|全年|那年)?的?(?:收盘)?"
    r"(?:高点|最高点|最高位|高位|峰值|顶部|历史高点|纪录|最高的?收盘价?|最高价)"
    r"(?!(?:和|与|、|/)(?:低点|谷底|最低))"
)
_PEAK_BEFORE = re.compile(
    r"(?i)\b(?:peak|high|top|record)(?:\s+close|\s+closing\s+(?:level|price))?\s+"
    r"(?:of|in|from|set\s+in|reached\s+in)\s+$"
)


def peak_period_span(text: str, period: Span) -> Span | None:
    """The words naming a peak by the period `period` covers in `text`, with the period, or None."""
    start, end = period
    if re.search(r"(?i)\bpre-?\s*$|\bbefore\s+$|之前的?$|前的$", text[:start]):
        return None  # "its pre-2008 peak": a peak before the period, not in it
    after = _PEAK_AFTER.match(text[end:])
    if after is not None:
        return start, end + after.end()
    lead = max(0, start - 40)
    before = _PEAK_BEFORE.search(text[lead:start])
    if before is not None:
        return lead + before.start(), end
    return None


# The peak a recovery is measured against, named by the fall it came before ("its pre-crisis
# peak", "the pre-COVID high"): the named fall's own first day, which the recovery reads.
_BEFORE_FALL = re.compile(r"(?i)\bpre-?[a-z]+(?=\s+(?:peak|high|top|level)s?\b)")


def before_fall_words(text: str) -> Iterator[Span]:
    """The words naming a peak by the fall that followed it ("pre-crisis" of "its pre-crisis
    peak")."""
    for found in _BEFORE_FALL.finditer(text):
        yield found.span()


# The period a peak is sought over when the question's window is one day ("2021年底距离当年高点",
# "the end of 2021 vs its high that year"): the calendar period holding that day.
_PEAK_PERIOD = re.compile(
    r"(?i)(?P<year>当年|那年|该年|这一年|年内|\b(?:that|the)\s+year(?:'s)?\b|\bfor\s+the\s+year\b)"
    r"|(?P<quarter>当季|该季度?|那个季度|\b(?:that|the)\s+quarter(?:'s)?\b)"
    r"|(?P<month>当月|该月|那个月|月内|\b(?:that|the)\s+month(?:'s)?\b)"
)


def read_peak_period(text: str) -> tuple[str, Span] | None:
    """The calendar period ("year", "quarter", "month") a peak is taken over, when the question
    names one relative to its day ("当年最高点", "its high that year"), with its span."""
    found = _PEAK_PERIOD.search(text)
    if found is None:
        return None
    period = next(k for k in ("year", "quarter", "month") if found.group(k))
    return period, found.span()


# --- leverage ----------------------------------------------------------------------------------

_LEVERAGE = re.compile(
    r"(?i)(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:[x×]|times)\s*(?:daily[-\s]+)?(?:leverage[d]?|levered|long)\b"
    r"|\bleverage[d]?\s+(?:of\s+)?(?P<n2>\d+(?:\.\d+)?)\s*[x×]"
    r"|(?P<n3>\d+(?:\.\d+)?|[两二三四五])\s*倍(?:的)?(?:每日|每天|日内|日度|日)?杠杆"
)
_ZH_SMALL = {"两": 2.0, "二": 2.0, "三": 3.0, "四": 4.0, "五": 5.0}


# How the leverage is kept: "(rebalanced daily)", （每日调仓）, 每日再平衡 — the daily compounding
# the leverage already means, never a frequency of its own; said beside it or later on
# ("两倍日杠杆做多标普500（每日调仓，不计费用）").
_REBALANCED = re.compile(
    r"(?i)[(（,，]?\s*(?:(?:每日|每天|日度|daily)\s*)?(?:调仓|再平衡|重置|rebalanc\w*|reset\w*)"
    r"(?:\s*(?:每日|每天|daily|each\s+day|every\s+day))?\s*[)）]?"
)


def read_leverage(text: str) -> tuple[float, list[Span]] | None:
    """A daily leverage said in the question ("with 2x daily leverage", 两倍杠杆), or None;
    its spans: the leverage, and how it is kept ("(rebalanced daily)", （每日调仓）) where said."""
    found = _LEVERAGE.search(text)
    if found is None:
        return None
    said = found.group("n") or found.group("n2") or found.group("n3")
    value = _ZH_SMALL.get(said) or float(said)
    spans: list[Span] = [(found.start(), found.end())]
    kept = _REBALANCED.search(text, found.end())
    if kept is not None:
        if not text[found.end() : kept.start()].strip():
            spans = [(found.start(), kept.end())]
        else:
            spans.append((kept.start(), kept.end()))
    return value, spans
