"""The margin by which one priced name beat another: 雪佛龙过去半年跑赢标普多少, "did IBM outperform
Microsoft in 2011? by how much?", "AAPL vs MSFT ytd, whats the gap between them", "MTUM vs
USMV ytd, the spread between them". Each name's return over the window is ranked with the
ranking's gap (the one mechanism that states a difference between names' returns), so both
returns and their difference in percentage points are shown — never the two returns alone,
nor a gap between their prices.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.honour import GAP
from datapilot.brains.offline.how_much import PRICE_KINDS
from datapilot.brains.offline.parsing import Parsed

if TYPE_CHECKING:  # the reader imports this module
    from datapilot.brains.offline.reading import Reading

# Statistics of levels whose gap between two names is the statistic of their spread.
_STATISTICS = {"mean", "median"}
# Measures whose gap between names is a difference of returns.
_RETURNS = {"return", "cumulative_return"}
# A price said: "the price gap between them" is a gap of prices (a spread), not of returns.
_PRICE_WORD = re.compile(
    r"(?i)\b(?:prices?|closes?|closing|share\s+price|(?:more\s+)?expensive|cheaper|pricier|"
    r"costlier|dearer)\b"
    r"|价格|股价|收盘|贵|便宜"
)
_SPREAD_WORD = re.compile(r"(?i)\bspreads?\b|利差|价差|息差")
# A difference said as arithmetic: "the difference between Apple's and Microsoft's 2020
# returns", "AAPL return 2020 - MSFT return 2020", 苹果收益减去微软收益, 涨幅之差.
_DIFFERENCE = re.compile(
    r"(?i)\bdifferences?\b|\bminus\b|\bsubtract(?:ed|ing)?\b|\bthe\s+gap\b(?!\s+(?:up|down)\b)|"
    # a dash between two returns, never a dash that only separates clauses
    r"(?<=\breturn)\s+(?:(?:in\s+)?(?:19|20)\d\d\s+)?[-−](?=\s+[^?.!;]{1,30}?\breturn)|"
    r"减去|相减|之差|差值|差额"
)
# A gap between a ranking's two ends, whatever else is said of prices.
_BETWEEN_THE_ENDS = re.compile(
    r"(?i)\b(?:spread|gap|difference)\s+(?:between|from)\s+(?:the\s+)?(?:(?:leader|top|best|first|"
    r"winner|#\s*1|no\.?\s*1)\b[^.?!;]{0,30}?(?:\b(?:laggard|bottom|worst|last|loser)\b|#\s*\d+)"
    # "the difference between the two CAGRs", "the gap between their returns"
    r"|(?:two\s+|their\s+|both\s+)(?:cagrs?|returns?|annuali[sz]ed\s+returns?|growth\s+rates?)\b)"
)
# Which of them led: "which insurer led", "who came out ahead", 谁领先.
_WHICH_LED = re.compile(
    r"(?i)\b(?:which|who)\s+(?:[a-z]+\s+)?(?:led|won|came\s+out\s+(?:ahead|on\s+top))\b"
)
# Money between two holdings: "how many dollars more would the Tesla position be worth", "how
# many dollars apart", "the gap in dollars", 相差多少美元.
_MONEY_GAP = re.compile(
    r"(?i)\b(?:how\s+many\s+(?:more\s+)?dollars\s+(?:more|apart|less|ahead|behind)?|"
    r"(?:gap|difference)\s+in\s+dollars)\b|相差多少(?:美元|美金|钱)|差了?多少(?:美元|美金|钱)"
)
# Which of two did more: "which one rose more", 谁涨得多, 哪只跌得更多 — only the two together say.
_WHO_DID_MORE = re.compile(
    r"(?i)\b(?:which|who)\s+(?:one\s+|of\s+(?:them|the\s+two)\s+)?(?:rose|gained|fell|lost|did|"
    r"performed|returned|went\s+up|went\s+down)\s+(?:more|less|better|worse)\b"
    # "which one was bigger", "which of the two was higher"
    r"|\bwhich\s+(?:one|of\s+(?:them|the\s+two|these|those|both))\s+(?:was|is|were|came\s+out)\s+"
    r"(?:the\s+)?(?:bigger|larger|higher|greater|better|smaller|lower|worse|biggest|largest|"
    r"highest|best)\b"
    r"|谁(?:的)?(?:涨|跌|赚|亏|表现|收益)[^，。？?]{0,4}?(?:多|好|高|强|少|差|低)"
    r"|哪(?:个|只|支|一个|一只)(?:涨|跌|赚|亏)得?更?(?:多|少)"
)
# A race run period by period ("every single year since 2015", 逐年, 每年都跑赢): each period's
# winner, never one gap over the whole window.
_EACH_PERIOD = re.compile(
    r"(?i)\b(?:every|each)\s+(?:single\s+)?(?:year|quarter|month)\b|\byear[-\s]by[-\s]year\b"
    r"|逐年|每一?年|每个?季度|每个?月|逐季|逐月"
)
# One name's return over another's: "TSLA's excess return" beside "vs the S&P 500", 超额收益.
_EXCESS = re.compile(r"(?i)\bexcess\s+returns?\b|超额收益")
# Words of a race between names, said with no measure: their returns are what is compared.
_PERFORMED = re.compile(
    r"(?i)\b(?:out|under)perform\w*|\bout(?:gain|pac)\w*|\bbeat(?:s|en)?\b|"
    r"\b(?:lag|trail)(?:s|ed|ged|ing)?\b|"
    r"\b(?:ahead|behind)\s+of\b|\bdid\s+better\b|跑赢|跑输|领先|落后|多涨|少涨|多跌|少跌"
)


def asks_gap(text: str) -> re.Match[str] | None:
    """The words asking a difference between names' figures: a gap ("by how many points"), or
    a spread or a difference said with no price word (the gap between two names' returns)."""
    if found := GAP.search(text):
        return found
    if found := _BETWEEN_THE_ENDS.search(text):
        return found  # "the spread between the leader and the laggard": the ranking's two ends
    if _PRICE_WORD.search(text):
        return None
    return _SPREAD_WORD.search(text) or _DIFFERENCE.search(text)


def sets_names_against_each_other(text: str) -> bool:
    """Whether `text` asks a figure only two names together have: a difference, spread or gap
    between them, or which one beat the other ("… and the gap", "did Tesla beat Apple")."""
    return any(
        p.search(text)
        for p in (
            _DIFFERENCE,
            _SPREAD_WORD,
            _PERFORMED,
            _WHICH_LED,
            _MONEY_GAP,
            _WHO_DID_MORE,
            _EXCESS,
        )
    )


def read_margin(reading: Reading, parsed: Parsed) -> None:
    """Two or more priced names and a gap asked between them: their returns, ranked with the
    gap, instead of a chart of returns with the gap unanswered."""
    priced = not _PRICE_WORD.search(parsed.text)
    # "MTUM vs USMV ytd - what's the spread between them": with no price word, the spread of two
    # priced names is the gap between their returns.
    found = asks_gap(parsed.text)
    names = reading.entities
    if found is not None and _gap_of_levels(reading, parsed.text):
        # (an average said with it, 布伦特平均比WTI贵多少: each average and the spread's)
        reading.metrics = ["spread", *(m for m in reading.metrics if m in _STATISTICS)]
        reading.family_spans.append((*found.span(), "the difference of the two levels"))
        said = _PRICE_WORD.search(parsed.text)
        if said is not None:
            reading.family_spans.append((*said.span(), "the levels compared"))
        reading.trace.append(
            f"“{found.group(0)}” → 两者水平之差（价差）"
            if reading.zh
            else f'"{found.group(0)}" → the difference between the two levels (a spread)'
        )
        return
    claimed = reading.claim is not None and reading.claim.leader is not None
    if found is None and not claimed and len(names) == 2 and not _EACH_PERIOD.search(parsed.text):
        # "有人说苹果2018年跑赢了标普500，真的吗？各自涨跌多少": which beat the other is their gap
        found = _PERFORMED.search(parsed.text)
    if (found is None and not claimed) or len(names) < 2:
        return
    if any(e.kind not in PRICE_KINDS for e in names):
        return
    metrics = set(reading.metrics)
    if claimed:
        # "Exxon outgained Chevron by over 10 points": the points are the gap's unit
        metrics = (metrics - {"close", "value"}) or {"return"}
    if "spread" in metrics and (priced or _BETWEEN_THE_ENDS.search(parsed.text)):
        # "the gap between them" read as a spread of two stocks' prices, no price word said
        metrics = (metrics - {"spread"}) or {"return"}
    if metrics == {"close"} and reading.measure_defaulted and _PERFORMED.search(parsed.text):
        metrics = {"return"}  # "how far ahead of Microsoft was Apple": no measure but a race
    if not metrics <= _RETURNS | {"annualized_return"}:
        return
    # "the difference between the two CAGRs in points": the yearly rates' gap
    reading.metrics = ["annualized_return" if "annualized_return" in metrics else "return"]
    reading.rank = True
    reading.benchmark = _benchmark(parsed) if len(names) >= 3 else None
    words = found.group(0) if found is not None else reading.claim.said  # type: ignore[union-attr]
    if found is not None:
        reading.family_spans.append((*found.span(), "the gap between the returns"))
    reading.trace.append(
        f"“{words}” → 各自的收益率及其差（百分点）"
        if reading.zh
        else f'"{words}" → each return and the gap between them (percentage points)'
    )


def _benchmark(parsed: Parsed) -> str | None:
    """The name set against the others right after "beat", "outperformed", 跑赢 ("which of
    MSFT, KO and GE outperformed the S&P 500"): each one's figure is measured against it."""
    for said in _PERFORMED.finditer(parsed.text):
        after = [m for m in parsed.mentions if 0 <= m.span[0] - said.end() <= 12]
        if len(after) == 1:
            return after[0].entity.id
    return None


def _gap_of_levels(reading: Reading, text: str) -> bool:
    """ "How much more expensive was Brent than WTI", 布伦特比WTI贵多少: two levels in the same
    units set against each other, a series' (a commodity, a rate) or a price said as one."""
    names = reading.entities
    # A measure only assumed (a ranking word, 贵得最多, defaults to returns) is no measure said.
    levels = set(reading.metrics) <= {"close", "value", *_STATISTICS} or (
        reading.measure_defaulted and _PRICE_WORD.search(text) is not None
    )
    if len(names) != 2 or not levels:
        return False
    if len({e.units for e in names}) != 1:
        return False
    return bool(_PRICE_WORD.search(text)) or all(e.kind not in PRICE_KINDS for e in names)


# A statistic said of the spread itself: "the average Brent-WTI spread", "mean premium",
# 平均价差, 利差的均值.
_STATISTIC_OF_SPREAD = re.compile(
    r"(?i)\b(?:average|mean|avg|median)\s+(?:[\w'’-]+\s+){0,3}?(?:spread|premium|discount|gap)s?\b"
    r"|平均(?:的)?(?:价差|利差|息差|溢价|差价)|(?:价差|利差|息差|溢价|差价)的?(?:平均|均值)"
)


def statistic_of_the_spread(text: str) -> bool:
    """Whether a mean or median is asked of the spread itself ("the average Brent-WTI spread"),
    not of each series as well ("the 2013 average prices of Brent and WTI, and Brent's
    premium")."""
    return bool(_STATISTIC_OF_SPREAD.search(text))
