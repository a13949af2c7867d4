"""What one message says on its own: time phrases, entities and vocabulary hits.

Time is read first; an entity name that contains a time phrase ("3-month Treasury bill") keeps
its words. Metric phrases longer than the name inside them win their words ("inflation rate"),
and a US macro series named for another country is set aside ("China's GDP").
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from datetime import date
from itertools import pairwise

from pydantic import BaseModel, Field

from datapilot.brains.offline.brackets import formulas
from datapilot.brains.offline.entities import (
    Mention,
    find_mentions,
    glued_to_names,
    group_mentions,
    short_ticker_mentions,
    unknown_names,
)
from datapilot.brains.offline.exclusions import excluded_spans
from datapilot.brains.offline.homophones import homophone_matches
from datapilot.brains.offline.how_much import how_much_return, multiple_return
from datapilot.brains.offline.numbers import zh_percents
from datapilot.brains.offline.phrases import MASK, Hit, Span, mask
from datapilot.brains.offline.relative_days import name_relative_days
from datapilot.brains.offline.spelling import (
    Respelling,
    expand_elided_anchor,
    expand_ordinals,
    expand_paired_superlatives,
    expand_period_shorthand,
    expand_pointed_peak,
    expand_whole_year,
    expand_year_pairs,
    mandarin,
    name_fed_cycles,
    respell_measures,
    respell_than,
)
from datapilot.brains.offline.trading_days import name_first_sessions
from datapilot.brains.offline.vocab import Vocab
from datapilot.brains.offline.windows import TimeReading, read_time
from datapilot.data.catalog import Catalog, Entity, Match
from datapilot.data.display import measure_name
from datapilot.data.text import CJK

_LABEL_PERIOD = re.compile(
    r"(?i)\b(Q[1-4]|H[12]|FY|year-end|quarter-end|month-end)\s+(?:client|investor|shareholder|"
    r"team|board)?\s*(?:letter|report|review|update|memo|note|newsletter|commentary|outlook|deck|"
    r"presentation|call|meeting|pitch)s?\b"
    # 写年报要用：/ 做季报用: what the user writes with the figures, not a company's report asked
    r"|(?:写|做|准备|撰写|编写)(?:公司|我们的|我的)?(?:年报|季报|半年报|月报|周报|报告|研报)"
    r"(?:要用|需要|用)?(?=\s*[：:，,])"
)
_END_TO_END = re.compile(
    r"(?i)[(（]?\s*(?:Q4\s*(?:over|vs\.?|/|-|on|to)\s*Q4|fourth[-\s]quarter\s+(?:over|to|on)\s+"
    r"fourth[-\s]quarter|Dec(?:ember)?\s*(?:over|vs\.?|/|-|on|to)\s*Dec(?:ember)?|(?:四季度|第四季度|Q4)"
    r"(?:对|比|同比)(?:四季度|第四季度|Q4)|(?:12月|十二月)(?:对|比)(?:12月|十二月)|年末对年末)\s*[)）]?"
)
_EARLIER_ANCHOR = re.compile(
    r"(?i)\b(?:than|from|vs\.?|versus|compared\s+(?:with|to))\s+"
    # ("than the same month a year earlier": the month a year before, the yoy's other end)
    r"(?:the\s+same\s+(?:month|quarter|period|week|day)\s+)?(?:a|one|the)\s+year\s+"
    r"(?:earlier|ago|before)\b|(?:比|较|与|和|跟|同)(?:一年前|去年同期|上年同期)"
    r"(?:的?同一?(?:个)?(?:月|季度?|期))?"  # 跟一年前同一个月比
)

# "哪个月跌得最厉害？当月跌了多少？", "which quarter grew fastest, and by how much that quarter":
# the period asked about, said again, is that period, never the current one.
_WHICH_PERIOD = re.compile(
    r"(?i)哪(?:一|个|一个)?(?P<zh>月|季度|季|周|年)|\bwhich\s+(?P<en>month|quarter|week|year)\b"
)
_THAT_PERIOD = re.compile(
    r"(?i)(?:当|那个|那一个?|该|这个)(?P<zh>月|季度|季|周|年)(?!份?以来|初|末|底)"
    r"|\b(?:that|the\s+same)\s+(?P<en>month|quarter|week|year)\b"
)


# The two periods asked for said again ("两个月的收益率差了多少", "those two months"): not a window.
_THOSE_TWO = re.compile(
    r"(?i)(?<![近去前后内])(?:这|那)?两个(?P<zh>月|季度)|(?<![近去前后内])(?:这|那)?两(?P<zy>年|周)(?!内|来|里)"
    r"|\b(?:those|these|the|both)\s+(?:two\s+)?(?P<en>month|quarter|week|year)s\b"
)
# A four-digit level after a comparison ("above 2000", "closed over 1900", 高于2000点): the
# level, not a year (a range after it, "above 2000-2010", is left to the time reader).
_LEVEL_NOT_A_YEAR = re.compile(
    r"(?i)\b(?:above|below|beyond|under|(?:clos(?:e|ed|es|ing)|trad(?:e|ed|ing)|finish(?:ed)?|"
    r"end(?:ed)?)\s+(?:at\s+or\s+)?over)\s+(?:the\s+)?(?P<level>\d{4})(?![\d,.%/-])"
    r"(?!\s*(?:-|–|to|through|and|or)\s*\d)"
)
_WHICH_ONE = re.compile(r"哪一(?:个)?(?:季度|季|月|年|周|天|日)")
# Periods counted among periods ("这四年里有三年跑赢", "in 3 of the 4 years"): a count a claim
# makes, never two windows' lengths.
_NUM_ZH = r"[一二两三四五六七八九十\d]+"
_NUM_EN = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
PERIODS_COUNTED = re.compile(
    rf"(?:这|那)?{_NUM_ZH}个?(?:年|季度|个月|月)(?:里|中|当中|之中|间|内)?[，,]?(?:有|其中有?)"
    rf"{_NUM_ZH}个?(?:年|季度|个月|月)"
    rf"|(?i:\b{_NUM_EN}\s+(?:out\s+)?of\s+(?:the\s+|those\s+|these\s+)?{_NUM_EN}\s+"
    r"(?:years|quarters|months)\b)"
)


# A statement setting the scene before the question ("2011 had the US downgrade and the euro
# debt crisis. How many days did the S&P 500 lose more than 2%?"): its words of data the
# offline reader lacks are the story, not what is asked.
_SENTENCE_END = re.compile(r"[.!?。！？]")
_ASKING = re.compile(
    r"(?i)\b(?:what|which|how|when|who|whose|why|give|show|tell|list|compare)\b"
    r"|多少|几|哪|什么"
)


# What the user says not to show ("别给我看那些历史数据了", "don't show me the charts"): no
# measure or form is asked by those words.
_NOT_ASKED = re.compile(
    r"(?:别|不要|不用|甭|无需|不必)(?:再)?(?:给我|跟我|帮我)?(?:看|列|发|讲|说|展示)[^，。？！,.?!]{0,12}"
    r"|(?i:\b(?:don'?t|do\s+not|no\s+need\s+to)\s+(?:show|give|send)\s+me\s+(?:the\s+|any\s+|"
    r"those\s+)?(?:\w+\s+){0,3}?(?:data|charts?|numbers|history|figures)\b)"
)


_BRACKETED = re.compile(r"[(（]([^()（）]{1,40})[)）]")
_PERIOD_WORD = re.compile(r"(?i)\b(?:month|quarter|year|week|day|session)s?\b|[月年季周天]")


def _said_as_context(hit: Hit, text: str) -> bool:
    """Whether `hit` is a measure the bundled data lack, said in a statement before the
    question, which itself asks something else, or in brackets naming a period by what happened
    in it ("(the downgrade month)")."""
    from datapilot.brains.offline.measures import LIVE_ONLY  # (measures reads parsed text)

    if not any(label.removeprefix("metric:") in LIVE_ONLY for label in hit.labels):
        return False
    for aside in _BRACKETED.finditer(text):
        # "in August 2011 (the downgrade month)": brackets naming the period by what happened
        if aside.start() < hit.start and hit.end <= aside.end() and _PERIOD_WORD.search(aside[1]):
            return True
    ends = [found.end() for found in _SENTENCE_END.finditer(text)]
    after = bisect_right(ends, hit.start)
    if after == len(ends):
        return False  # in the last words, which no stop ends: the question itself
    said = text[ends[after - 1] if after else 0 : ends[after]]
    rest = text[ends[after] :]
    statement = said.rstrip().endswith((".", "。", "!", "！"))
    # (a check of the statement after it, "True?", 对吗, asks the statement itself)
    asked_after = ("?" in rest or "？" in rest) and _ASKING.search(rest) is not None
    return statement and asked_after and not _ASKING.search(said)


def _that_period(text: str) -> list[tuple[int, int]]:
    """Where a period asked for by "which" is said again (当月, "that month"): not a window."""
    asked = {(w["zh"] or w["en"] or "").lower(): w.end() for w in _WHICH_PERIOD.finditer(text)}
    spans = [
        found.span()
        for found in _THAT_PERIOD.finditer(text)
        if found.start() >= asked.get((found["zh"] or found["en"] or "").lower(), len(text))
    ]
    return spans + [
        found.span()
        for found in _THOSE_TWO.finditer(text)
        if found.start()
        >= asked.get((found["zh"] or found["zy"] or found["en"] or "").lower(), len(text))
    ]


class Parsed(BaseModel):
    """What one message says on its own, before the conversation and defaults are applied."""

    text: str
    time: TimeReading
    mentions: list[Mention] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    entity_trace: list[str] = Field(default_factory=list)
    hits: list[Hit] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)
    # Chinese nobody knows joined to a known name by 和, 与 or 、 ("美孚和雪佛龙"): a name, whose
    # absence a comparison cannot do without (the ledger notes it otherwise).
    listed_unknown: list[str] = Field(default_factory=list)
    unnamed: list[str] = Field(
        default_factory=list, description="Name-like words left over beside known names."
    )
    foreign: list[str] = Field(default_factory=list, description="US series asked for elsewhere.")
    glued: list[Span] = Field(
        default_factory=list, description="Everyday words read as part of an unknown name."
    )
    respelled: list[Respelling] = Field(
        default_factory=list, description="Near-miss measure words read as the measure."
    )

    model_config = {"arbitrary_types_allowed": True}

    def has(self, label: str) -> bool:
        return any(h.has(label) for h in self.hits)

    def first(self, label: str) -> Hit | None:
        return next((h for h in self.hits if h.has(label)), None)

    def group(self, prefix: str) -> list[tuple[str, Hit]]:
        return [(value, h) for h in self.hits for value in h.group(prefix)]


# Every script's decimal digits (Arabic-Indic ١٢٣, Devanagari, Thai …) as the ASCII digits they
# stand for, as NFKC does for full-width ones: the grammar reads ASCII digits, and `\d` runs of
# other scripts once made its rules rescan the text from every position.
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")

# Chinese writes a year straight after a Latin name ("实际GDP1960年"); a space keeps both readable.
_LETTER_BEFORE_YEAR = re.compile(r"(?<=[A-Za-z])(?=(?:1[89]|20)\d{2}\s*年)")


def normalise_text(question: str) -> str:
    """Full-width forms to ASCII (，→, ２０１９→2019), digits of every script to ASCII (٢٠١٩→2019),
    single spaces, a space between a Latin word and a Chinese year."""
    text = " ".join(_ascii_digits(unicodedata.normalize("NFKC", question)).split())
    return _LETTER_BEFORE_YEAR.sub(" ", text)


def _ascii_digits(text: str) -> str:
    return _OTHER_DIGIT.sub(lambda found: str(unicodedata.decimal(found[0])), text)


_ASKERS_LIFE = re.compile(
    r"(?i)\b(?:i'?m|i\s+am)\s+(?:now\s+)?\d{2,3}(?:\s*(?:years?\s+old|yrs?\s+old|y/?o))?"
    r"(?=\s*(?:and|,|\.|;|!|-|–|—|now|\(|$))"
    r"|(?:我|本人)(?:今年|已经)?\d{2,3}(?:岁|歲)|今年\d{2,3}(?:岁|歲)"
    r"|(?:我|本人)今年\d{2,3}(?![\d年月日%％])|(?:天天|每天|整天|上班)996(?![\d%％年])"
    r"|\bafter\s+\d{1,2}\s+years\s+(?:as|at|in|with)\s+(?:a\s+|an\s+|the\s+|my\s+)?[a-z]+"
    r"|\b(?:has|have)\s+been\s+(?:my|our)\b[^.?!]{0,60}?\bfor\s+\d{1,2}\s+years\b"
)


def parse(text: str, today: date, catalog: Catalog, vocab: Vocab) -> Parsed:
    """Time phrases, entities and vocabulary hits of one message."""
    text = respell_than(expand_ordinals(expand_period_shorthand(mandarin(text))))
    text = expand_paired_superlatives(text)
    text = expand_whole_year(expand_elided_anchor(expand_year_pairs(expand_pointed_peak(text))))
    text = zh_percents(name_relative_days(name_fed_cycles(name_first_sessions(text)), today))
    # "For our Q1 client letter": a document's label, neither a window nor a name. "Q4 over Q4",
    # 四季度对四季度: the calendar convention itself (a year's change from the last observation
    # before it), which every calendar window already follows.
    text = _LABEL_PERIOD.sub(lambda found: " " * len(found[0]), text)
    # The asker's age and years of their life ("I'm 71", 我今年29, "after 30 years as a
    # machinist", "has been my stock for 30 years"): who asks, neither a window nor a number.
    text = _ASKERS_LIFE.sub(lambda found: " " * len(found[0]), text)
    text = _END_TO_END.sub(lambda found: " " * len(found[0]), text)
    # A formula in brackets after a measure says how it is computed: the measure answers it.
    defined = [span for span in formulas(text) if _measure_before(text[: span[0]], vocab)]
    said = [text[start:end] for start, end in defined]
    text = mask(text, defined).replace(MASK, " ")
    text, respelled = respell_measures(text, vocab, catalog)
    spelled = [
        f"“{r.said}”读作{measure_name(r.metric, zh=True)}"
        if CJK.search(text)
        else f'"{r.said}" read as "{r.read}"'
        for r in respelled
    ]
    spelled += [
        f"“{d}”：所问指标的算法，按该指标回答"
        if CJK.search(text)
        else f'"{d}": how the measure asked is computed, answered by that measure'
        for d in said
    ]
    candidates = catalog.mentions(text)
    time = read_time(text, today, vocab)
    # A name that contains a time phrase ("3-month Treasury bill") is a name, not a window.
    names = [
        (m.start, m.end)
        for m in candidates
        if any(m.start <= s and e <= m.end and (m.start, m.end) != (s, e) for s, e in time.spans)
    ]
    # A time phrase that ends inside a longer word gives that word its characters back
    # (过去十年中 + 国 is 过去十年 + 中国): each character belongs to one reading.
    names += _straddled(text, time.spans, candidates, vocab)
    # "than a year earlier", 比去年同期: what a change is measured against (the yoy), not a window.
    names += [found.span() for found in _EARLIER_ANCHOR.finditer(text)]
    names += _that_period(text)
    # 哪一季度, 哪一季, 哪一年: "which quarter", never 一季度 (the first quarter) nor "one quarter"
    names += [found.span() for found in _WHICH_ONE.finditer(text)]
    names += [found.span() for found in PERIODS_COUNTED.finditer(text)]
    # "closed above 2000", 收盘高于3000点: a level, never the year 2000
    names += [found.span("level") for found in _LEVEL_NOT_A_YEAR.finditer(text)]
    if names:
        time = read_time(mask(text, names), today, vocab)
    mentions, entity_trace = find_mentions(text, candidates, time.spans, vocab)
    mentions = _yield_to_measures(mentions, text, time.spans, vocab)
    mentions = _with_their_glosses(mentions, text, time.spans)
    # (A window inside another, "the Dec 2018 print … over 2018", is time words, never a name.)
    claimed = [*time.spans, *time.nested, *(m.span for m in mentions)]
    hits = _with_metric_names(vocab.matcher.find(text, claimed), text, time.spans, mentions, vocab)
    mentions = _measure_after_a_series(mentions, text, vocab)
    hits = _with_times_of_day(hits, text, mentions)
    hits = _ratio_of_two_names(hits, text, mentions)
    not_asked = [found.span() for found in _NOT_ASKED.finditer(text)]
    hits = [
        h
        for h in hits
        if not _noun_sense(h, text)
        and not _said_as_context(h, text)
        and not any(s <= h.start and h.end <= e for s, e in not_asked)
    ]
    mentions = _with_own_name_words(mentions, text, [*claimed, *((h.start, h.end) for h in hits)])
    claimed = [*time.spans, *time.nested, *(m.span for m in mentions)]
    entity_trace = spelled + [m.described() for m in mentions] + entity_trace
    # A member left out ("the factor ETFs except SIZE") does not narrow its group to itself.
    left_out = excluded_spans(text, [(m.span, m.entity.id, [m.text]) for m in mentions])
    on_their_own = [m for m in mentions if (m.span, m.entity.id) not in left_out]
    members, group_trace = group_mentions(hits, on_their_own, vocab, catalog)
    mentions += members
    tickers, ticker_trace = short_ticker_mentions(text, claimed, hits, mentions, catalog)
    mentions = _named_again_in_brackets(
        sorted([*mentions, *tickers], key=lambda m: m.span[0]), text, catalog
    )
    entity_trace += group_trace + ticker_trace
    claimed += [m.span for m in tickers]
    glued = glued_to_names(text, [*claimed, *(c.span for c in time.clauses)], hits)
    hits = [h for h in hits if (h.start, h.end) not in glued]  # words of a name, not cues
    # What happened on a day the window starts ("since the Fed hiked on …") is no name.
    claimed += [c.span for c in time.clauses if c.told]
    left = unknown_names(text, claimed, hits)
    sounded = _sounded(text, left, catalog, mentions)
    if sounded:  # 沃尔马 typed for 沃尔玛: read by its sound, said in the trace
        mentions = sorted([*mentions, *sounded], key=lambda m: m.span[0])
        entity_trace += [m.described() for m in sounded]
        claimed += [m.span for m in sounded]
        left = unknown_names(text, claimed, hits)
    unknown = left if not mentions else []
    named = {m.entity.id for m in mentions}
    unnamed = [n for n in left if _name_like(n, text) and not _names_again(n, named, catalog)]
    listed_unknown = [
        n
        for n in left
        if _joined_to_a_name(n, text, mentions) and not _names_again(n, named, catalog)
    ]
    entities = [m.entity for m in mentions]
    made = how_much_return(text, hits, [e.kind for e in entities], time)
    if made is not None:  # "Exxon - how much last year?": its return
        hits = sorted([*hits, made], key=lambda h: h.start)
    multiple = multiple_return(text, hits, [e.kind for e in entities], time)
    if multiple is not None:  # "did AMD double in 2020?": its return says
        hits = sorted([*hits, multiple], key=lambda h: h.start)
    foreign: list[str] = []
    for mention, country in _elsewhere(mentions, hits):
        entities.remove(mention.entity)
        joint = "" if CJK.search(country.text + mention.text) else " "
        foreign.append(f"{country.text}{joint}{mention.text}")
        entity_trace.append(
            f'"{country.text} … {mention.text}": not {mention.entity.id}, which is a US series'
        )
    return Parsed(
        text=text,
        time=time,
        mentions=mentions,
        entities=entities,
        entity_trace=entity_trace,
        hits=hits,
        unknown=unknown,
        unnamed=unnamed,
        listed_unknown=listed_unknown,
        foreign=foreign,
        respelled=respelled,
        glued=glued,
    )


def _sounded(
    text: str, left: list[str], catalog: Catalog, mentions: list[Mention]
) -> list[Mention]:
    """Names typed with a character of the same sound (沃尔马, 摩跟大通) where a word was left
    unread: read where they overlap no name already read."""
    if not any(CJK.search(w) for w in left):
        return []
    named = {m.entity.id for m in mentions}
    found = []
    for match in homophone_matches(text, catalog, [m.span for m in mentions]):
        span = (match.start, match.end)
        if match.entity.id in named:
            continue
        found.append(
            Mention(
                entity=match.entity, text=match.matched, span=span, score=match.score, how="sound"
            )
        )
    return found


# A gloss after a name: "the Fama-French market factor, i.e. the market return net of the
# risk-free rate", 市场因子，即市场收益减去无风险利率. It ends at the clause's end.
_GLOSS = re.compile(
    r"(?i)\s*[,，]?\s*(?:i\.\s?e\.?|that\s+is(?:\s+to\s+say)?|a\.?k\.?a\.?|"
    r"也就是说?|亦即|即(?![使将便时刻]))\s*[,，:：]?[^,，:;?!。？！；()（）]{1,80}"
)


_LIST_JOINT = re.compile(r"(?i)\s*(?:,|，|、|&|and|or|和|与|及)\s*")


def _with_their_glosses(mentions: list[Mention], text: str, times: list[Span]) -> list[Mention]:
    """A name's gloss restates it: the names in it are not named again (the market factor's
    "the market return net of the risk-free rate" names neither the S&P 500 nor the T-bill
    rate), and the gloss is read as the name's own words."""
    read: list[Mention] = []
    end = -1
    for mention in mentions:
        if mention.span[0] < end:
            continue  # a name inside the gloss before it
        gloss = _GLOSS.match(text, mention.span[1])
        if gloss is None:
            read.append(mention)
            continue
        end = min([gloss.end(), *(s for s, _ in times if s >= mention.span[1])])
        inside = [m for m in mentions if mention.span[1] <= m.span[0] and m.span[1] <= end]
        listed = any(
            _LIST_JOINT.fullmatch(text[a.span[1] : b.span[0]]) for a, b in pairwise(inside)
        )
        if listed:  # "the big banks, i.e. JPM and BAC": the names it stands for, each read
            read.append(mention)
            continue
        span = (mention.span[0], end)
        read.append(mention.model_copy(update={"span": span, "text": text[span[0] : span[1]]}))
    return read


