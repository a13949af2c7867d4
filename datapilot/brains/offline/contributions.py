"""Regular contributions asked (定投, "$500 every month", 每年第一个交易日买1万美元): the same sum
bought every period of the window and what the holding is worth at its end
(`periodic_investment`), never one lump sum at the start."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the reading imports the families, which import this module
    from datapilot.brains.offline.family_asks import Span
    from datapilot.brains.offline.reading import Reading
    from datapilot.brains.offline.windows import Clause

_UNIT_ZH = {"月": "monthly", "季": "quarterly", "季度": "quarterly", "年": "yearly"}
_UNIT_ZH |= {"周": "weekly", "週": "weekly", "星期": "weekly", "礼拜": "weekly"}
_UNIT_EN = {"month": "monthly", "quarter": "quarterly", "year": "yearly", "week": "weekly"}
_UNIT_EN |= {"monthly": "monthly", "quarterly": "quarterly", "yearly": "yearly"}
_UNIT_EN |= {"annual": "yearly", "annually": "yearly", "weekly": "weekly"}
_BUY_ZH = r"(?:定投|买入?|買入?|投入?|投资|投資|供|存入?|加仓|加倉)"
_BUY_EN = (
    r"(?:buy(?:ing|s)?|bought|invest(?:ing|ed|s)?|put(?:ting|s)?|add(?:ing|ed|s)?|contribut\w*)"
)
_CONTRIBUTING = (
    re.compile(
        rf"每(?:个|個|一个|一個)?(?P<u>月|季度|季|年|周|週|星期|礼拜)[^，,。？?！!；;]{{0,20}}?{_BUY_ZH}"
    ),
    re.compile(r"(?P<dca>定投|定期定额|定期定額)"),
    re.compile(
        rf"(?i)\b(?:every|each)\s+(?P<u>month|quarter|year|week)\b[^.?!;]{{0,50}}?\b{_BUY_EN}\b"
    ),
    re.compile(
        rf"(?i)\b{_BUY_EN}\b[^.?!;]{{0,50}}?\b(?:every|each|a|per)\s+(?P<u>month|quarter|year|"
        r"week)\b"
    ),
    re.compile(
        r"(?i)\b(?P<u>monthly|quarterly|yearly|annual|annually|weekly)\s+(?:contributions?|"
        r"investments?|purchases?|buys?|deposits?)\b|\bdollar[-\s]cost\s+averag\w*"
    ),
)
_LAST = re.compile(
    r"(?i)\blast\s+(?:trading\s+)?(?:day|session)\b|\b(?:month|quarter|year)[-\s]end\b"
    r"|最[后後]一(?:个|個)?交易日|最[后後]一[日天]|月底|季末|年底|年末"
)


@dataclass(frozen=True)
class ContributionAsk:
    """How often the sum is bought, at which session of the period, and the words saying it."""

    every: str
    on: str
    spans: tuple[Span, ...]


def read_contribution_ask(text: str) -> ContributionAsk | None:
    """The regular buying a question asks about, or None."""
    for pattern in _CONTRIBUTING:
        found = pattern.search(text)
        if found is None:
            continue
        said = (found.groupdict().get("u") or "").lower()
        every = _UNIT_ZH.get(said) or _UNIT_EN.get(said) or "monthly"
        spans: list[Span] = [found.span()]
        # the session bought at, said with the buying ("每个月第一个交易日收盘买", "at the close
        # of the last trading day of each month"), not the day the holding is valued on
        near = max(0, found.start() - 40)
        last = _LAST.search(text, near, found.end())
        if last is not None:
            spans.append(last.span())
        return ContributionAsk(every, "last" if last is not None else "first", tuple(spans))
    return None


def as_contributions(
    reading: Reading, ask: ContributionAsk, clauses: list[Clause], amount: Span | None
) -> None:
    """Read the question as regular buying over the window its dates name: from the earliest
    start said to the earliest end said ("由2012年1月开始…一直供到2016年12月"), a number that is the
    sum bought (2000美金) never a year of it."""
    dated = [
        c
        for c in clauses
        if not (amount is not None and amount[0] <= c.span[0] and c.span[1] <= amount[1])
    ]
    starts = [c.start for c in dated if c.start is not None]
    ends = [c.end for c in dated if c.end is not None]
    if starts:
        reading.start = min(starts)
    if ends:
        reading.end = min(ends)
    reading.metrics = ["periodic_investment"]
    reading.contributions = (ask.every, ask.on)
    reading.rank = False
    reading.family_spans += [(s, e, f"bought {ask.every}") for s, e in ask.spans]
    every_zh = {"monthly": "每月", "quarterly": "每季", "yearly": "每年", "weekly": "每周"}
    on_zh = "第一个" if ask.on == "first" else "最后一个"
    reading.trace.append(
        f"定投：{every_zh[ask.every]}{on_zh}交易日收盘买入{reading.amount:,.0f}，期末市值"
        if reading.zh
        else f"regular buying: {reading.amount:,.0f} at the close of the {ask.on} session of "
        f"each {ask.every.removesuffix('ly')}, valued at the end"
    )
