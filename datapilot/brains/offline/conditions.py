"""Periods picked by another name's move: "In 2022, on the days the S&P 500 fell more than 2%,
what was Walmart's average return?", 2011年标普500收跌的那几个月，可口可乐平均每个月涨跌多少 —
each other name's mean return over exactly those days (months), with how many there were and
the first and last (`returns_when`). A rule of grammar in both languages: the clause naming the
periods (`honour.CONDITION`) names the one whose move picks them; the side is its verb (fell /
rose, 跌 / 涨), the threshold its percentage, the period its noun (days, months, 天, 月).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from datapilot.brains.offline.honour import CONDITION

if TYPE_CHECKING:  # the reader imports this module
    from datapilot.brains.offline.parsing import Parsed
    from datapilot.brains.offline.reading import Reading

_DOWN = re.compile(
    r"(?i)\b(?:fell|fall|falls|falling|dropped|drops?|declined?|declines|lost|loses|slid|sank|"
    r"down|red|negative)\b|跌|收阴"
)
_UP = re.compile(
    r"(?i)\b(?:rose|rise|rises|rising|gained|gains?|climbed|climbs?|jumped|jumps?|rallied|up|"
    r"green|positive)\b|涨|收阳"
)
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)|百分之(\d+(?:\.\d+)?)")
_PERIODS: tuple[tuple[re.Pattern[str], Literal["daily", "weekly", "monthly", "quarterly"]], ...] = (
    (re.compile(r"(?i)\b(?:days?|sessions?)\b|天|日子|交易日"), "daily"),
    (re.compile(r"(?i)\bweeks?\b|周"), "weekly"),
    (re.compile(r"(?i)\bmonths?\b|月"), "monthly"),
    (re.compile(r"(?i)\bquarters?\b|季度"), "quarterly"),
)
# Where an English clause naming the periods ends: its comma, or the question after it.
_CLAUSE_END = re.compile(r"(?i)[,;?]|\b(?:what|how|which|and\s+how)\b")
_ZH_CLAUSE_START = re.compile(r"[，,。；;？?！!]")


class ConditionAsk(BaseModel):
    """The periods asked about: those `entity` fell (rose) in by more than `threshold` %."""

    entity: str
    side: Literal["down", "up"]
    threshold: float = 0.0
    period: Literal["daily", "weekly", "monthly", "quarterly"] = "daily"
    span: tuple[int, int]


def read_condition_ask(parsed: Parsed) -> ConditionAsk | None:
    """The periods another name's move picks, or None (no such clause, or not one name in it)."""
    text = parsed.text
    found = CONDITION.search(text)
    if found is None:
        return None
    if re.search(r"[\u4e00-\u9fff]", found.group(0)):
        before = [m.end() for m in _ZH_CLAUSE_START.finditer(text, 0, found.start())]
        start, end = (before[-1] if before else 0), found.end()
    else:
        after = _CLAUSE_END.search(text, found.end())
        start, end = found.start(), after.start() if after else len(text)
    clause = text[start:end]
    named = {m.entity.id for m in parsed.mentions if start <= m.span[0] and m.span[1] <= end}
    if not named and len(parsed.entities) == 1:
        named = {parsed.entities[0].id}  # "on days when it fell", "on up days": the one name
    period = next((p for pattern, p in _PERIODS if pattern.search(found.group(0))), None)
    down, up = _DOWN.search(clause), _UP.search(clause)
    if len(named) != 1 or period is None or (down is None and up is None):
        return None
    side: Literal["down", "up"] = (
        "down" if down is not None and (up is None or down.start() <= up.start()) else "up"
    )
    percent = _PERCENT.search(clause)
    threshold = float(percent.group(1) or percent.group(2)) if percent else 0.0
    return ConditionAsk(
        entity=next(iter(named)),
        side=side,
        threshold=threshold,
        period=period,
        span=(start, end),
    )


def as_condition(reading: Reading, ask: ConditionAsk) -> None:
    """Read the question as the mean return over the periods the condition picks: the measures
    it asks (an average, a return) are what that table gives."""
    reading.metrics = ["conditional"]
    reading.condition = ask
    reading.frequency = ask.period if ask.period != "daily" else None
    reading.rank = False
    reading.family_spans.append((*ask.span, "the periods the condition picks"))
    word = "fell" if ask.side == "down" else "rose"
    more = f" more than {ask.threshold:g}%" if ask.threshold else ""
    reading.trace.append(
        f"{ask.entity}{'下跌' if ask.side == 'down' else '上涨'}"
        f"{f'超过{ask.threshold:g}%' if ask.threshold else ''}的时段里各标的的平均收益率"
        if reading.zh
        else f"the mean return over the {ask.period} periods {ask.entity} {word}{more}"
    )