def _named_again_in_brackets(mentions: list[Mention], text: str, catalog: Catalog) -> list[Mention]:
    """A name followed by a code in brackets ("WTI (MCOILWTICO)", 联合健康(UNH)), or a Chinese
    name written right against it (规模SMB), names one thing: the code says which, and the two
    are read as one mention of the code's entity. A gloss in
    brackets that may name the same thing ("Fama-French SMB (size)") restates the name."""
    read: list[Mention] = []
    for mention in mentions:
        name = read[-1] if read else None
        between = text[name.span[1] : mention.span[0]] if name else ""
        closes = text[mention.span[1] :].lstrip().startswith((")", "）"))
        code = re.fullmatch(r"\^?[A-Z0-9][A-Z0-9.\-]*", mention.text) is not None
        # A Chinese name written right against a code (规模SMB, 苹果AAPL) is glossed by it too.
        touching = name is not None and not between and "\u4e00" <= name.text[-1] <= "\u9fff"
        bracketed = closes and re.fullmatch(r"\s*[(（]\s*", between) is not None
        if not (name and ((touching and code) or bracketed)):
            read.append(mention)
            continue
        span = (name.span[0], mention.span[1])
        if code:  # a code says which
            read[-1] = mention.model_copy(update={"span": span, "text": text[span[0] : span[1]]})
            continue
        if any(m.entity.id == name.entity.id for m in catalog.lookup(mention.text, limit=5)):
            read[-1] = name.model_copy(update={"span": span, "text": text[span[0] : span[1]]})
            continue
        if name.text.casefold() in _THE_MARKET:  # 大盘（标普500）: the index in brackets says which
            read[-1] = mention.model_copy(update={"span": span, "text": text[span[0] : span[1]]})
            continue
        read.append(mention)
    return read


