"""The time-window grammar: dates, periods and horizons in English and Chinese.

Reading happens in two passes. First every *atom* is found — an explicit date ("Jan 23, 2018",
2019年1月23日), a period (2019, Q1 2015, 今年一季度, the 1990s, 上半年), a relative period (this
year, 去年, YTD), a rolling window (past 6 months, 近三年), a forecast horizon (next 8 quarters,
未来4个季度), a bare duration (半年) or "since its IPO"; the longest atom wins where several
overlap. Then atoms are combined by the words between and around them: "from A to B" / A到B,
"since A" / A以来, "until B", "A之后半年" / "six months after A". Independent windows are joined.

The rules are the time-window conventions in docs/asking.md ("Time windows"): relative windows
go back to the same calendar day (clamped to month end); 年初/年中/年底 are Jan 1 / Jun 30 / Dec 31;
no time words means the past year (applied by the caller, which also knows the entity's first date
for "since its IPO").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from datapilot.brains.offline.basis import basis_window
from datapilot.brains.offline.before_that import before_that
from datapilot.brains.offline.brackets import (
    length_restates,
    names_the_anchor,
    points_back,
    restates,
)
from datapilot.brains.offline.numbers import (
    DIGITS,
    ZH_NUMERAL,
    en_number_pattern,
    read_number,
    zh_number,
)
from datapilot.brains.offline.periods import (
    Duration,
    calendar_unit,
    half_window,
    month_end,
    month_window,
    period_holding,
    previous_quarter,
    quarter_of,
    quarter_window,
    week_start,
    year_window,
)
from datapilot.brains.offline.phrases import alternation, phrase_key, within
from datapilot.brains.offline.trading_days import first_session_from, first_sessions
from datapilot.brains.offline.vocab import (
    EpisodesFile,
    Marker,
    TimeFile,
    TimeWord,
    Unit,
    Vocab,
    load_vocab,
)
from datapilot.core.compiled_patterns import compile_all
from datapilot.core.spans import DisjointSpans

# A length said right before a return word is the window the return is over ("5 year
# annualized return", "10-yr CAGR", 5年年化收益率, 3个月涨幅), not a parameter such as "30-day".
_COMPOUNDED_RETURN_EN = (
    r"(?:annuali[sz]ed|compound(?:ed)?|cumulative|average\s+annual|annual)\s+"
    r"(?:total\s+)?(?:return|returns|growth|gain|gains)|cagr"
)
_RETURN_AFTER_ZH = re.compile(
    r"\s*的?\s*(?:年化|累计|复合)?(?:收益率|回报率?|涨幅|涨跌幅|收益|增长率)"
)
# A change said right after a length (苹果十年涨了几倍, 两年跌了多少): the past length's change.
_CHANGE_AFTER_ZH = re.compile(
    r"\s*(?:里|中|间|期间)?\s*(?:上涨|下跌|涨|跌|增长|翻|升值|贬值|累计涨|累计跌)了?"
)
AtomKind = Literal["period", "today", "rolling", "duration", "first", "horizon"]
Span = tuple[int, int]
# Where a return over the window starts from: "before" takes the last observation strictly
# before the start (a calendar period: 2021 is measured from the 2020 close), "on_or_before" the
# observation on or before it (a trailing length or a range between two days).
Base = Literal["before", "on_or_before"]


class Horizon(BaseModel):
    """How far ahead a forecast goes: `count` steps of `unit`."""

    count: int
    unit: Unit
    text: str = ""

    def label(self) -> str:
        return Duration(self.count, self.unit).label()


class Clause(BaseModel):
    """One time phrase of the question and the window it resolved to."""

    text: str
    span: Span
    start: date | None
    end: date | None
    rule: str = Field(description="How it was read, e.g. 'range', 'since', 'rolling'.")
    base: Base = Field(
        default="before",
        description="'on_or_before' when it starts on a day or is a trailing length.",
    )
    opens_on: Unit | None = Field(
        default=None,
        description="A range's first end when it is one calendar month, quarter or year "
        "('from Q4 2007'): a series observed once per such period starts at that observation.",
    )
    told: bool = Field(
        default=False,
        description="Its day is also told by what happened on it ('since the Fed hiked on "
        "December 16, 2015'): those words are the time phrase's, not names.",
    )


class TimeReading(BaseModel):
    """Everything the time grammar found in a question."""

    start: date | None = None
    end: date | None = None
    explicit: bool = Field(default=False, description="A time phrase set the window.")
    start_given: bool = Field(default=False, description="The start was said, not defaulted.")
    base: Base = Field(
        default="on_or_before",
        description=(
            "Where returns start from: 'before' for calendar periods (a year, quarter, month, "
            "YTD, since 2020), 'on_or_before' for trailing lengths (past 3 months, 近三年, "
            "the default past year) and ranges between two days."
        ),
    )
    from_first: bool = Field(default=False, description="Starts at the entity's first date.")
    horizon: Horizon | None = None
    future: tuple[date, date] | None = Field(
        default=None, description="A window after today (a forecast target), if one was named."
    )
    clauses: list[Clause] = Field(default_factory=list)
    text: str = Field(default="", description="The text read (to read it again for another day).")
    durations: list[Duration] = Field(
        default_factory=list, description="Unused lengths such as '30-day', for parameters."
    )
    spans: list[Span] = Field(default_factory=list, description="Text the grammar consumed.")
    unread: list[Span] = Field(
        default_factory=list,
        description="Lengths anchored on words it could not date ('the month after the election').",
    )
    nested: list[Span] = Field(
        default_factory=list,
        description="Windows asked beside a year they lie in ('the 2020 return, and March's').",
    )
    set_aside: list[Clause] = Field(
        default_factory=list,
        description="The windows of `nested`, which a reading may take up as parts of their own.",
    )
    notes: list[str] = Field(default_factory=list)

    model_config = {"arbitrary_types_allowed": True}

    @property
    def basis(self) -> bool:
        """Whether one period measured over another ("Q4 2008 over Q4 2007") sets the window."""
        return any(clause.rule == "basis" for clause in self.clauses)


@dataclass
class Atom:
    kind: AtomKind
    span: Span
    rule: str
    first: date | None = None
    last: date | None = None
    # For a date written without its year ("March", "Q1", 年初): the window of a given year.
    dated: Callable[[int], tuple[date, date]] | None = None
    duration: Duration | None = None
    # A year part without its year ("to the end of the year", 到年底): the year the question
    # named before it, where it named one.
    year_said_before: bool = False
    # A month's end without its month ("at month end", 月底那天): the month said before it
    month_said_before: bool = False
    used: bool = field(default=False)
    # A length anchored on words the grammar did not read ("two weeks after the 2008 election"):
    # left to the ledger to declare, never read as a window of its own.
    unread: bool = field(default=False)

    @property
    def is_date(self) -> bool:
        return self.kind in ("period", "today")


# --- the grammar ---------------------------------------------------------------------------------

YEAR = r"(?<![0-9A-Za-z])(?:1[89]|20)\d{2}(?![0-9])"
MONTH_ZH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
ZH_1_9 = "[一二三四五六七八九]"
DAY_ZH = rf"(?:3[01]|[12][0-9]|0?[1-9]|三十一?|二十{ZH_1_9}?|十{ZH_1_9}?|{ZH_1_9})"
NUM_ZH = rf"(?:{DIGITS}(?:\.\d+)?|{ZH_NUMERAL})"
QUARTER_WORDS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3}
QUARTER_WORDS |= {"fourth": 4, "4th": 4, "final": 4, "last": 4}
# A two-digit year before 年 ("19年", "20年初"), not a length (10年期, 20年代, 5年以来).
YY_ZH = r"(?<![0-9.])(?P<yy>\d{2})\s*年(?!代|期|以|之|内|来|前|后|左右|多|里|间)"
# "the sixties": a decade in words, by its tens.
_DECADE_WORDS = {
    word: tens
    for tens, word in enumerate(
        [
            "twenties",
            "thirties",
            "forties",
            "fifties",
            "sixties",
            "seventies",
            "eighties",
            "nineties",
        ],
        2,
    )
}
# "the early/mid/late 1990s", 90年代初/中期/末.
_DECADE_PART_ZH = {"初": "early", "初期": "early", "前期": "early", "中": "mid", "中期": "mid"}
_DECADE_PART_ZH |= {"末": "late", "末期": "late", "后期": "late"}
HALF_WORDS = {"first": 1, "1st": 1, "front": 1, "second": 2, "2nd": 2, "latter": 2, "back": 2}
ZH_QUARTER = {"一": 1, "二": 2, "三": 3, "四": 4}
# Words after a number that make it a count, not a day of the month.
_COUNTERS_ZH = "个|只|支|家|天|日|号|年|月|周|次|倍|期|亿|万|元|点|%|名|位"

Handler = Callable[[re.Match[str], date], Atom | None]


_YEAR_RULES = {"year", "year_yy_zh", "year_yy_en", "decade_en", "decade_zh"}
# Words that ask a second window beside the first: "the 2020 return, and March's".
_SECOND_ASK = re.compile(
    r"(?i)\b(?:and|vs\.?|versus|compared|against|as\s+well\s+as|also|plus|then)\b|[?？]|"
    r"和|与|及|以及|相比|对比|还有|分别|同时|多少\s*[,，;；]"
)
# A part asked after its year's own question: 2020年收益率是多少，3月份呢？
_ASKED_AGAIN = re.compile(r"\s*的?(?:呢|又|怎么样|如何)")


def _year_around_its_parts(
    text: str, said: list[Clause], years: list[bool]
) -> tuple[Clause, bool] | None:
    """A calendar year said alone whose every other window lies inside it ("WMT 2021, H2", "in
    2021: from the end of June to year-end"): (the year's clause, True) when it only dates its
    parts; (the first part's clause, False) when the parts are asked beside the year ("the 2020
    return, and March's"), to be left unread; None when no window nests in a year."""
    for index, (clause, is_year) in enumerate(zip(said, years, strict=True)):
        if not is_year or clause.start is None or clause.end is None:
            continue
        others = [c for i, c in enumerate(said) if i != index]
        inside = [
            c
            for c in others
            if c.rule in ("period", "range")  # calendar parts, never a trailing length
            and c.start is not None
            and c.end is not None
            and c.end > c.start
            and clause.start <= c.start
            and c.end <= clause.end
            and (c.start, c.end) != (clause.start, clause.end)
        ]
        if not inside or len(inside) != len(others):
            continue
        part = min(inside, key=lambda c: c.span[0])
        lo, hi = sorted((clause.span[1], part.span[0]))
        if _SECOND_ASK.search(text[lo:hi]) or _ASKED_AGAIN.match(text[part.span[1] :]):
            return part, False
        return clause, True
    return None


class Grammar:
    """The compiled time grammar for one vocabulary."""

    def __init__(self, words: TimeFile, episodes: EpisodesFile | None = None) -> None:
        self.words = words
        # An episode's names, for its edges ("the COVID crash bottom", "the start of COVID").
        known = episodes.episodes.values() if episodes else ()
        self.episode_of = {phrase_key(name): e for e in known for name in e.all}
        self.month_of = {n.lower(): m for m, names in words.months.items() for n in names}
        self.unit_of = {w.lower(): u for u, p in words.units.items() for w in p.all}
        self.numbers = words.numbers
        self.year_offset = _year_offsets(words)
        self.named = {phrase_key(name): window for name, window in words.periods.items()}
        rules = self._rules()
        markers = [(name, alternation(phrases.all)) for name, phrases in words.markers.items()]
        # Compiled together, through the cache of compiled patterns (`compiled`).
        sources = [pattern for _, pattern, _ in rules] + [pattern for _, pattern in markers]
        compiled = compile_all([(pattern, re.IGNORECASE) for pattern in sources])
        self.rules = [(n, c, h) for (n, _, h), c in zip(rules, compiled, strict=False)]
        self.markers = {n: c for (n, _), c in zip(markers, compiled[len(rules) :], strict=True)}

    # Each rule: a name, a regex and a handler turning its match into an atom.
    def _rules(self) -> list[tuple[str, str, Handler]]:
        w = self.words
        mon = alternation(self.month_of)
        yrel_en = alternation(k for k in self.year_offset if k.isascii())
        yrel_zh = alternation(k for k in self.year_offset if not k.isascii())
        num_en = en_number_pattern(self.numbers)
        units_en = [u for p in w.units.values() for u in p.en]
        unit_en = alternation(units_en)
        unit_en_long = alternation([*(u for u in units_en if len(u) > 2), *_FORTNIGHT])
        unit_zh = alternation(u for p in w.units.values() for u in p.zh)
        past_en, past_zh = alternation(w.markers["past"].en), alternation(w.markers["past"].zh)
        next_en, next_zh = alternation(w.markers["next"].en), alternation(w.markers["next"].zh)
        y_zh = rf"(?:(?P<y>{YEAR})\s*年(?:度)?|{YY_ZH}|(?P<yrel>{yrel_zh}))"
        anchor_en = alternation(
            p
            for m in ("duration_after", "duration_before", "duration_through", "around")
            for p in w.markers[m].en
        )
        y_en = rf"(?:(?P<y>{YEAR})|'(?P<yy>\d{{2}})|(?P<yrel>{yrel_en}))"
        # A month's year written after it: "Oct 2008", "Oct '08"
        y_after_month = rf"(?:(?P<y>{YEAR})|'(?P<yy>\d{{2}})(?![0-9]))"
        rules: list[tuple[str, str, Handler]] = [
            ("first", alternation(w.words["first_available"]), self._first),
            ("named", alternation(w.periods), self._named),
            (
                "day_iso",
                rf"(?P<y>{YEAR})\s*[-/.]\s*(?P<m>\d{{1,2}})\s*[-/.]\s*(?P<d>\d{{1,2}})(?![0-9])",
                self._day,
            ),
            ("day_zh", rf"{y_zh}?\s*(?P<m>{MONTH_ZH})\s*月\s*(?P<d>{DAY_ZH})\s*[日号]", self._day),
            # 日/号 left out ("2023年5月10", "到5月20"): a day after a written year or a range word,
            # when no counter word follows ("5月10家" is no date).
            (
                "day_zh_bare",
                rf"(?:(?P<y>{YEAR})\s*年|{YY_ZH}|(?<=[到至~～\-—–])\s*)(?P<m>{MONTH_ZH})\s*月"
                # "3月一共" is no 3月1日: a numeral that starts a word (一共, 一直, 一样)
                rf"\s*(?P<d>{DAY_ZH})(?![0-9]|\s*(?:{_COUNTERS_ZH})|(?<=[一二三四五六七八九十])"
                rf"[共直起样下些般定路度切再同边齐季])",
                self._day,
            ),
            (
                "day_mdy",
                rf"(?<![A-Za-z])(?P<mon>{mon})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s*,?\s*(?P<y>{YEAR}))?(?![0-9])",
                self._day,
            ),
            (
                "day_dmy",
                rf"(?<![0-9A-Za-z])(?P<d>\d{{1,2}})(?P<sfx>st|nd|rd|th)?\s+(?P<of>of\s+)?(?P<mon>{mon})\.?(?:\s*,?\s*(?P<y>{YEAR}))?(?![A-Za-z])",
                self._day_dmy,
            ),
            (
                "day_us",
                rf"(?<![0-9/])(?P<m>\d{{1,2}})/(?P<d>\d{{1,2}})/(?:(?P<y>{YEAR})|(?P<yy>\d{{2}}))"
                r"(?![0-9/])",
                self._day_us,
            ),
            (
                "month_range_zh",
                rf"{y_zh}?\s*(?P<m>{MONTH_ZH})\s*(?:月份?)?\s*(?:到|至|-|~|～)\s*(?P<m2>{MONTH_ZH})\s*月份?(?![0-9日号])",
                self._month_range,
            ),
            # "the end of June 2021", "the start of March": a day of the month
            (
                "month_part_en",
                rf"(?<![A-Za-z])(?:the\s+)?(?P<mpart>start|beginning|middle|end)\s+of\s+"
                rf"(?P<mon>{mon})\.?(?:\s*,?\s*{y_after_month})?"
                r"(?![A-Za-z])",
                self._month,
            ),
            # "Oct 2008", "Oct '08"
            (
                "month_en",
                rf"(?<![A-Za-z])(?P<mon>{mon})\.?\s*,?\s*{y_after_month}",
                self._month,
            ),
            ("year_month_en", rf"(?P<y>{YEAR})\s+(?P<mon>{mon})(?![A-Za-z])", self._month),
            (
                "month_rel_en",
                rf"(?<![A-Za-z])(?P<mon>{mon})\.?\s+(?:of\s+)?(?P<yrel>{yrel_en})",
                self._month,
            ),
            ("month_iso", rf"(?P<y>{YEAR})\s*[-/.]\s*(?P<m>\d{{1,2}})(?![0-9])", self._month),
            (
                "month_zh",
                rf"{y_zh}?\s*(?:的)?\s*(?<![0-9])(?P<m>{MONTH_ZH})\s*月份?(?P<part>上旬|中旬|下旬|初|中|底|末)?(?![0-9日号])",
                self._month,
            ),
            (
                "month_before_range_en",
                rf"(?<![A-Za-z])(?P<core>(?P<mon>{mon}))\.?"
                rf"(?=\s*(?:-|–|—|to|through|thru|until|till)\s*(?:{mon})(?![A-Za-z]))",
                self._month,
            ),
            (
                "first_months_zh",
                rf"{y_zh}?\s*(?:的)?\s*(?<![之以])前\s*(?P<n>{NUM_ZH})\s*个\s*月",
                self._first_months,
            ),
            (
                "first_months_en",
                rf"(?<![A-Za-z])(?:the\s+)?first\s+(?P<n>{num_en})\s+(?P<u>months?|quarters?)\s+"
                rf"(?:of|in)\s+(?:{y_en}|(?P<theyear>the\s+year))",
                self._first_months,
            ),
            (
                # the last day of the month (quarter) before this one: 上个月底, 上季度末, "the
                # end of last month", "last quarter-end"
                "period_end_rel",
                r"(?P<zh_unit>上个?月|上一个月|上个?季度?|上一季度?)\s*(?:的)?\s*(?:月底|月末|季末|季度末|底|末)"
                r"|(?i:(?<![A-Za-z])(?:the\s+)?end\s+of\s+(?:the\s+)?(?:last|previous|prior)\s+"
                r"(?P<en_unit>month|quarter)(?![A-Za-z])"
                r"|(?<![A-Za-z])(?:last|previous|prior)\s+(?P<en_unit2>month|quarter)[-\s]?end(?![A-Za-z]))",
                self._previous_period_end,
            ),
            (
                # the end of the month said before: "in June 2022 … at month end", 上个月…月底
                "month_end_bare",
                # (a day: "at month end", 月底那天, 到月底; never "month-end closes", 月末收盘价,
                # which say how the data are sampled)
                r"(?<![\d一二三四五六七八九十上下本这个当该同每])(?:(?<=[到在])(?:月底|月末)"
                r"|(?:月底|月末)(?=那天|当天|那一天|那日|时))"
                r"|(?i:(?<![A-Za-z-])(?:at|on|by)\s+(?:the\s+)?(?:month[-\s]end|end\s+of\s+the\s+month)"
                r"(?![A-Za-z-]))",
                self._month_end_bare,
            ),
            (
                "month_rel_word_en",
                rf"(?<![A-Za-z])(?P<rel>last|this|next)\s+(?P<mon>{mon})\.?(?![A-Za-z])",
                self._month_relative,
            ),
            (
                "month_bare_en",
                rf"(?<![A-Za-z])(?:in|since|from|to|until|till|through|thru|between|and|of|during|before|after|by)\s+(?P<core>(?P<mon>{mon}))\.?(?![A-Za-z])",
                self._month,
            ),
            (
                # A month listed before another ("March and April 2020", "Jan, Feb or Mar"): a
                # month whatever comes before it; its year is the one the list says.
                "month_listed_en",
                rf"(?<![A-Za-z])(?P<core>(?P<mon>{mon}))\.?(?=\s*(?:,|&|and|or|vs\.?|versus)\s*"
                rf"(?:{mon})(?![A-Za-z]))",
                self._month,
            ),
            (
                "quarter_q",
                rf"(?<![A-Za-z0-9])Q(?P<q>[1-4])(?:\s*(?:of\s+|in\s+)?{y_en})?(?![A-Za-z0-9])",
                self._quarter,
            ),
            ("quarter_yq", rf"(?P<y>{YEAR})\s*-?\s*Q(?P<q>[1-4])(?![0-9])", self._quarter),
            (
                "quarter_nq",
                rf"(?<![0-9A-Za-z])(?P<q>[1-4])Q\s*(?:(?P<y>{YEAR})|(?P<yy>\d{{2}}))(?![0-9])",
                self._quarter,
            ),
            (
                "quarter_words",
                rf"(?<![A-Za-z])(?:the\s+)?(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th|final|last)\s+(?:fiscal\s+|calendar\s+)?quarter(?:\s+(?:of|in)\s+(?:{y_en}|(?P<theyear>the\s+year)))?",
                self._quarter,
            ),
            (
                "quarter_rel",
                rf"(?P<yrel>{yrel_en})'s\s+(?:(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th|final|last)\s+quarter|Q(?P<q>[1-4]))",
                self._quarter,
            ),
            (
                "quarter_zh",
                # 第四季 (Taiwan, Hong Kong) is a quarter too; 四季 alone is four quarters
                rf"{y_zh}?\s*(?:的)?\s*(?P<ord>第\s*)?(?P<q>[一二三四1-4])\s*季(?:度|(?(ord)|(?!)))",
                self._quarter,
            ),
            ("quarter_zh_q", rf"{y_zh}\s*(?:的)?\s*Q(?P<q>[1-4])", self._quarter),
            (
                "quarters_first_zh",
                rf"{y_zh}?\s*(?:的)?\s*前\s*(?P<n>[二两三2-3])\s*个?\s*季度",
                self._first_quarters,
            ),
            (
                "half_h",
                rf"(?<![A-Za-z0-9])H(?P<h>[12])(?:\s*(?:of\s+)?{y_en})?(?![A-Za-z0-9])",
                self._half,
            ),
            ("half_yh", rf"(?P<y>{YEAR})\s*-?\s*H(?P<h>[12])(?![0-9])", self._half),
            # "1H22", "2H 2021": the half before its year, as sell-side notes write it
            (
                "half_nh",
                rf"(?<![A-Za-z0-9])(?P<h>[12])H\s*(?:(?P<y>{YEAR})|'?(?P<yy>\d{{2}}))(?![A-Za-z0-9])",
                self._half,
            ),
            (
                "half_words",
                rf"(?<![A-Za-z])(?:the\s+)?(?P<hw>first|second|1st|2nd|latter|back|front)\s+half(?:\s+of)?(?:\s+(?:{y_en}|(?P<theyear>the\s+year)))?",
                self._half,
            ),
            ("half_zh", rf"{y_zh}?\s*(?:的)?\s*(?P<h>[上下])\s*半年(?:度)?", self._half),
            (
                "yearpart_en",
                rf"(?<![A-Za-z])(?:the\s+)?(?P<part>start|beginning|end|middle|close)\s+of\s+(?:the\s+)?(?:{y_en}|(?P<theyear>year))",
                self._year_part,
            ),
            (
                "yearpart_en2",
                # "held to year end 2020", "year-end 2021": the year's end, not a frequency
                rf"(?<![A-Za-z])(?:year[-\s]?(?=end))?(?P<part>early|mid|late|end|start)[-\s]+"
                rf"(?P<y>{YEAR})(?!'?s\b)",
                self._year_part,
            ),
            # "to year-end" with no year: the end of the year said before
            (
                "yearpart_en4",
                r"(?<![A-Za-z])(?:the\s+)?year(?:'s)?[-\s]?(?P<part>end)(?![A-Za-z])"
                rf"(?P<theyear>)(?!\s*,?\s*(?:{YEAR}))",
                self._year_part,
            ),
            (
                "yearpart_en3",
                rf"(?<![A-Za-z0-9])(?P<y>{YEAR})\s+year[-\s]?(?P<part>end)\b",
                self._year_part,
            ),
            (
                "yearpart_zh",
                rf"{y_zh}?\s*(?:的)?\s*(?P<part>年初|年中(?![国期秋])|年底|年末|年终|年头|年尾)",
                self._year_part,
            ),
            (
                "yearpart_zh2",
                rf"(?P<y>{YEAR})\s*年\s*(?P<part>初|中(?![国期秋])|底|末)",
                self._year_part,
            ),
            (
                # 09年底, 20年初: a two-digit year's part
                "yearpart_zh3",
                r"(?<![0-9.])(?P<yy>\d{2})\s*年\s*(?P<part>初|中(?![国期秋])|底|末)",
                self._year_part,
            ),
            (
                # "1990–91", 1973-74年, "2007-09": two years, the second said by its last digits
                "year_range_yy",
                rf"(?P<y>{YEAR})\s*[-–—~至到]\s*(?P<yy2>\d{{2}})(?![\d%./:-])(?:\s*年(?:度)?)?"
                r"(?!\s*(?:年代|月|日|号|季|点|%|个|天|周))",
                self._year_range_yy,
            ),
            (
                "decade_en",
                # "the first half of the 2010s": five of its years
                r"(?<![0-9A-Za-z])(?i:(?:the\s+)?(?P<half>first|second|1st|2nd|latter)\s+half\s+"
                r"of\s+)?(?:the\s+)?(?:(?P<part>early|mid|late)[-\s]+)?"
                r"(?:(?P<c>1[89]|20)(?P<d>\d)0|'?(?P<d2>\d)0)'?s(?![A-Za-z])"
                # "the sixties", "the late nineties": a decade in words, after "the"
                r"|(?i:(?<![A-Za-z])the\s+(?:(?P<wpart>early|mid|late)[-\s]+)?"
                rf"(?P<dw>{'|'.join(_DECADE_WORDS)})(?![A-Za-z]))",
                self._decade,
            ),
            (
                "decade_zh",
                r"(?P<cent>上世纪|上个世纪|二十世纪|20世纪|本世纪|21世纪)?\s*(?:(?P<c>1[89]|20)(?P<d>\d)0|(?P<d2>\d)0|(?P<dz>[一二三四五六七八九])十)\s*年代"
                r"(?:的)?(?:(?P<zhalf>前半段|前半期|前半叶|上半叶|前五年|后半段|后半期|后半叶|下半叶|后五年)"
                r"|(?P<zpart>初期|前期|中期|后期|末期|初|中|末))?",
                self._decade,
            ),
            (
                "year",
                rf"(?:(?<![A-Za-z])(?:FY|CY)\s*'?(?:(?P<fy>(?:1[89]|20)\d{{2}})|(?P<yy>\d{{2}})(?![0-9]))"
                rf"|(?P<y>{YEAR}))(?:\s*年(?:度|全年)?(?!代)|(?!\s*(?:points|pts|点|元|美元|dollars|%|万|亿|个|只|家|年代)))",
                self._year,
            ),
            ("year_yy_zh", YY_ZH + r"(?:全年)?", self._year),  # 19年: 2019
            ("year_yy_en", r"(?<![0-9A-Za-z'])'(?P<yy>\d{2})(?![0-9A-Za-z'])", self._year),  # '08
            (
                "years_yy",  # "in 08-09", "during '08-'09", 08-09年: two years written short
                r"(?<![0-9A-Za-z'/.:-])'?(?P<a>\d{2})\s*[-–~]\s*'?(?P<b>\d{2})(?P<nian>\s*年)?"
                r"(?![0-9A-Za-z/.:%-])",
                self._short_years,
            ),
        ]
        for word, phrases in w.words.items():
            if word != "first_available":
                rules.append((f"word_{word}", alternation(phrases), self._word(word)))
        rules += [
            (
                "rolling_en",
                rf"(?<![A-Za-z])(?P<mk>{past_en})\s+(?P<n>{num_en})\s*-?\s*(?P<u>{unit_en})(?![A-Za-z])",
                self._rolling,
            ),
            (
                "rolling_en1",
                rf"(?<![A-Za-z])(?:the\s+(?P<mk>{past_en})|(?P<mk2>past|trailing))\s+(?P<u>{unit_en_long})(?![A-Za-z])",
                self._rolling,
            ),
            (
                "rolling_adj_en",
                rf"(?<![0-9A-Za-z])(?P<n>{num_en})[-\s](?P<u>year|yr|month|mth|week|wk)s?(?=\s+(?:return|returns|performance|chart|trend|history|change|high|low|window|period|view|graph|plot|gain|total\s+return|{_COMPOUNDED_RETURN_EN}))",
                self._rolling,
            ),
            (
                # Terse lengths: "2y chart", "AAPL 6m", "5d returns", "52w high"; in lower case
                # only, since "3M" is a company.
                "rolling_compact_en",
                r"(?<![0-9A-Za-z$])(?P<n>\d{1,2})\s?(?P<u>(?-i:y|yr|yrs|m|mo|mos|w|wk|wks|d))"
                r"(?![A-Za-z0-9])(?=\s+(?:return|returns|performance|chart|trend|history|change|"
                r"view|graph|plot|gain|price|prices|high|highs|low|lows|range|"
                rf"{_COMPOUNDED_RETURN_EN})(?![A-Za-z])"
                r"|\s*[?.!]?\s*$)",
                self._rolling,
            ),
            (
                # ... and after the word that makes them a trailing length ("trailing 12m, apple
                # vs msft"), whatever follows
                "rolling_compact_marked_en",
                r"(?<![A-Za-z])(?:past|trailing|last)\s+(?P<n>\d{1,2})\s?"
                r"(?P<u>(?-i:y|yr|yrs|m|mo|mos|w|wk|wks|d))(?![A-Za-z0-9])",
                self._rolling,
            ),
            (
                "ago_en",
                rf"(?<![0-9A-Za-z])(?P<n>{num_en})\s*(?P<u>{unit_en_long})\s+ago(?![A-Za-z])",
                self._ago,
            ),
            (
                # 三年前, 半年前, 两个月以前: that many units before today, as a day
                "ago_zh",
                rf"(?<![前近过最])(?P<n>{NUM_ZH})?\s*(?P<half>半)?\s*个?\s*(?P<u>{unit_zh})(?P<half2>半)?"
                r"\s*以?前(?![的后几]?[天日周月年季])",
                self._ago,
            ),
            (
                "rolling_zh",
                # (最近这四个礼拜, 过去这两年: "these" said between the marker and the length)
                rf"(?P<mk>{past_zh})\s*(?:的)?\s*(?:这)?\s*(?P<n>{NUM_ZH})?\s*(?P<half>半)?\s*个?\s*(?P<u>{unit_zh})(?P<half2>半)?(?:来|以来|内|中|里|间)?",
                self._rolling,
            ),
            (
                "horizon_en",
                rf"(?<![A-Za-z])(?:the\s+)?(?P<mk>{next_en})\s+(?:(?P<n>{num_en})\s*-?\s*)?(?P<u>{unit_en})(?![A-Za-z])",
                self._horizon,
            ),
            (
                "horizon_ahead_en",
                rf"(?<![0-9A-Za-z])(?P<n>{num_en})\s*-?\s*(?P<u>{unit_en})[-\s]+(?:ahead|forward|out|into\s+the\s+future|from\s+now|from\s+today|later)(?![A-Za-z])",
                self._horizon,
            ),
            (
                "horizon_zh",
                rf"(?P<mk>{next_zh})\s*(?:的)?\s*(?P<n>{NUM_ZH})?\s*(?P<half>半)?\s*个?\s*(?P<u>{unit_zh})(?P<half2>半)?",
                self._horizon,
            ),
            ("horizon_zh_xia", rf"下\s*(?P<n>{NUM_ZH})\s*个\s*(?P<u>{unit_zh})", self._horizon),
            (
                "duration_en",
                # ("four calendar years", "5 full years": a length all the same; what they
                # count, "how many did", is the ledger's to honour)
                rf"(?<![0-9A-Za-z])(?P<n>{num_en})(?:-|\s*)(?:(?:calendar|full|whole)\s+){{0,2}}"
                rf"(?P<u>{unit_en_long})(?![A-Za-z])",
                self._duration,
            ),
            (
                # "the month after 2020-03-23", "a fortnight before": one unit, anchored on a day
                "duration_one_en",
                rf"(?<![A-Za-z])(?:the|a|one)\s+(?P<u>{unit_en_long})(?=\s+(?:{anchor_en}))"
                r"(?!\s+(?:before\s+yesterday|after\s+tomorrow))",
                self._duration_one,
            ),
            (
                "duration_days_en",  # "30d vol", "14d RSI"
                r"(?<![0-9A-Za-z$])(?P<n>\d{1,3})(?P<u>(?-i:d))(?![A-Za-z0-9])",
                self._duration,
            ),
            (
                "duration_half_en",
                r"(?<![A-Za-z])(?:a\s+|one\s+)?half[-\s](?:a\s+)?year(?![A-Za-z])",
                self._half_year,
            ),
            (
                "duration_zh",
                rf"(?P<n>{NUM_ZH})?\s*(?P<half>半)?\s*个?\s*(?P<u>{unit_zh})(?P<half2>半)?",
                self._duration,
            ),
        ]
        return rules

    # --- handlers ------------------------------------------------------------------------------

    def _short_years(self, match: re.Match[str], today: date) -> Atom | None:
        """Two two-digit years joined by a dash, said as years: after "in", "during", "over",
        "from", "between", "across" or before 年; the second a year or few after the first."""
        before = match.string[: match.start()]
        said = match.group("nian") or re.search(
            r"(?i)\b(?:in|during|over|across|from|between|for|through)\s*$", before
        )
        if not said:
            return None
        first = self._year_of_yy(match.group("a"), today)
        last = self._year_of_yy(match.group("b"), today)
        if not 0 < last - first <= 10:
            return None
        return Atom("period", match.span(), "", date(first, 1, 1), date(last, 12, 31))

    @staticmethod
    def _year_of_yy(yy: str, today: date) -> int:
        return 2000 + int(yy) if int(yy) <= today.year % 100 + 10 else 1900 + int(yy)

    def _year_of(self, match: re.Match[str], today: date) -> int | None:
        groups = match.groupdict()
        if groups.get("y"):
            return int(groups["y"])
        if groups.get("yy"):
            return self._year_of_yy(groups["yy"], today)
        if groups.get("yrel"):
            return today.year + self.year_offset[phrase_key(groups["yrel"])]
        if groups.get("theyear"):
            return today.year
        return None

    def _period(
        self, match: re.Match[str], today: date, window: Callable[[int], tuple[date, date]]
    ) -> Atom | None:
        year = self._year_of(match, today)
        span = match.span("core") if match.groupdict().get("core") else match.span()
        # "the second half of the year", "H2" after "in 2021": the year said before, if any
        before = bool(match.groupdict().get("theyear")) or year is None
        try:
            if year is not None:
                first, last = window(year)
                return Atom("period", span, "", first, last, year_said_before=before)
            window(2000)  # validate the month/day before deferring the year
        except ValueError:
            return None
        return Atom("period", span, "", dated=window, year_said_before=before)

    def _month_number(self, match: re.Match[str]) -> int | None:
        if match.groupdict().get("mon"):
            return self.month_of.get(match.group("mon").lower().rstrip("."))
        value = read_number(match.group("m"), {})
        return int(value) if value else None

    def _day(self, match: re.Match[str], today: date) -> Atom | None:
        month, day = self._month_number(match), read_number(match.group("d"), {})
        if not month or not day:
            return None
        return self._period(match, today, lambda y: (date(y, month, int(day)),) * 2)

    def _day_dmy(self, match: re.Match[str], today: date) -> Atom | None:
        if not (match.group("y") or match.group("sfx") or match.group("of")):
            return None
        return self._day(match, today)

    def _day_us(self, match: re.Match[str], today: date) -> Atom | None:
        first, second = int(match.group("m")), int(match.group("d"))
        if match.group("y"):
            year = int(match.group("y"))
        else:  # "10/13/08": the latest such year up to today; "20/30/50" weighs a basket
            short = int(match.group("yy"))
            if first + second + short == 100:
                return None
            year = 2000 + short if 2000 + short <= today.year else 1900 + short
        month, day = (second, first) if first > 12 else (first, second)
        try:
            return Atom("period", match.span(), "", date(year, month, day), date(year, month, day))
        except ValueError:
            return None

    def _month(self, match: re.Match[str], today: date) -> Atom | None:
        month = self._month_number(match)
        if not month or not 1 <= month <= 12:
            return None
        said_year = match.groupdict().get("y") or match.groupdict().get("yy")
        if match.groupdict().get("mon") == "may" and not said_year:
            return None  # the verb "may", not the month
        part = match.groupdict().get("part") or _MONTH_PARTS.get(
            (match.groupdict().get("mpart") or "").lower()
        )
        if part:
            return self._period(match, today, lambda y: _month_part(y, month, part))
        return self._period(match, today, lambda y: month_window(y, month))

    def _first_months(self, match: re.Match[str], today: date) -> Atom | None:
        """今年前两个月 / "the first two months (three quarters) of 2021"; 前两个月 alone: the
        past two months."""
        count = read_number(match.group("n"), self.numbers)
        per = 3 if (match.groupdict().get("u") or "").lower().startswith("quarter") else 1
        if not count or not 1 <= count * per <= 12:
            return None
        months = int(count * per)
        if self._year_of(match, today) is None:
            length = Duration(months, "month")
            return Atom("rolling", match.span(), "", length.back(today), today, duration=length)
        return self._period(match, today, lambda y: (date(y, 1, 1), month_end(y, months)))

    def _month_relative(self, match: re.Match[str], today: date) -> Atom | None:
        """A month after last/this/next: "last March" is the latest March before this month."""
        month = self._month_number(match)
        if not month:
            return None
        rel = match.group("rel").lower()
        year = today.year
        if rel == "last" and month >= today.month:
            year -= 1
        elif rel == "next" and month <= today.month:
            year += 1
        first, last = month_window(year, month)
        return Atom("period", match.span(), "", first, last)

    def _month_range(self, match: re.Match[str], today: date) -> Atom | None:
        first, last = (int(read_number(match.group(g), {}) or 0) for g in ("m", "m2"))
        if not (1 <= first <= last <= 12):
            return None
        return self._period(match, today, lambda y: (date(y, first, 1), month_end(y, last)))

    def _quarter(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if groups.get("q"):
            quarter = ZH_QUARTER.get(groups["q"]) or int(groups["q"])
        else:
            word = groups["qw"].lower()
            has_year = any(groups.get(k) for k in ("y", "yy", "yrel", "theyear"))
            if word in ("last", "final") and not has_year:
                return None  # "last quarter": the previous quarter, read by its own rule
            quarter = QUARTER_WORDS[word]
        return self._period(match, today, lambda y: quarter_window(y, quarter))

    def _first_quarters(self, match: re.Match[str], today: date) -> Atom | None:
        count = int(read_number(match.group("n"), {}) or 0)
        return self._period(match, today, lambda y: (date(y, 1, 1), quarter_window(y, count)[1]))

    def _half(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if groups.get("h"):
            half = {"上": 1, "下": 2}.get(groups["h"]) or int(groups["h"])
        else:
            half = HALF_WORDS[groups["hw"].lower()]
        return self._period(match, today, lambda y: half_window(y, half))

    def _year_part(self, match: re.Match[str], today: date) -> Atom | None:
        part = match.group("part").lower()
        if part == "close" and _EXTREME_BEFORE.search(match.string[: match.start()]):
            return None  # "its lowest close of 2002": a close within the year, not its last day
        atom = self._year_part_window(match, today, part)
        groups = match.groupdict()
        if atom is not None and (
            groups.get("theyear") or not any(groups.get(k) for k in ("y", "yy", "yrel"))
        ):
            atom.year_said_before = True  # "the end of the year", 年底: the year named earlier
        return atom

    def _year_part_window(self, match: re.Match[str], today: date, part: str) -> Atom | None:
        if part in ("early",):
            window: Callable[[int], tuple[date, date]] = lambda y: (date(y, 1, 1), date(y, 4, 30))  # noqa: E731
        elif part in ("late",):
            window = lambda y: (date(y, 9, 1), date(y, 12, 31))  # noqa: E731
        elif part in ("start", "beginning", "年初", "年头", "初"):
            window = lambda y: (date(y, 1, 1),) * 2  # noqa: E731
        elif part in ("middle", "mid", "年中", "中"):
            window = lambda y: (date(y, 6, 30),) * 2  # noqa: E731
        else:
            window = lambda y: (date(y, 12, 31),) * 2  # noqa: E731
        return self._period(match, today, window)

    def _year_range_yy(self, match: re.Match[str], today: date) -> Atom | None:
        first = int(match.group("y"))
        last = first // 100 * 100 + int(match.group("yy2"))
        if last < first:
            last += 100  # "1999-00": the next century's
        if last - first > 20:
            return None  # "2015-16" is a range; "2015-98" is no such thing
        return Atom("period", match.span(), "", date(first, 1, 1), date(last, 12, 31))

    def _month_end_bare(self, match: re.Match[str], today: date) -> Atom | None:
        last = month_window(today.year, today.month)[1]  # this month's, unless one was said
        return Atom("period", match.span(), "", last, last, month_said_before=True)

    def _previous_period_end(self, match: re.Match[str], today: date) -> Atom | None:
        said = match.group("zh_unit") or match.group("en_unit") or match.group("en_unit2") or ""
        quarter = "季" in said or said.lower() == "quarter"
        _, last = (
            quarter_window(*previous_quarter(today))
            if quarter
            else month_window(*_previous_month(today))
        )
        return Atom("period", match.span(), "", last, last)

    def _decade(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if groups.get("c"):
            start = int(groups["c"]) * 100 + int(groups["d"]) * 10
        else:
            if groups.get("dw"):
                tens = _DECADE_WORDS[groups["dw"].lower()]
            else:
                tens = int(groups["d2"]) if groups.get("d2") else zh_number(groups["dz"]) or 0
            if groups.get("cent"):
                century = 2000 if groups["cent"] in ("本世纪", "21世纪") else 1900
            else:
                century = 2000 if 2000 + tens * 10 <= today.year else 1900
            start = century + tens * 10
        first, last = start, start + 9
        part = (
            groups.get("part")
            or groups.get("wpart")
            or _DECADE_PART_ZH.get(groups.get("zpart") or "")
        )
        if part:
            first, last = {"early": (start, start + 3), "mid": (start + 4, start + 6)}.get(
                part.lower(), (start + 7, start + 9)
            )
        half = groups.get("half") or groups.get("zhalf")
        if half:  # a decade's first (second) five years
            second = half.lower() in ("second", "2nd", "latter") or half[0] in "后下"
            first, last = (start + 5, start + 9) if second else (start, start + 4)
        return Atom("period", match.span(), "", date(first, 1, 1), date(last, 12, 31))

    def _year(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        year = int(groups.get("y") or groups.get("fy") or self._year_of(match, today) or 0)
        first, last = year_window(year)
        return Atom("period", match.span(), "", first, last)

    def _word(self, word: str) -> Handler:
        def handle(match: re.Match[str], today: date) -> Atom | None:
            return _relative_word(word, match.span(), today)

        return handle

    def _named(self, match: re.Match[str], today: date) -> Atom | None:
        first, last = self.named[phrase_key(match.group(0))]
        return Atom("period", match.span(), "", first, last)

    def _first(self, match: re.Match[str], today: date) -> Atom | None:
        # "since the beginning of last quarter": the beginning of a period named next, which
        # the "since" before it reads, not the beginning of the data.
        if re.match(r"(?i)(?:beginning|start)$", match.group(0).split()[-1]) and re.match(
            r"(?i)\s+of\b(?!\s+(?:the\s+)?(?:data|history|records?)\b)", match.string[match.end() :]
        ):
            return None
        return Atom("first", match.span(), "")

    def _length(self, match: re.Match[str]) -> Duration | None:
        """The length named by groups `n` (count), `half`/`half2` (半) and `u` (unit)."""
        groups = match.groupdict()
        if phrase_key(groups["u"]) in _FORTNIGHT:  # two weeks
            count = read_number(groups["n"], self.numbers) if groups.get("n") else 1.0
            return Duration(2 * count, "week") if count else None
        unit = self.unit_of.get(phrase_key(groups["u"]))
        if unit is None:
            return None
        if groups.get("n"):
            count = read_number(groups["n"], self.numbers)
            if count is None:
                return None
            count += 0.5 if groups.get("half2") else 0.0
        else:
            count = 0.5 if groups.get("half") or groups.get("half2") else 1.0
        return Duration(count, unit) if count > 0 else None

    def _rolling(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if not groups["u"].isascii() and not (groups.get("n") or groups.get("half")):
            return None  # 近年来, 近日 and the like carry no length
        length = self._length(match)
        if length is None:
            return None
        return Atom("rolling", match.span(), "", length.back(today), today, duration=length)

    def _ago(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if not (groups.get("n") or groups.get("half") or groups.get("half2")):
            return None  # 年前 alone: before the New Year, no length
        length = self._length(match)
        if length is None:
            return None
        day = length.back(today)
        return Atom("period", match.span(), "", day, day)

    def _horizon(self, match: re.Match[str], today: date) -> Atom | None:
        length = self._length(match)
        if length is None:
            return None
        return Atom("horizon", match.span(), "", duration=length)

    def _duration(self, match: re.Match[str], today: date) -> Atom | None:
        groups = match.groupdict()
        if not groups.get("n") and not groups.get("half") and not groups.get("half2"):
            return None
        length = self._length(match)
        if length is None:
            return None
        return Atom("duration", match.span(), "", duration=length)

    def _duration_one(self, match: re.Match[str], today: date) -> Atom | None:
        length = self._length(match)
        return Atom("duration", match.span(), "", duration=length) if length else None

    def _half_year(self, match: re.Match[str], today: date) -> Atom | None:
        return Atom("duration", match.span(), "", duration=Duration(6, "month"))

    # --- reading -------------------------------------------------------------------------------

    def atoms(self, text: str, today: date) -> list[Atom]:
        """Every atom, the longest winning where several overlap, left to right."""
        candidates: list[tuple[int, int, Atom]] = []
        for order, (name, regex, handler) in enumerate(self.rules):
            for match in regex.finditer(text):
                if not match.group(0).strip():
                    continue
                atom = handler(match, today)
                if atom is None:
                    continue
                atom.rule = name
                atom.span = _strip(text, atom.span)
                candidates.append((order, atom.span[1] - atom.span[0], atom))
        candidates.sort(key=lambda c: (-c[1], c[0], c[2].span[0]))
        chosen: list[Atom] = []
        taken = DisjointSpans()
        for _, _, atom in candidates:
            if taken.free(*atom.span):
                taken.add(*atom.span)
                chosen.append(atom)
        atoms = _day_edges(text, _day_of_period(text, sorted(chosen, key=lambda a: a.span[0])))
        atoms = first_sessions(text, atoms)
        atoms = before_that(text, _that_same_period(text, atoms))
        return [
            a
            for a in self._episode_edges(text, atoms)
            if not self._names_a_thing(text, a) and not _a_days_move(text, a)
        ]

    def _names_a_thing(self, text: str, atom: Atom) -> bool:
        """A year that only dates a thing after an anchor word ("two weeks after the 2008
        election", "since the 2016 Olympics") is no window: the thing was not read."""
        if atom.rule != "year":
            return False
        opener = rf"(?:{'|'.join(self.markers[m].pattern for m in _ANCHORS)})\s+the\s+$"
        # a few words back is enough, and keeps long texts linear
        if not re.search(opener, text[max(0, atom.span[0] - 60) : atom.span[0]], re.IGNORECASE):
            return False
        noun = re.match(r"\s+([A-Za-z][\w-]*)", text[atom.span[1] :])
        return noun is not None and noun.group(1).lower() not in _NOT_A_THING

    def _episode_edges(self, text: str, atoms: list[Atom]) -> list[Atom]:
        """An episode's edge said beside its name ("the COVID crash bottom", "the start of the
        financial crisis", 疫情暴跌的低点) is that one day; an edge the episode has no day of
        record for ("the COVID bottom") leaves the name unread rather than read as a window."""
        out: list[Atom] = []
        held: list[tuple[int, int]] = []
        for atom in atoms:
            episode = self.episode_of.get(phrase_key(text[atom.span[0] : atom.span[1]]))
            if atom.rule != "named" or episode is None:
                out.append(atom)
                continue
            lo = max(0, atom.span[0] - 30)
            holding = _holding_period(text, atom.span, episode.start)
            if holding is not None:  # "the year Trump was elected", 熔断的那个月: that period
                span, first, last = holding
                # A calendar period, measured from the close before it as any is.
                out.append(replace(atom, span=span, first=first, last=last, rule="holding"))
                held.append(span)
                continue
            before = _EDGE_BEFORE.search(text[lo : atom.span[0]])
            after = _EDGE_AFTER.match(text[atom.span[1] :])
            found = after or before
            if found is None:
                out.append(atom)
                continue
            edge = _EDGES[found.group("edge").lower()]
            day = {"start": episode.start, "end": episode.end}.get(edge) or getattr(episode, edge)
            if day is None:
                continue
            if after:
                span = (atom.span[0], atom.span[1] + after.end())
            else:
                assert before is not None
                span = (lo + before.start(), atom.span[1])
            out.append(replace(atom, span=span, first=day, last=day))
        # 那一年 of 特朗普当选总统的那一年 is the holding period's word, not a length of its own.
        inside = [a for a in out if a.rule != "holding" and within(a.span, held)]
        return [a for a in out if a not in inside]

    def read(self, text: str, today: date) -> TimeReading:
        """Resolve every time phrase of `text` against `today`."""
        atoms = self.atoms(text, today)
        self._infer_years(text, atoms, today)
        reading = TimeReading(text=text)
        for atom in atoms:
            if _the_askers_occasion(text, atom):
                # "for this week's episode", 明天交作业: when the asker needs it, no window
                atom.used = True
                reading.notes.append(
                    f'"{text[atom.span[0] : atom.span[1]]}" dates the asker\'s occasion, no window'
                )
        windows: list[tuple[date | None, date | None]] = []
        bases: list[Base] = []
        named: list[bool] = []
        rules: list[str] = []
        lengths: list[Duration | None] = []  # a trailing length's own, beside `windows`
        said: list[Clause] = []  # the clauses of `windows`
        years: list[bool] = []  # which of `windows` is a calendar year said alone
        for index, atom in enumerate(atoms):
            if atom.used:
                continue
            clause = self._combine(text, atoms, index, today)
            if clause is None:
                continue
            pinned = _pins(text, said[-1], clause) if said else None
            if pinned is not None:
                # "since its IPO day close (May 18 2012)": the day in brackets pins the start
                # said before it; no window of its own.
                reading.clauses[reading.clauses.index(said[-1])] = said[-1] = pinned
                windows[-1], bases[-1], rules[-1] = (pinned.start, pinned.end), pinned.base, "since"
                reading.from_first = any(c.rule == "first" for c in reading.clauses)
                continue
            if said and points_back(text, said[-1], clause):
                continue  # "2020年11月這個月": that month, not this one
            if said and length_restates(text, said[-1], clause):
                continue  # "2015年到2019年这五年": the years said, their length restated
            if said and names_the_anchor(text, said[-1], clause):
                continue  # "the week after the Lehman bankruptcy (Sept 15 2008)"
            if clause.rule == "first":
                reading.from_first = True
            if clause.rule == "horizon":
                if reading.horizon is None and atom.duration is not None:
                    reading.horizon = _horizon(atom.duration, clause.text)
                reading.clauses.append(clause)
                continue
            if clause.start is not None and clause.start > today:
                reading.future = (clause.start, clause.end or clause.start)
                reading.clauses.append(clause)
                continue
            if clause.start is None and clause.end is not None and clause.end > today:
                reading.future = (today + timedelta(days=1), clause.end)  # "through 2011"
                reading.clauses.append(clause)
                continue
            if said and restates(text, said[-1], clause):
                # "in the early 80s (1980-1984)": the dates in brackets say what the words
                # before them mean, so they are the window
                reading.clauses.remove(said.pop())
                del windows[-1], bases[-1], rules[-1], named[-1], lengths[-1], years[-1]
                reading.notes.append(
                    "dates in brackets restate the period before them: they decide"
                )
            reading.clauses.append(clause)
            said.append(clause)
            windows.append((clause.start, clause.end))
            bases.append(clause.base)
            rules.append(clause.rule)
            named.append(atom.rule == "named" and clause.rule != "range")
            lengths.append(atom.duration if clause.rule == "rolling" else None)
            years.append(clause.rule == "period" and atom.rule in _YEAR_RULES)
        nested = _year_around_its_parts(text, said, years)
        if nested is not None:
            # "Walmart in 2021 - only the second half of the year": the part is the window, the
            # year only dates it. "The 2020 return, and in March?": two windows asked, one
            # inside the other; the part is left unread rather than swallowed by the year.
            clause, dates_its_parts = nested
            index = said.index(clause)
            for kept in (windows, bases, rules, named, lengths, said):
                del kept[index]
            reading.clauses.remove(clause)
            if dates_its_parts:
                reading.notes.append(
                    "a part of a year said beside the year: the part is the window"
                )
            if not dates_its_parts:
                reading.set_aside.append(clause)
            for atom in atoms if not dates_its_parts else ():
                if clause.span[0] <= atom.span[0] and atom.span[1] <= clause.span[1]:
                    reading.nested.append(atom.span)
        if _length_after_the_day(text, atoms, windows, today):
            bases[:] = ["on_or_before"] * len(bases)  # from the day's own close
            reading.notes.append("a length after one past day: the window runs that long from it")
            if reading.horizon is not None and any(c.rule == "horizon" for c in reading.clauses):
                reading.horizon = None
                reading.clauses = [c for c in reading.clauses if c.rule != "horizon"]
        if _length_to_the_day(windows, rules, lengths, today):
            reading.notes.append("a trailing length beside one day: the length ends on that day")
            _keep_where([r != "day" for r in rules], windows, bases, named, rules)
        if reading.future and windows and reading.future[0].year == today.year:
            # "bought at the end of 2018, worth at the end of 2022?" asked on 2022-12-28: a
            # point later this year beside a past start reads as "until now", not a forecast.
            windows.append((None, today))
            bases.append("before")
            rules.append("until")
            named.append(False)
            reading.notes.append(
                f"a date later this year beside a past one: until today, {today.isoformat()}"
            )
            reading.future = None
        dated = [r for r, is_named in zip(rules, named, strict=True) if not is_named]
        if any(named) and not all(named) and any(r != "until" for r in dated):
            # (an end alone beside an episode, "新冠疫情以来…（到2021年底）", bounds the episode's
            # window instead: "since COVID, to the end of 2021")
            # Dates written out are more precise than a named episode: "the great recession,
            # from 2007 through 2008" means 2007–2008.
            _keep_where([not is_named for is_named in named], bases, windows, rules)
            reading.notes.append("dates given with a named episode: the dates decide")
        if "basis" in rules and len(rules) > 1:
            # The two points a change is measured between decide over any other period said.
            _keep_where([r == "basis" for r in rules], windows, bases, rules)
            reading.notes.append("an explicit basis (one period over another) decides the window")
        reading.spans = [a.span for a in atoms if not a.unread and a.span not in reading.nested]
        reading.unread = [a.span for a in atoms if a.unread]
        reading.durations = [
            a.duration
            for a in atoms
            if a.kind == "duration" and not a.used and not a.unread and a.duration
        ]
        if {"since", "until", "rolling"} <= set(rules):
            # "都说苹果十年涨了十倍，从2010年底…到2020年底": a start and an end said outright
            # decide over a length said beside them (the claim's "ten years")
            _keep_where([r != "rolling" for r in rules], windows, bases, rules)
            reading.notes.append("a start and an end said: they decide over a length")
        if _range_inside_the_period(windows, rules):
            # "over the 1981-82 recession, measured from 1981Q3 to 1982Q4": the range inside
            # the period said first says which part of it
            _keep_where([r == "range" for r in rules], windows, bases, rules)
            reading.notes.append("a range inside the period said before it: the range decides")
        ranged = {w[0] for w, r in zip(windows, rules, strict=True) if r == "range"}
        if any(r == "since" and w[0] in ranged for w, r in zip(windows, rules, strict=True)):
            # "'… every single year since 2015.' Go year by year, 2015–2021": the range from
            # the same start says where it ends
            keep = [
                not (r == "since" and w[0] in ranged) for w, r in zip(windows, rules, strict=True)
            ]
            _keep_where(keep, windows, bases, rules)
            reading.notes.append("a range from the start said: its end decides")
        if _length_of_the_periods(windows, rules):
            # "'up 50% in 2 years' — meaning calendar 2019 plus 2020": the periods said span the
            # length said beside them, and decide
            _keep_where([r != "rolling" for r in rules], windows, bases, rules)
            reading.notes.append("periods said beside a length they span: they decide")
        based = _bases_of_a_period(windows, rules, today)
        if based:
            # "Over calendar 2015 through 2021 (from the 2014 year-end close)": the "from" only
            # says where the period is measured from, which its own base is.
            _keep_where([i not in based for i in range(len(windows))], windows, bases, rules)
            reading.notes.append("a start said just before the period: the period's own base")
        _start_on_the_first_session(windows, bases)
        starts = [s for s, _ in windows if s is not None]
        ends = [e for _, e in windows if e is not None]
        ends = _anchored_ends(windows, rules, today) or ends
        if windows or reading.from_first:
            reading.explicit = True
            reading.end = max(ends) if ends else today
            reading.start = min(starts) if starts else None
            reading.start_given = reading.start is not None
            if reading.start_given:
                # The window that starts first decides where returns are measured from.
                reading.base = next(
                    b for (s, _), b in zip(windows, bases, strict=True) if s == reading.start
                )
                start = reading.start
                if start is not None and reading.end > start and (start, start) in windows:
                    # A day that starts a longer window ("at the close on 2009-03-09 … by the
                    # end of 2013", 2020年12月31日的收盘价比…) is measured from its own close.
                    reading.base = "on_or_before"
            elif reading.from_first:
                reading.base = "on_or_before"
            if len(windows) > 1:
                reading.notes.append("several time phrases: the window spans all of them")
            if reading.end > today:
                reading.notes.append(
                    f"the window ends after today; data can only reach {today.isoformat()}"
                )
            if reading.start is None and not reading.from_first:
                reading.start = _one_year_before(reading.end)
                reading.notes.append("no start given: one year before the end")
        return reading

    def _infer_years(self, text: str, atoms: list[Atom], today: date) -> None:
        """Give a year to dates written without one: from a range partner, else the latest past."""
        for index, atom in enumerate(atoms):
            years = [a.first.year for a in atoms[:index] if _one_year(a) and not a.dated]  # type: ignore[union-attr]
            if atom.dated is None and atom.year_said_before and years and atom.first and atom.last:
                # "the end of the year" after 2020: 2020's end, not this year's (first, so a
                # range partner without a year takes it: "from March to the end of the year")
                year = years[-1]
                atom.first, atom.last = atom.first.replace(year=year), atom.last.replace(year=year)
        for index, atom in enumerate(atoms):
            years = [a.first.year for a in atoms[:index] if _one_year(a)]  # type: ignore[union-attr]
            if atom.dated is None:
                continue
            window = None
            for other in (index + 1, index - 1):
                partner = atoms[other] if 0 <= other < len(atoms) else None
                if partner is None or partner.kind != "period" or partner.dated is not None:
                    continue
                left, right = sorted((index, other))
                if not self._is_range(text[atoms[left].span[1] : atoms[right].span[0]]):
                    continue
                anchor = partner.first if other > index else partner.last
                assert anchor is not None
                window = atom.dated(anchor.year)
                if other > index and window[0] > anchor:
                    window = atom.dated(anchor.year - 1)  # "from November to February 2020"
                break
            if window is None:
                window = _year_of_list(text, atoms, index)
            if window is None:
                # "从2019年7月4日到…（7月4日休市的话…）": the same day said again, without its year
                window = next(
                    (
                        (a.first, a.last)
                        for a in atoms[:index]
                        if a.dated is None
                        and a.first
                        and a.last
                        and atom.dated(a.first.year) == (a.first, a.last)
                    ),
                    None,
                )
            if window is None and atom.year_said_before and years:
                window = atom.dated(years[-1])
            if window is None:
                window = atom.dated(today.year)
                if window[0] > today:
                    window = atom.dated(today.year - 1)
            atom.first, atom.last, atom.dated = window[0], window[1], None
        for index, atom in enumerate(atoms):
            if atom.month_said_before:
                _end_of_the_month_said(atoms, index)

    def _is_range(self, gap: str) -> bool:
        gap = re.sub(r"(?i)\s+the$", "", gap.strip().strip(",").strip())
        return bool(gap) and bool(self.markers["range"].fullmatch(gap))

    def _ends_with(self, marker: Marker, before: str) -> re.Match[str] | None:
        pattern = self.markers[marker].pattern
        # "to the last close of 2011", "since its close on 2000-08-28": the day's words between
        # the marker and the period
        return re.search(
            rf"(?:{pattern})\s*(?:the\s+)?(?:(?:start|beginning|first\s+day)\s+of\s+(?:the\s+)?)?"
            # "to its last close of 2018"
            r"(?:(?:its|their|his|her)\s+(?=(?:last|final|very\s+last)\s))?"
            r"(?:(?:last|final|very\s+last)\s+)?"
            r"(?:(?:its|their|the|his|her)\s+(?:close|closing\s+(?:price|level)|level)\s+"
            r"(?:(?:on|of)\s+)?"
            r"|(?<=last\s|inal\s)(?:close|closing\s+(?:price|level))\s+(?:on|of)\s+)?$",
            before,
            re.IGNORECASE,
        )

    def _since_its_day(self, before: str, after: str) -> re.Match[str] | None:
        """A start said around its day rather than just before it: "since its March 9, 2009
        close" (`_ends_with` reads "since its close on March 9, 2009"), "since the referendum
        on June 23, 2016" (what happened that day named between)."""
        pattern = self.markers["since"].pattern
        if _CLOSE_AFTER_THE_DAY.match(after):
            return re.search(rf"(?:{pattern})\s*(?:its|their|the)\s+$", before, re.IGNORECASE)
        return re.search(
            rf"(?:{pattern})\s*(?:(?:the|its|their|a)\s+)?(?:[A-Za-z'’-]+\s+){{1,4}}on\s+$",
            before,
            re.IGNORECASE,
        )

    def _starts_with(self, marker: Marker, after: str) -> re.Match[str] | None:
        pattern = self.markers[marker].pattern
        return re.match(rf"\s*(?:{pattern})", after, re.IGNORECASE)

    def _combine(self, text: str, atoms: list[Atom], index: int, today: date) -> Clause | None:
        atom = atoms[index]
        atom.used = True
        lo = atoms[index - 1].span[1] if index > 0 else 0
        nxt = atoms[index + 1] if index + 1 < len(atoms) else None
        hi = nxt.span[0] if nxt else len(text)
        before, after = text[lo : atom.span[0]], text[atom.span[1] : hi]
        start_at, end_at = atom.span

        def clause(
            start: date | None,
            end: date | None,
            rule: str,
            from_day: bool = False,
            opens_on: Unit | None = None,
        ) -> Clause:
            first = start_at
            prep = self._ends_with("prepositions", text[lo:first])
            if prep and rule not in ("since", "until", "range", "before"):
                first = lo + prep.start()
            # A trailing length, or a window that starts on a day the user named, is measured
            # from that day's observation; a calendar period from the close before it, and so
            # is a length beside one ("the 12 months to June 2021" from 2020-06-30's close).
            trailing = rule in ("rolling", "until", "before", "first")
            return Clause(
                text=text[first:end_at].strip(),
                span=(first, end_at),
                start=start,
                end=end,
                rule=rule,
                base="on_or_before" if trailing or from_day else "before",
                opens_on=opens_on,
            )

        if atom.kind == "horizon":
            return clause(None, None, "horizon")
        if atom.kind == "first":
            return clause(None, today, "first")
        if atom.kind == "duration":
            # "the six months after January 2019" / "three months before 2020"
            if nxt is not None and nxt.kind == "period" and nxt.first and atom.duration:
                gap = text[atom.span[1] : nxt.span[0]]
                side = self._side(gap, "duration_after")
                if side:
                    nxt.used = True
                    end_at = nxt.span[1]
                    start, end = _anchored(nxt, atom.duration, side)
                    return clause(start, end, "duration", from_day=_is_anchor_day(nxt))
            anchor_end = self._anchor_ahead(text[atom.span[1] :]) if atom.duration else None
            dated = nxt is not None and nxt.kind == "period" and nxt.first is not None
            if anchor_end is not None and dated and atom.duration and nxt is not None:
                # "the week after the Lehman bankruptcy (Sept 15 2008)": the words are named
                # by the day written beside them, which anchors the length.
                between = text[atom.span[1] + anchor_end : nxt.span[0]]
                side = self._anchor_side(text[atom.span[1] :])
                if side and re.fullmatch(r"(?i)\s*[(（,，]\s*(?:on\s+|in\s+)?", between):
                    nxt.used = True
                    end_at = nxt.span[1]
                    start, end = _anchored(nxt, atom.duration, side)
                    return clause(start, end, "duration", from_day=_is_anchor_day(nxt))
            if anchor_end is not None:
                # "the month after the election": its anchor is no date the grammar read
                atom.used, atom.unread = False, True
                atom.span = (atom.span[0], atom.span[1] + anchor_end)
                return None
            undated_zh = _UNDATED_ANCHOR_ZH.search(before)
            if atom.duration and undated_zh and not _WILL.search(text):
                # 大选之后两周: a length after words no date was read for (a date's own length,
                # 2008年9月15日之后两周, was joined to its date before this atom was reached)
                atom.used, atom.unread = False, True
                atom.span = (lo + undated_zh.start(), atom.span[1])
                return None
            ahead = re.search(r"(?i)\bin\s+$", before) or re.match(r"\s*(?:以后|之后|后)", after)
            if atom.duration and ahead and _WILL.search(text):
                # "What will the S&P 500 be in 6 months?", 标普500半年后会是多少: that far ahead,
                # not the past 6 months
                return clause(None, None, "horizon")
            if atom.duration and (
                re.search(r"(?i)(?:over|during|within|for|in)\s+(?:the\s+)?$", before)
                or re.match(r"\s*(?:来|以来|之内|内)", after)
                or _RETURN_AFTER_ZH.match(after)  # 5年年化收益率: the past five years' return
                or (atom.duration.unit != "day" and _CHANGE_AFTER_ZH.match(after))
            ):
                return clause(atom.duration.back(today), today, "rolling")
            atom.used = False  # a length such as "30-day": left for parameters
            return None
        if atom.kind == "rolling":
            return clause(atom.first, atom.last, "rolling")
        # A date or period (or today).
        first = today if atom.kind == "today" else atom.first
        last = today if atom.kind == "today" else atom.last
        basis = None
        if nxt is not None and atom.kind == nxt.kind == "period" and first and last and nxt.first:
            periods = ((first, last), (nxt.first, nxt.last or nxt.first))
            basis = basis_window(text, atom.span, nxt.span, periods)
        if basis is not None and nxt is not None:
            # "Q4 2008 over Q4 2007", 2008年四季度对2007年四季度: the two points compared
            nxt.used = True
            (start, end), (start_at, end_at) = basis
            return clause(start, end, "basis")
        if (
            nxt is not None
            and nxt.is_date
            and (self._is_range(after) or (nxt.kind == "today" and not after.strip()))
            and not (
                _two_periods(before, after, text[nxt.span[1] :])
                and (not _adjoin(atom, nxt) or bool(_EACH.search(text)))
            )
        ):
            nxt.used = True
            end_at = nxt.span[1]
            other_first = today if nxt.kind == "today" else nxt.first
            other_last = today if nxt.kind == "today" else nxt.last
            opener = self._ends_with("since", before) or re.search(r"(?i)between\s*$", before)
            if opener:
                start_at = lo + opener.start()
            # Either order: "from 2022 to 2010" spans the same years as "from 2010 to 2022".
            bounds = [day for day in (first, last, other_first, other_last) if day is not None]
            starter = min((atom, nxt), key=lambda a: a.first or today)
            return clause(
                min(bounds),
                max(bounds),
                "range",
                from_day=_is_day(starter),
                opens_on=calendar_unit(starter.first, starter.last),
            )
        if (
            nxt is not None
            and nxt.kind == "duration"
            and nxt.duration
            and first
            and atom.kind != "today"  # "the current 10-year yield": a tenor, not a length
        ):
            # Side by side ("2019年1月半年") a length extends the period, unless it is an
            # indicator's setting ("今年30日滚动波动率").
            trailing = text[nxt.span[1] :]
            setting = self._starts_with("parameter", trailing)
            side = self._side(after, "after_duration") or _then(after)
            either = _EITHER_SIDE.match(trailing)
            # "2020-03-23, two weeks either side"
            if either and re.fullmatch(r"[\s,，(（]*", after):
                side = "around"
                nxt.span = (nxt.span[0], nxt.span[1] + either.end())
            elif side is None and not after.strip() and not setting:
                side = "after"
            if side:
                nxt.used = True
                end_at = nxt.span[1]
                start, end = _anchored(atom, nxt.duration, side)
                return clause(start, end, "duration", from_day=_is_anchor_day(atom))
        if atom.kind == "today":
            until = self._ends_with("until", before)
            if until:
                start_at = lo + until.start()
                return clause(None, today, "until")
            return None  # "now" alone is no window
        since = self._ends_with("since", before)
        told = None if since else self._since_its_day(before, after)
        since = since or told
        suffix = self._starts_with("since_after", after)
        if since and not suffix and "range" in atom.rule:
            # "从2021年3月到6月": "from" opens a range that names its own end.
            start_at = lo + since.start()
            return clause(first, last, "range")
        if since or suffix:
            if since:
                start_at = lo + since.start()
            if suffix:
                end_at = atom.span[1] + suffix.end()
            if since and since.group(0).lower().startswith("after"):
                anchor = last or first
                assert anchor is not None  # a period's dates are set (or inferred) by now
                return clause(anchor + timedelta(days=1), today, "since", from_day=_is_day(atom))
            # "since COVID" is measured from the episode's first day's close, as "since D" is.
            # Its calendar period kept: "从2007年10月的高点" names that month's high.
            return clause(
                first,
                today,
                "since",
                from_day=_is_anchor_day(atom),
                opens_on=calendar_unit(first, last),
            ).model_copy(update={"told": told is not None})
        before_marker = self._ends_with("before", before)
        if before_marker:
            start_at = lo + before_marker.start()
            assert first is not None  # a period's dates are set (or inferred) by now
            return clause(None, first - timedelta(days=1), "before")
        until = self._ends_with("until", before)
        by_measure = until is not None and until.group(0).strip().lower() == "by"
        by_measure = by_measure and bool(
            atom.rule.startswith("word_") or _MEASURE_AFTER.match(after)
        )
        # "compared to 2021", "relative to 2019": the other side of a comparison, no "until".
        compared = until is not None and bool(_COMPARED_TO.search(before[: until.start()]))
        if until and not by_measure and not compared:
            # ("sort by YTD return", "rank by 2021 return": "by" before a period named as the
            # measure's window is no "until")
            start_at = lo + until.start()
            return clause(None, last, "until")
        # "during the COVID crash": from its first day's close (the peak) to its last.
        return clause(first, last, "period", from_day=atom.rule == "named")

    def _side(self, gap: str, after: Marker) -> Side | None:
        """Which side of its anchor a length lies, by the words between them."""
        gap = re.sub(r"(?i)\s+the$", "", gap.strip())
        if self._fullmatch(after, gap):
            return "after"
        if self._fullmatch("duration_before", gap):
            return "before"
        if self._fullmatch("duration_through", gap):
            return "through"
        if self._fullmatch("around", gap):
            return "around"
        return None

    def _anchor_side(self, after: str) -> Side | None:
        """The side an anchor word opening `after` puts a length on (after, before, around)."""
        return next(
            (side for marker, side in _ANCHOR_SIDES if self._starts_with(marker, after)), None
        )

    def _anchor_ahead(self, after: str) -> int | None:
        """Where the anchor ends when `after` opens with after/before/around and words, as a
        length's anchor would: up to a clause's end, at most five words."""
        for marker, _ in _ANCHOR_SIDES:
            found = self._starts_with(marker, after)
            if found and re.match(r"\s+(?:the\s+)?[^\W\d_]|\s+the\s+\d", after[found.end() :]):
                words = _ANCHOR_WORDS.match(after[found.end() :])
                return found.end() + (words.end() if words else 0)
        return None

    def _fullmatch(self, marker: Marker, gap: str) -> bool:
        gap = gap.strip()
        return bool(gap) and bool(self.markers[marker].fullmatch(gap))


Side = Literal["after", "before", "through", "around"]
# The words that put a length on a side of its anchor, by side.
_ANCHOR_SIDES: tuple[tuple[Marker, Side], ...] = (
    ("duration_after", "after"),
    ("duration_before", "before"),
    ("around", "around"),
)

# Chinese words, then 之后/之前/前后, right before a length: an anchor in words (大选之后两周).
_UNDATED_ANCHOR_ZH = re.compile(r"[\u4e00-\u9fff]{1,12}?(?:之后|以后|之前|以前|前后)的?\s*$")

# A day said in one clause and a length after it in the next: "雷曼9月15号破产，之后两周", "…on
# 2008-09-15, and in the two weeks after" — the length is anchored on that day.
_THEN_AFTER = re.compile(
    r"(?i)[，,;；]\s*(?:(?:and\s+)?(?:in\s+)?(?:the\s+)?)?(?:之后|以后|此后|随后|然后)的?\s*$"
)
_THEN_BEFORE = re.compile(r"[，,;；]\s*(?:之前|此前|以前)的?\s*$")


def _then(gap: str) -> Side | None:
    """The side of a length said after a clause break that follows its day ("，之后两周")."""
    if _THEN_AFTER.search(gap):
        return "after"
    if _THEN_BEFORE.search(gap):
        return "before"
    return None


# "2019 and 2021", 2019年和2021年: two periods, unless "between" (之间) makes them one span.
_AND = re.compile(r"(?i)(?:and|&|as well as|和|与|及|以及|、)")
_BETWEEN_BEFORE = re.compile(r"(?i)between\s*(?:the\s+)?$|介于\s*$")  # 在…和…之间: _BETWEEN_AFTER
_BETWEEN_AFTER = re.compile(r"\s*(?:之间|期间|间)")


# Each asked for apart ("respectively", 分别), or the periods set against each other ("compare
# 2019 and 2020", "which year", 哪年涨得多): adjoining periods too are two windows.
_EACH = re.compile(
    r"(?i)\b(?:respectively|separately|each|compared?|comparing|versus|vs)\b|"
    r"\bwhich\s+(?:of\s+the\s+(?:two\s+)?)?(?:year|month|quarter|half|week|period|one)s?\b|"
    r"分别|各自|各是|比较|对比|相比|哪(?:一|个)?(?:年|月|季度?|周|个)"
)
_COMPARED_TO = re.compile(r"(?i)\b(?:compared?|comparing|relative|versus|vs\.?)\s*$")


def _two_periods(before: str, gap: str, rest: str) -> bool:
    """Two dates joined by "and" with no "between": each is a window of its own."""
    joined = _AND.fullmatch(re.sub(r"(?i)\s+the$", "", gap.strip().strip(",").strip()))
    return bool(joined) and not (_BETWEEN_BEFORE.search(before) or _BETWEEN_AFTER.match(rest))


# Between two items of a list: "March, April and May 2020", "Jan or Feb 2021".
_LISTED = re.compile(r"(?i)\s*(?:,|&|and|or|vs\.?|versus|、|和|与|及)\s*")


def _year_of_list(text: str, atoms: list[Atom], index: int) -> tuple[date, date] | None:
    """The window of a period listed without its year before one that says it ("March and
    April 2020"): the list's year, a year earlier where the month would come after it."""
    atom = atoms[index]
    assert atom.dated is not None
    for left, right in itertools.pairwise(atoms[index:]):
        if not _LISTED.fullmatch(text[left.span[1] : right.span[0]]):
            return None
        if right.dated is None and right.kind == "period" and right.first is not None:
            window = atom.dated(right.first.year)
            return atom.dated(right.first.year - 1) if window[0] > right.first else window
    return None


# "fall by more than 3% in a day", "jumped 5% in a single session": the length of each move, not
# a window ending today.
_A_DAYS_LENGTH = re.compile(
    r"(?i)\b(?:in|on|within|over)\s+(?:a|one|1|a\s+single|any)\s+(?:single\s+)?(?:trading\s+)?"
    r"(?:day|session)\s*$"
)
_MOVE_BEFORE = re.compile(
    r"(?i)(?:%|percent|\b(?:f[ae]ll|drop(?:ped)?|r[io]se|gain(?:ed)?|jump(?:ed)?|mov(?:e|ed)|"
    r"climb(?:ed)?|plunge[d]?|surge[d]?|swing|lose|lost))[^.?!]{0,25}$"
)


def _a_days_move(text: str, atom: Atom) -> bool:
    """Whether `atom` ("in a day", its preposition its own or just before it) says how long
    each move asked about lasts: a move is said just before the phrase."""
    said = _A_DAYS_LENGTH.search(text, max(0, atom.span[0] - 10), atom.span[1])
    if said is None or said.start() > atom.span[0]:
        return False
    return _MOVE_BEFORE.search(text, max(0, said.start() - 60), said.start()) is not None


_ON = re.compile(r"(?i)on\s")


def _length_of_the_periods(
    windows: list[tuple[date | None, date | None]], rules: list[str]
) -> bool:
    """Whether one trailing length is said beside calendar periods that follow each other and
    together last as long ("in 2 years … calendar 2019 plus 2020"), or beside one range whose
    ends are that far apart ("between 1979Q1 and 1981Q1 … over the 8 quarters")."""
    lengths = [w for w, r in zip(windows, rules, strict=True) if r == "rolling"]
    periods = sorted(w for w, r in zip(windows, rules, strict=True) if r in ("period", "range"))
    ranged = "range" in rules
    if len(lengths) != 1 or len(periods) + 1 != len(rules) or not periods:
        return False
    if ranged and len(periods) != 1:
        return False
    if any(None in p for p in periods) or None in lengths[0]:
        return False
    for (_, end), (start, _) in itertools.pairwise(periods):
        if (start - end).days != 1:  # type: ignore[operator]
            return False
    (length_start, length_end), first, last = lengths[0], periods[0][0], periods[-1][1]
    said = (length_end - length_start).days  # type: ignore[operator]
    spanned = (last - first).days + 1  # type: ignore[operator]
    # A range's length runs between its ends' starts: the last month, quarter or year is its end
    candidates = [spanned] + ([spanned - unit for unit in (30, 91, 365)] if ranged else [])
    return said > 0 and any(abs(said - c) <= 0.02 * said for c in candidates)


# What the asker needs the answer for, dated by a time word before it: "this week's episode",
# "tomorrow's class", 明天交作业, 下周开会要用 — the occasion's day, never the data's window.
_OCCASION_AFTER_EN = re.compile(
    r"(?i)['’]s\s+(?:\w+\s+){0,2}?(?:episode|show|podcast|newsletter|column|class|lecture|"
    r"seminar|meeting|call|presentation|deck|segment|broadcast|issue|piece|post|blog|exam|"
    r"quiz|homework|assignment|deadline|briefing|standup|stand-up|memo|report|interview)s?\b"
)
_OCCASION_AFTER_ZH = re.compile(
    r"(?:就|要|得|需要)?(?:交|上课|开会|汇报|讲课|考试|录节目|发稿|截稿|用|要用|演讲|上台|答辩)"
)
_RELATIVE_DAY_ZH = re.compile(r"(?:今天|明天|后天|今晚|明早|明晚|下周|下星期|这周|本周|周末)")


def _the_askers_occasion(text: str, atom: Atom) -> bool:
    """Whether `atom` (this week, tomorrow, 明天) dates what the asker needs the answer for
    rather than the data asked about."""
    said = text[atom.span[0] : atom.span[1]]
    after = text[atom.span[1] :]
    if _OCCASION_AFTER_EN.match(after):
        return True
    return bool(_RELATIVE_DAY_ZH.fullmatch(said.strip()) and _OCCASION_AFTER_ZH.match(after))


# The close named after its day: "since its March 9, 2009 close".
_CLOSE_AFTER_THE_DAY = re.compile(r"(?i)\s*(?:close|closing\s+(?:price|level|value)|level)\b")


def _pins(text: str, before: Clause, clause: Clause) -> Clause | None:
    """`before` ("since its IPO", "since the crash") with the day in brackets after it that pins
    its start ("since its IPO day close (May 18 2012)"), as one "since" clause; None otherwise."""
    if before.rule not in ("first", "since") or clause.start is None or clause.start != clause.end:
        return None
    gap = text[before.span[1] : clause.span[0]]
    # The bracket may name what the day was after it: "(Feb 19 2020 peak)", （2020年2月19日高点）.
    closing = _BRACKET_CLOSES.match(text, clause.span[1])
    bracketed = closing is not None and re.fullmatch(r"(?:\s*[\w'’-]+){0,4}\s*[(（]\s*", gap)
    # "since its first trading day, August 19, 2004?": the day set beside it after a comma
    beside = re.fullmatch(r"(?:\s*[\w'’-]+){0,3}\s*[,，]\s*", gap) and re.match(
        r"\s*(?:[?？.。!！;；]|$)", text[clause.span[1] :]
    )
    # "since the Brexit referendum on June 23, 2016": the day the thing happened on
    on = re.fullmatch(r"\s+on\s+", gap) or (gap.isspace() and _ON.match(clause.text))
    dated = on and re.match(r"\s*(?:[?？.。!！;；,，]|$)", text[clause.span[1] :])
    if not bracketed and not beside and not dated:
        return None
    end = closing.end() if bracketed and closing is not None else clause.span[1]
    return before.model_copy(
        update={
            "start": clause.start,
            "end": before.end if before.end and before.end > clause.start else None,
            "rule": "since",
            "base": "on_or_before",
            "span": (before.span[0], end),
            "text": text[before.span[0] : end],
            "told": bool(dated),
        }
    )


# After a day in brackets: up to three words naming it (its peak, close, 高点), then the bracket
# and what ends a Chinese start's phrase (自…（…）以来).
_BRACKET_CLOSES = re.compile(
    r"(?:(?:\s*[A-Za-z'’-]+){0,3}|\s*[\u4e00-\u9fff]{0,4})\s*[)）](\s*(?:以来|至今|起))?"
)


def _adjoin(atom: Atom, nxt: Atom) -> bool:
    """Periods one after the other ("March and April 2020"): one span whichever way it is said."""
    if None in (atom.first, atom.last, nxt.first, nxt.last):
        return False
    assert atom.first and atom.last and nxt.first and nxt.last
    return (nxt.first - atom.last).days == 1 or (atom.first - nxt.last).days == 1


def _anchored(anchor: Atom, length: Duration, side: Side) -> tuple[date, date]:
    """A length on one side of an anchor (the conventions in docs/asking.md, "Time windows").

    On a day (2020-03-23, an episode's bottom) the window starts or ends on that day: "the month
    after D" is D..D + 1 month, measured from D's close as "since D" is; "the week before D" is
    D - 1 week..D; "around D" / D前后 is D ± the length. A named episode of several days is
    left from its last day and reached at its first. A calendar period keeps its calendar reading:
    "the six months after January 2019" starts with January, "the three months before 2020" end
    on 2019-12-31.
    """
    first, last = anchor.first, anchor.last
    assert first is not None and last is not None  # a period's dates are set (or inferred) by now
    if _is_anchor_day(anchor):
        if side == "after":
            return last, length.after(last)
        if side in ("before", "through"):
            return length.back(first), first
        return length.back(first), length.after(last)
    if side == "after":
        return first, length.forward(first)
    if side == "before":
        return length.back(first), first - timedelta(days=1)
    if side == "through":
        return length.back(last + timedelta(days=1)), last
    return length.back(first), length.after(last)


def _is_anchor_day(atom: Atom) -> bool:
    """A day or a named episode: a window beside it is measured from its close."""
    return _is_day(atom) or atom.rule == "named"


# "rank them by 2021 return": the period names the measure's window.
_MEASURE_AFTER = re.compile(
    r"(?i)\s*(?:'s\s+)?(?:total\s+|annual\s+|daily\s+)?(?:returns?|performance|gains?|losses|"
    r"volatility|drawdowns?|change|growth|sharpe)\b"
)


# Future tense: "in 6 months" is then a length ahead of today.
_WILL = re.compile(r"(?i)\b(?:will|going\s+to|gonna)\b|(?:会|将)(?:是|涨|跌|到|在|达到|有|变)")


def _one_year(atom: Atom) -> bool:
    """A dated period within one calendar year (2020, Q1 2020, 2020-03-23)."""
    first, last = atom.first, atom.last
    return (
        atom.kind == "period"
        and first is not None
        and last is not None
        and (first.year == last.year)
    )


# A superlative before "close of 2002": the close is a price of that year, not its last day;
# a name may come between ("lowest WTI daily close of 2016").
_EXTREME_BEFORE = re.compile(
    r"(?i)\b(?:lowest|highest|low|high|record|best|worst|top|bottom|peak|max(?:imum)?|"
    r"min(?:imum)?|average|mean|median|weakest|strongest)\s+(?-i:[A-Z][\w.&'’-]*\s+){0,3}"
    r"(?:(?:daily|weekly|monthly)\s+)?$"
)

# An episode's edges: the words and which of its days they name.
_EDGES = {"start": "start", "beginning": "start", "onset": "start", "end": "end"}
_EDGES |= {"peak": "high", "high": "high", "top": "high", "bottom": "low", "low": "low"}
_EDGES |= {"trough": "low", "lows": "low", "highs": "high"}
_EDGES |= {"开始": "start", "开端": "start", "结束": "end", "高点": "high", "顶点": "high"}
_EDGES |= {"顶部": "high", "最高点": "high", "低点": "low", "底部": "low", "最低点": "low"}
_EDGES |= {"谷底": "low", "见底": "low", "触底": "low"}
_EDGE_WORDS = alternation(_EDGES)
_EDGE_AFTER = re.compile(rf"(?i)\s*(?:'s\s+|的)?(?P<edge>{_EDGE_WORDS})(?![A-Za-z])")
_EDGE_BEFORE = re.compile(rf"(?i)(?<![A-Za-z])(?:the\s+)?(?P<edge>{_EDGE_WORDS})\s+of\s+$")
_FORTNIGHT = ("fortnight", "fortnights")


# The calendar period holding an occasion: "the year (that) Trump was elected", "the month of
# the Lehman bankruptcy", 特朗普当选总统的那一年, 熔断的那个月, 雷曼破产当年.
_HOLDING_BEFORE = re.compile(
    r"(?i)\b(?:in\s+)?the\s+(?P<unit>year|month|quarter)\s+(?:of\s+|when\s+|that\s+|in\s+which\s+)?"
    r"(?:the\s+)?$"
)
_HOLDING_AFTER = re.compile(r"^\s*(?:的)?(?:那一?|当|这一?)(?P<unit>年|个?月|个?季度?)")
_HOLDING_UNITS = {"year": "year", "年": "year", "month": "month", "月": "month", "个月": "month"}
_HOLDING_UNITS |= {"quarter": "quarter", "季": "quarter", "季度": "quarter", "个季度": "quarter"}


def _holding_period(
    text: str, span: tuple[int, int], day: date | None
) -> tuple[tuple[int, int], date, date] | None:
    """The year, quarter or month holding an episode's first day when the words around its name
    ask for it, with the words' span; else None."""
    if day is None:
        return None
    lo = max(0, span[0] - 40)
    before = _HOLDING_BEFORE.search(text[lo : span[0]])
    after = _HOLDING_AFTER.match(text[span[1] :])
    found = after or before
    if found is None:
        return None
    covered = (span[0], span[1] + after.end()) if after else (lo + found.start(), span[1])
    return covered, *period_holding(day, _HOLDING_UNITS[found.group("unit").lower()])


def _day_edges(text: str, atoms: list[Atom]) -> list[Atom]:
    """A high or low named by its day ("since the March 23, 2020 low", 2020年3月23日低点以来) is
    that day: the word labels the anchor, it asks for no minimum or maximum of the window."""
    out: list[Atom] = []
    for atom in atoms:
        after = _EDGE_AFTER.match(text[atom.span[1] :])
        one_day = atom.kind == "period" and atom.first is not None and atom.first == atom.last
        if after is None or not one_day or _EDGES[after.group("edge").lower()] not in _SIDES:
            out.append(atom)
            continue
        end = atom.span[1] + after.end()
        # Only as a window's anchor: "Apple's March 23, 2020 high" may ask that day's high.
        if not (
            _ANCHOR_BEFORE.search(text[max(0, atom.span[0] - 20) : atom.span[0]])
            or _ANCHOR_AFTER.match(text[end:])
        ):
            out.append(atom)
            continue
        out.append(replace(atom, span=(atom.span[0], end)))
    return out


_SIDES = ("high", "low")
_ANCHOR_BEFORE = re.compile(r"(?i)(?:\b(?:since|from|after|off|of)\s+(?:the\s+)?|从|自从?)$")
_ANCHOR_AFTER = re.compile(r"\s*(?:以来|之后|以后|后|起|开始|到|至)")
_ANCHOR_WORDS = re.compile(
    r"(?i)(?:\s+(?!(?:and|or|with|vs|versus|compared|than|in|for)\b)[\w'’&.-]+){1,5}"
)
_ANCHORS: tuple[Marker, ...] = ("since", "before", "duration_after", "duration_before", "around")
# Words after "the 2008" that keep it a calendar year ("after the 2008 close", "the 2019 to 2020").
_NOT_A_THING = {"to", "through", "thru", "until", "till", "and", "or", "close", "end", "year"}
_NOT_A_THING |= {"calendar", "fiscal", "start", "beginning", "vs", "versus", "low", "high"}
_EITHER_SIDE = re.compile(r"(?i)\s*(?:on\s+)?(?:either|each|both)\s+sides?(?![A-Za-z])")


# --- public API ----------------------------------------------------------------------------------

_GRAMMARS: dict[int, Grammar] = {}


def grammar_for(vocab: Vocab | None = None) -> Grammar:
    """The compiled grammar of a vocabulary (built once); the bundled words when not given."""
    vocab = vocab or load_vocab(None)
    key = id(vocab.time)
    if key not in _GRAMMARS:
        _GRAMMARS[key] = Grammar(vocab.time, vocab.episodes)
    return _GRAMMARS[key]


def _length_to_the_day(
    windows: list[tuple[date | None, date | None]],
    rules: list[str],
    lengths: list[Duration | None],
    today: date,
) -> bool:
    """ "Its 52-week high at the end of 2021", 2021年底的52周高点, "the three years to end-2021": a
    trailing length said beside one earlier day (or an end) runs to that day. Rewrites `windows`
    in place (the day's own rule becomes "day", for the caller to drop); False when the question
    is not of that shape."""
    if len(windows) != 2 or sorted(rules) not in (["period", "rolling"], ["rolling", "until"]):
        return False
    at = rules.index("rolling")
    length = lengths[at]
    day_start, day = windows[1 - at]
    # An end said alone ("the three years to end-2021", 截至2021年底的三年) is that day too.
    one_day = day_start == day or (rules[1 - at] == "until" and day_start is None)
    if length is None or day is None or not one_day or day >= today:
        return False
    windows[at] = (length.back(day), day)
    rules[1 - at] = "day"
    return True


# What puts a length after a day said before it: "a year after", "six months later", 一年后.
_AFTER_IT = re.compile(
    r"(?i)^\s*(?:after|later|on|afterwards|down\s+the\s+road)\b|^\s*(?:以后|之后|后)"
)
_LATER_IN = re.compile(r"(?i)\b(?:later|after)$")


def _length_after_the_day(
    text: str, atoms: list[Atom], windows: list[tuple[date | None, date | None]], today: date
) -> bool:
    """ "5k in at the covid low, what was it worth a year after", 疫情低点买入…一年后值多少: a
    length said after one past day, with nothing else dated, runs that long from the day (never
    to today, nor a forecast). Rewrites `windows` in place; False when not of that shape."""
    # (the same day said twice is one day: "on 23 Mar 2020 (the covid low)")
    if len(set(windows)) != 1 or windows[0][0] is None or windows[0][0] != windows[0][1]:
        return False
    day = windows[0][0]
    dated_until = next((a.span[1] for a in atoms if a.is_date), len(text))
    for atom in atoms:
        if atom.kind not in ("horizon", "duration") or atom.duration is None:
            continue
        said = text[atom.span[0] : atom.span[1]]
        if not (_LATER_IN.search(said) or _AFTER_IT.match(text[atom.span[1] :])):
            continue
        if atom.span[0] < dated_until:
            continue  # the length is said before the day: "a year after 2020-03-23" is read already
        end = atom.duration.after(day)
        if end > today:
            return False
        windows[:] = [(day, end)] * len(windows)
        atom.used = True
        return True
    return False


def _start_on_the_first_session(
    windows: list[tuple[date | None, date | None]], bases: list[Base]
) -> None:
    """ "Its return in 2020, bought at the close of the first trading day of 2020": a window
    whose first session is a day said beside it starts on that day, from that day's close (never
    from the close before the window). Rewrites `windows` and `bases` in place."""
    days = {start for start, end in windows if start is not None and start == end}
    for at, (start, end) in enumerate(windows):
        if start is None or end is None or end <= start:
            continue
        # (a first session is within days of the start: the calendar is read only then)
        near = [d for d in days if start < d <= end and (d - start).days < 7]
        day = next((d for d in near if first_session_from(start) == d), None)
        if day is not None:
            windows[at], bases[at] = (day, end), "on_or_before"


def _anchored_ends(
    windows: list[tuple[date | None, date | None]], rules: list[str], today: date
) -> list[date]:
    """ "From the Mar 23 2020 low thru the end of 2021", 上市以来到2012年底, "at the end of 2010 …
    since the start of 2000": a start that runs to today (since, the first date) beside an
    explicit end (or one day) ends at that end; [] otherwise."""
    until = [e for (_, e), r in zip(windows, rules, strict=True) if r == "until" and e is not None]
    others = [(w, r) for w, r in zip(windows, rules, strict=True) if r != "until"]
    days = [w for w, r in others if r == "period" and w[0] is not None and w[0] == w[1]]
    if not until and len(days) == 1:
        # "At the end of 2010, how far below its highest close since the start of 2000": one day
        # beside a start that runs to today is the day the window is looked at from
        until = [days[0][1]] if days[0][1] is not None else []
        others = [(w, r) for w, r in others if w not in days]
    if not until or not others or any(r not in ("since", "first") for _, r in others):
        return []
    if any(e != today for (_, e), _ in others):
        return []
    starts = [s for (s, _), _ in others if s is not None]
    return until if all(s <= max(until) for s in starts) else []


def _range_inside_the_period(
    windows: list[tuple[date | None, date | None]], rules: list[str]
) -> bool:
    """A period, then a range from one day to another inside it (and nothing else)."""
    if rules != ["period", "range"]:
        return False
    (outer_start, outer_end), (start, end) = windows
    if None in (outer_start, outer_end, start, end):
        return False
    return outer_start <= start and end <= outer_end and (start, end) != (outer_start, outer_end)  # type: ignore[operator]


def _keep_where(keep: Sequence[bool], *columns: list[Any]) -> None:
    """Drop, in place, each parallel column's entries where `keep` is False (a window read
    and its base, rule and name go together)."""
    for column in columns:
        column[:] = [item for item, kept in zip(column, keep, strict=True) if kept]


# How far before a closed period a "from" day may fall and still be that period's base close.
_BASE_GAP = timedelta(days=7)


def _bases_of_a_period(
    windows: list[tuple[date | None, date | None]], rules: list[str], today: date
) -> set[int]:
    """The "from" windows that only name the base of the closed period beside them (a day a
    few days before it, or the month just before it; 2019年年底比年初… 从2018年最后一个交易日算起:
    the periods said together, from the first), or none."""
    closed = [
        w for w, r in zip(windows, rules, strict=True) if r in ("range", "period") and w[1] != today
    ]
    since = [i for i, r in enumerate(rules) if r == "since"]
    if not closed or not since or len(closed) + len(since) != len(windows):
        return set()
    if any(w[0] is None for w in closed):
        return set()
    first = min(w[0] for w in closed if w[0] is not None)
    starts = [windows[i][0] for i in since]
    if first is None or not all(s is not None and _base_of(s, first) for s in starts):
        return set()
    return set(since)


def _base_of(start: date, first: date) -> bool:
    """Whether a "from" said at `start` is the base of a period that begins on `first`: a day a
    few days before it ("from the 2014 year-end close"), or the month just before it ("Jan
    return measured from the Dec 2018 close")."""
    if timedelta(0) < first - start <= _BASE_GAP:
        return True
    return start.day == 1 and month_end(start.year, start.month) + timedelta(days=1) == first


def read_time(text: str, today: date, vocab: Vocab | None = None) -> TimeReading:
    """Every time window, horizon and length in `text`, resolved against `today`."""
    return grammar_for(vocab).read(text, today)


def default_window(today: date) -> tuple[date, date]:
    """No time words: the past year."""
    return _one_year_before(today), today


def _one_year_before(day: date) -> date:
    return Duration(1, "year").back(day)


# "the last (trading) day of 2021" before a period, 2021年(的)最后一(个交易)天 after it.
_DAY_OF_EN = re.compile(
    r"(?i)\b(?:on\s+)?(?:the\s+)?(?P<end>last|final|first)\s+(?:trading\s+|business\s+)?"
    r"(?:day|session)\s+(?:of|in)\s+(?:the\s+)?$"
)
_DAY_OF_ZH = re.compile(r"^\s*的?(?P<end>最后|第)一(?:个)?(?:交易)?[天日]")


def _day_of_period(text: str, atoms: list[Atom]) -> list[Atom]:
    """Narrow a period to its first or last day when the text asks for that one day (a single
    day's value, not the whole period); atoms inside the phrase ("last day") are dropped."""
    out: list[Atom] = []
    for atom in atoms:
        if atom.kind != "period" or atom.first is None or atom.last is None:
            out.append(atom)
            continue
        before = _DAY_OF_EN.search(text[: atom.span[0]])
        after = _DAY_OF_ZH.match(text[atom.span[1] :])
        found = before or after
        if found is None:
            out.append(atom)
            continue
        last = found.group("end").lower() in {"last", "final", "最后"}
        day = atom.last if last else atom.first
        if before:
            span = (before.start(), atom.span[1])
        else:
            span = (atom.span[0], atom.span[1] + after.end() if after else atom.span[1])
        out = [a for a in out if a.span[1] <= span[0]]
        out.append(replace(atom, span=span, first=day, last=day, dated=None))
    return _outermost(out)


def _outermost(atoms: list[Atom]) -> list[Atom]:
    """The atoms inside no other one (two with the same span are inside each other), in their
    order: one sweep by start, so a question of thousands of atoms is not read pairwise."""
    by_start = sorted(range(len(atoms)), key=lambda i: (atoms[i].span[0], -atoms[i].span[1]))
    inside: set[int] = set()
    reach = -1  # the furthest end of the atoms that start at or before this one
    for place, i in enumerate(by_start):
        span = atoms[i].span
        twin = place + 1 < len(by_start) and atoms[by_start[place + 1]].span == span
        if span[1] <= reach or twin:
            inside.add(i)
        reach = max(reach, span[1])
    return [atom for i, atom in enumerate(atoms) if i not in inside]


def _is_day(atom: Atom) -> bool:
    """A single day the user named (not a calendar period, not "now")."""
    return atom.kind == "period" and atom.first is not None and atom.first == atom.last


# 当月/当季 right after a dated month or quarter is that one ("2020年11月当月"), not today's.
_THAT_SAME = re.compile(r"^(?:的)?\s*(当月|当季)$")


def _that_same_period(text: str, atoms: list[Atom]) -> list[Atom]:
    """Fold a 当月/当季 that follows a dated period into it: the window stays the dated one."""
    out: list[Atom] = []
    for atom in atoms:
        previous = out[-1] if out else None
        joined = text[previous.span[1] : atom.span[1]] if previous is not None else ""
        if (
            previous is not None
            and previous.kind == "period"
            and previous.first is not None
            and _THAT_SAME.match(joined.strip())
        ):
            previous.span = (previous.span[0], atom.span[1])
            continue
        out.append(atom)
    return out


def _horizon(duration: Duration, text: str) -> Horizon:
    count, unit = duration.count, duration.unit
    if not float(count).is_integer() and unit in ("year", "quarter", "decade"):
        count, unit = duration.in_months() or count, "month"
    return Horizon(count=max(round(count), 1), unit=unit, text=text)


def _relative_word(word: str, span: Span, today: date) -> Atom | None:
    year = today.year
    windows: dict[str, tuple[date, date]] = {
        "yesterday": (today - timedelta(days=1),) * 2,
        "this_year": (date(year, 1, 1), today),
        "last_year": year_window(year - 1),
        "year_before_last": year_window(year - 2),
        "this_month": (today.replace(day=1), today),
        "last_month": month_window(*_previous_month(today)),
        "this_quarter": (quarter_window(year, quarter_of(today))[0], today),
        "last_quarter": quarter_window(*previous_quarter(today)),
        "this_week": (week_start(today), today),
        "last_week": (week_start(today) - timedelta(days=7), week_start(today) - timedelta(days=1)),
    }
    ahead: dict[str, Duration] = {
        "next_year": Duration(1, "year"),
        "next_quarter": Duration(1, "quarter"),
        "next_month": Duration(1, "month"),
        "next_week": Duration(1, "week"),
        "tomorrow": Duration(1, "day"),
    }
    if word == "today":
        return Atom("today", span, "")
    if word in ahead:
        return Atom("horizon", span, "", duration=ahead[word])
    if word == "past_year":  # TTM, 过去十二个月: a trailing length
        length = Duration(1, "year")
        return Atom("rolling", span, "", length.back(today), today, duration=length)
    first, last = windows[word]
    return Atom("period", span, "", first, last)


def _end_of_the_month_said(atoms: list[Atom], index: int) -> None:
    """A month's end without its month: the last day of the month said before it ("上个月的均价
    …月底那天"), else of the one right after ("the month-end close of March 2020"); with no
    month said, left to the ledger to declare."""
    months = [
        (i, a.last)
        for i, a in enumerate(atoms)
        if i != index and a.dated is None and calendar_unit(a.first, a.last) == "month"
    ]
    before = [last for i, last in months if i < index]
    after = [last for i, last in months if i > index]
    said = before[-1] if before else after[0] if after else None
    if said is None:
        atoms[index].unread = True
        return
    atoms[index].first = atoms[index].last = said


def _previous_month(day: date) -> tuple[int, int]:
    return (day.year, day.month - 1) if day.month > 1 else (day.year - 1, 12)


_MONTH_PARTS = {"start": "初", "beginning": "初", "middle": "中", "end": "底"}


def _month_part(year: int, month: int, part: str) -> tuple[date, date]:
    end = month_end(year, month)
    return {
        "初": (date(year, month, 1),) * 2,
        "中": (date(year, month, 15),) * 2,
        "上旬": (date(year, month, 1), date(year, month, 10)),
        "中旬": (date(year, month, 11), date(year, month, 20)),
        "下旬": (date(year, month, 21), end),
    }.get(part, (end, end))


def _year_offsets(words: TimeFile) -> dict[str, int]:
    """Words that name a year relative to today and can qualify a quarter or month."""
    offsets: dict[TimeWord, int] = {
        "this_year": 0,
        "last_year": -1,
        "year_before_last": -2,
        "next_year": 1,
    }
    result: dict[str, int] = {}
    for key, offset in offsets.items():
        for phrase in words.words[key]:
            pure_en = (
                phrase.isascii()
                and "year" in phrase
                and not re.search(r"to date|so far|calendar|ytd", phrase)
            )
            pure_zh = not phrase.isascii() and phrase.endswith("年") and len(phrase) <= 3
            if pure_en or pure_zh:
                result[phrase_key(phrase)] = offset
    return result


def _strip(text: str, span: Span) -> Span:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