# Words for "the market" whose index a bracket after them may name.
_THE_MARKET = frozenset({"大盘", "大市", "股市", "市场", "美股", "the market", "market"})


# "project" forecasts as a verb ("project Apple's price"), never as the noun after a determiner
# or a noun ("my student project", "for a class project: …").
_NOUN_BEFORE = re.compile(
    r"(?i)\b(?:a|an|the|my|our|your|his|her|their|this|that|school|class|student|research|"
    r"side|group|team|final|course|uni|college|term)\s+$"
)


# "close" is the closing price, except as the verb of closing something else: "close the books
# for the year", "close out my position".
_CLOSE_SOMETHING = re.compile(
    r"(?i)^\s+(?:out\b|(?:the|my|our|a|this|that)\s+(?:books?|positions?|trades?|deal|"
    r"accounts?|quarter'?s\s+books|gap|loop)\b)"
)


def _noun_sense(hit: Hit, text: str) -> bool:
    """A measure word used in a sense that names no measure."""
    word = hit.text.casefold()
    if word == "project":
        return bool(_NOUN_BEFORE.search(text[: hit.start]))
    if word == "close":
        return bool(_CLOSE_SOMETHING.match(text[hit.end :]))
    if hit.group("metric") == ["news"]:
        return bool(_SOURCE_OF_A_CLAIM.match(text[hit.end :]))
    if word == "business":
        return bool(_BUSINESS_SOMETHING.match(text[hit.end :]))
    if word in ("high", "low"):
        # "I teach high school econ": a kind of school, no high asked
        return bool(_HIGH_SOMETHING.match(text[hit.end :]))
    if word == "what does":
        # "what does that work out to per year", "what does it mean": of a figure, not a company
        return bool(_DOES_OF_A_FIGURE.match(text[hit.end :]))
    return False


_HIGH_SOMETHING = re.compile(
    r"(?i)[-\s]+(?:school|schools|schooler|schoolers|street|court|speed)\b"
)
_DOES_OF_A_FIGURE = re.compile(
    r"(?i)\s+(?:that|this|it|each|they|those|these|the\s+\w+)\s+(?:work\s+out|come\s+(?:out|to)|"
    r"amount|translate|equal|add\s+up|mean|look\s+like|annuali[sz]e)"
)


# "a business paper", "business days": "business" naming a kind of thing, not a company profile.
_BUSINESS_SOMETHING = re.compile(
    r"(?i)^[-\s]+(?:paper|papers|newspaper|press|news|section|page|channel|day|days|week|weeks|"
    r"hours?|school|insider|wire|journal|magazine|reporter|writer|columnist|card|trip|cycle)\b"
)


# "Saw a headline claiming Exxon is up 80%", 新闻说苹果翻倍了: where a claim was read, which the
# data checks; it asks for no news.
_SOURCE_OF_A_CLAIM = re.compile(
    r"(?i)^\s*(?:claim(?:s|ed|ing)?|say(?:s|ing)?|said|stat(?:es|ed|ing)|report(?:s|ed|ing)|"
    r"that|suggest(?:s|ed|ing)?)\b|^\s*(?:说|称|报道说|声称)"
)


def _measure_before(text: str, vocab: Vocab) -> bool:
    """A measure (or 年化 / "annualized") is said in `text`."""
    return any(h.group("metric") or h.has("cue:annualize") for h in vocab.matcher.find(text))


def _straddled(text: str, spans: list[Span], candidates: list[Match], vocab: Vocab) -> list[Span]:
    """The characters a time phrase took from a word that overlaps one of its ends: a place or a
    name of the catalog."""
    words = [(h.start, h.end) for h in vocab.matcher.find(text) if h.has("cue:country")]
    words += [(m.start, m.end) for m in candidates if m.score >= 100 and m.start >= 0]
    ends = [(start, end) for s, end in spans for start, stop in words if s < start < end < stop]
    # A name whose last characters begin a time phrase keeps them (标普500 + 月度, not 500月).
    starts = [(s, stop) for s, e in spans for start, stop in words if start < s < stop < e]
    return ends + starts


def _name_like(words: str, text: str) -> bool:
    """A capitalised Latin word inside the sentence ("Apel"): not its first word, not Chinese;
    nor a sentence's first word followed by lower-case ones ("… close. Ending balances and the
    gap in dollars?")."""
    said = words.split()
    first = said[0]
    if not (first[:1].isascii() and first[:1].isupper()) or text.startswith(first):
        return False
    at = text.find(words)
    opens = at >= 0 and re.search(r"[.?!:;]\s*$", text[:at]) is not None
    return not (opens and len(said) > 1 and all(w.islower() for w in said[1:]))


# Words joining names in a list: 美孚和雪佛龙, 甲与乙, 甲、乙.
_JOINS_ZH = frozenset("和与跟同及、")


def _joined_to_a_name(words: str, text: str, mentions: list[Mention]) -> bool:
    """Chinese nobody knows joined to a known name by 和, 与, 、 ("美孚和雪佛龙"): a name too."""
    at = text.find(words)
    if at < 0 or not CJK.search(words):
        return False
    end = at + len(words)
    starts, ends = {m.span[0] for m in mentions}, {m.span[1] for m in mentions}
    return (text[end : end + 1] in _JOINS_ZH and end + 1 in starts) or (
        at > 0 and text[at - 1] in _JOINS_ZH and at - 1 in ends
    )


def _names_again(words: str, named: set[str], catalog: Catalog) -> bool:
    """A second name of an entity already named ("恐慌指数VIX", "money supply M1"), or such a
    name with the lower-case words said after it ("the month Brent topped out")."""
    said = words.split()
    if len(said) > 1 and all(w.islower() for w in said[1:]):
        words = said[0]
    return any(m.score >= 100 and m.entity.id in named for m in catalog.lookup(words, limit=3))


# A time of day ("at 2pm", "10:30 a.m.", 下午两点, 上午10点半, 14:30) asks for a price inside a
# session: intraday data, which no bundled source has. A bare number before 点 is not one (涨了
# 100点 is index points), so Chinese needs a part of the day or minutes.
_ZH_HOUR = r"(?:[01]?\d|2[0-3]|[一二两三四五六七八九十]|十[一二])"
_TIME_OF_DAY = re.compile(
    r"(?i)(?<![\w:])(?:(?:1[0-2]|0?[1-9])(?::[0-5]\d)?\s*[ap]\.?m\b\.?|(?:[01]?\d|2[0-3]):[0-5]\d"
    r"(?!\d)(?:\s*(?:[ap]\.?m\b\.?|et|est|edt|utc))?|(?:at|around)\s+(?:noon|midday)\b)"
    # (Cantonese parts of the day too: 下晝 / 下昼, 朝早, 晏晝, 夜晚)
    rf"|(?:上午|下午|中午|早上|早晨|晚上|凌晨|傍晚|午后|下晝|下昼|朝早|晏晝|晏昼|夜晚)\s*{_ZH_HOUR}\s*[点時时](?:半|整|[0-5]?\d分|"
    r"[一二三四五]?十[一二三四五六七八九]?分)?"
    rf"|{_ZH_HOUR}\s*点(?:半|[0-5]?\d分|[一二三四五]?十[一二三四五六七八九]?分)"
    r"|(?<![\d.])(?:[01]?\d|2[0-3])[:：][0-5]\d(?![\d])"
)


def _with_times_of_day(hits: list[Hit], text: str, mentions: list[Mention]) -> list[Hit]:
    """Read a time of day as asking for intraday data (see `_TIME_OF_DAY`)."""
    found = [
        f
        for f in _TIME_OF_DAY.finditer(text)
        if not any(m.span[0] < f.end() and f.start() < m.span[1] for m in mentions)
    ]
    if not found:
        return hits
    times = [Hit(("metric:intraday",), f.start(), f.end(), f.group(0)) for f in found]
    kept = [h for h in hits if not any(h.start < t.end and t.start < h.end for t in times)]
    return sorted([*kept, *times], key=lambda h: h.start)


_WORD_AFTER = re.compile(r"\s+([A-Za-z][\w'’-]*)")
_NAME_WORD = re.compile(r"[A-Za-z][\w'’-]*")


def _with_own_name_words(mentions: list[Mention], text: str, taken: list[Span]) -> list[Mention]:
    """ "Moody's Baa corporate yield", "WTI spot": words of the entity's own name said right
    after the name matched ("corporate" of "Moody's Baa corporate bond yield") are that name,
    not words left unread. A word another reading takes ("yield", a measure) ends it."""
    extended: list[Mention] = []
    for mention in mentions:
        own = {w.casefold() for w in _NAME_WORD.findall(mention.entity.name) if len(w) > 3}
        end = mention.span[1]
        while (word := _WORD_AFTER.match(text, end)) is not None:
            lo, hi = word.span(1)
            if word.group(1).casefold() not in own or any(s < hi and lo < e for s, e in taken):
                break
            end = hi
        if end != mention.span[1]:
            span = (mention.span[0], end)
            mention = mention.model_copy(update={"span": span, "text": text[span[0] : end]})
        extended.append(mention)
    return extended


def _measure_after_a_series(mentions: list[Mention], text: str, vocab: Vocab) -> list[Mention]:
    """ "Core CPI inflation", 核心CPI通胀: a name that says a measure ("inflation" is a price
    index's year-over-year change) right after another series names that series' measure (the
    hit `_with_metric_names` made of it), not a second series (the headline CPI)."""
    kept: list[Mention] = []
    for mention in mentions:
        before = kept[-1] if kept else None
        if (
            before is not None
            and " ".join(mention.text.lower().split()) in vocab.metrics.implies
            and before.entity.kind == "macro"
            and before.entity.id != mention.entity.id
            and not text[before.span[1] : mention.span[0]].strip()
        ):
            continue
        kept.append(mention)
    return kept


def _with_metric_names(
    hits: list[Hit], text: str, blocked: list[Span], mentions: list[Mention], vocab: Vocab
) -> list[Hit]:
    """Add the measures that entity names carry.

    A metric phrase longer than the name inside it wins its words ("inflation rate" is a
    year-over-year change of the CPI), and names listed under `implies` say their measure
    ("inflation").
    """
    spans = [m.span for m in mentions]
    wider = [
        h
        for h in vocab.matcher.find(text, blocked)
        if h.group("metric")
        and any(h.start <= s and e <= h.end and (h.end - h.start) > (e - s) for s, e in spans)
    ]
    implied = [
        Hit((f"metric:{vocab.metrics.implies[key]}",), m.span[0], m.span[1], m.text)
        for m in mentions
        if (key := " ".join(m.text.lower().split())) in vocab.metrics.implies
    ]
    # "US CPI inflation": the entity named once ("US CPI"), its measure said by another of its
    # names right after it ("inflation" is the CPI's too).
    said = {label for h in hits for label in h.labels}
    for key, metric in vocab.metrics.implies.items():
        if f"metric:{metric}" in said:
            continue  # "CPI inflation year over year": the measure is said already
        edge = r"\b" if key.isascii() else ""
        for found in re.finditer(edge + re.escape(key) + edge, text, re.IGNORECASE):
            span = found.span()
            if any(s <= span[0] and span[1] <= e for s, e in [*spans, *blocked]):
                continue
            if any(
                key in (m.entity.name.lower(), *map(str.lower, m.entity.aliases)) for m in mentions
            ):
                implied.append(Hit((f"metric:{metric}",), span[0], span[1], found.group(0)))
    kept = [h for h in hits if not any(h.start < w.end and w.start < h.end for w in wider)]
    return sorted([*kept, *wider, *implied], key=lambda h: h.start)


# Two names joined as a ratio's legs ("Nasdaq-to-S&P 500", "Nasdaq/S&P 500") and the word
# right after the second: "the Nasdaq-to-S&P 500 ratio" is the first over the second.
_RATIO_JOIN = re.compile(r"(?i)^\s*(?:/|-to-|:|\s+to\s+(?:the\s+)?)\s*$")
_RATIO_AFTER = re.compile(r"(?i)^(?:'s)?\s+(?:(?:close|closing|price|level)\s+)?(ratio)\b")


def _ratio_of_two_names(hits: list[Hit], text: str, mentions: list[Mention]) -> list[Hit]:
    """A bare "ratio" said right after two names joined as its legs; nowhere else ("Sortino
    ratio" stays a measure nobody knows)."""
    if any("metric:ratio" in h.labels for h in hits):
        return hits
    for first, second in pairwise(mentions):
        joined = _RATIO_JOIN.match(text[first.span[1] : second.span[0]])
        after = _RATIO_AFTER.match(text[second.span[1] :])
        if joined and after:
            start = second.span[1] + after.start(1)
            found = Hit(("metric:ratio",), start, start + 5, "ratio")
            kept = [h for h in hits if not (h.start < found.end and found.start < h.end)]
            return sorted([*kept, found], key=lambda h: h.start)
    return hits


# The high less the low said as a gap ("the high-minus-low gap in basis points"): a range.
_HIGH_LESS_LOW = re.compile(
    r"(?i)\bhigh[-\s]+(?:minus|less)[-\s]+low(?=\s+(?:gap|range|difference|spread|distance)\b)"
)


def _yield_to_measures(
    mentions: list[Mention], text: str, blocked: list[Span], vocab: Vocab
) -> list[Mention]:
    """A name whose last words begin a longer measure phrase is part of that phrase: "the market"
    in "the market cap of Exxon" is the market capitalisation, not the S&P 500."""
    measures = [h for h in vocab.matcher.find(text, blocked) if h.group("metric")]
    filler = {w.casefold() for w in vocab.cues.cues["filler"].all}
    ranges = [found.span() for found in _HIGH_LESS_LOW.finditer(text)]

    def inside_measure(m: Mention) -> bool:
        if any(s <= m.span[0] and m.span[1] <= e for s, e in ranges):
            return True  # "the high-minus-low gap" of a rate: its range, not the HML factor
        for h in measures:
            if m.span[0] < h.start < m.span[1] < h.end:
                rest = text[m.span[0] : h.start].casefold().split()
                if all(word in filler for word in rest):  # "the" left, not "AAA" in "AAA yield"
                    return True
        return False

    return [m for m in mentions if not inside_measure(m)]


def _elsewhere(mentions: list[Mention], hits: list[Hit]) -> list[tuple[Mention, Hit]]:
    """Macro series named generically for another country ("China's GDP" is not US GDP)."""
    countries = [h for h in hits if h.has("cue:country")]
    found = []
    for mention in mentions:
        if mention.entity.kind != "macro" or not countries:
            continue
        names = " ".join([mention.entity.name, *mention.entity.aliases]).casefold()
        country = next((c for c in countries if c.text.casefold() not in names), None)
        if country is not None:
            found.append((mention, country))
    return found
