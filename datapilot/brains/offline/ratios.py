"""A ratio of two figures asked for: "exxon's gain is how many times chevron's?", "how many times
bigger was X's return than Y's", "what multiple of", 苹果的涨幅是微软的几倍 / 多少倍.

The figure divided is the first name's; it is divided by the name said after "than", else after
the ratio's words (EN) or after 是 (ZH). A ratio the plan cannot give (not two names, or no
cross-section of one measure) leaves its words unhonoured, so the answer declines them rather
than giving the two figures alone. "How many times did it close above $150" is a count, not this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading
    from datapilot.data.entity import Entity

RATIO_CUE = "cue:ratio"
# One name's growth said as a multiple of where it started: 涨了几倍, 翻了几番, "how many times has
# it multiplied", "how many-fold". Honoured only by a window change that states the multiple.
MULTIPLE_CUE = "cue:multiple"

_TIMES_EN = r"how\s+many\s+times"
_RATIO = re.compile(
    rf"(?i)\b{_TIMES_EN}\s+(?:as\s+(?:much|large|big|high|great|good|strong)|bigger|larger|"
    r"greater|higher|more|better|stronger|that\s+of|the\s+size\s+of)\b"
    rf"|\b(?:is|was|are|were|be)\s+{_TIMES_EN}\b"
    rf"|\b{_TIMES_EN}\s+(?=[\w&.-]+['’]s?\b)(?!(?:did|does|do|has|had|have|was|were|is|in|it|"
    r"they|has|over|during|since|this|that|the)\b)"
    r"|\bwhat\s+multiple\s+of\b|\bas\s+a\s+multiple\s+of\b"
    r"|(?:是|为|相当于|等于)(?P<zh>[^，。？?,!！]{0,16}?)的?(?:几|多少)倍"
)
_THAN = re.compile(r"(?i)\bthan\b|比")
_GROWTH_MULTIPLE = re.compile(
    r"(?i)\bhow\s+many[-\s]?fold\b|\b(?:by\s+)?what\s+(?:multiple|factor)\b(?!\s+of\b)"
    r"|\bhow\s+many\s+times\s+(?:over\s+)?(?:(?:did|has|have|had|does|do|would|will|could)\s+"
    r"[^?.;,]{1,60}?\s+(?:have\s+)?)?"
    r"(?:grow|grown|grew|multipl(?:y|ied)|"
    r"increase[ds]?|go(?:ne)?\s+up|went\s+up|r[io]se|risen|gain(?:ed)?|appreciat(?:e|ed))\b"
    r"|\b(?:grow|grew|grown|multipl(?:y|ied)|increase[ds]?|gone\s+up|went\s+up|r[io]se|risen)\s+"
    r"(?:by\s+)?how\s+many\s+times\b"
    r"|(?:涨|增长|上涨|增值|升|翻)了?(?:几|多少)(?:倍|番)|翻了?几翻"
    r"|\bas\s+a\s+multiple\s+of\s+(?:the|its)\s+(?:starting|start|initial|opening|beginning|"
    r"first)\b|(?:是|为|变成|变为|成了|涨到|涨成)了?(?:期初|起初|开始时?|最初|起点|买入时|买入价|原来)"
    r"的?(?:几|多少)倍"
    # "how many x is that", "how many times over did it go": the multiple itself
    r"|\bhow\s+many\s+(?:x|times\s+over)(?![\w-])"
    # "what multiple of the starting price did it end at", "how many times the starting price"
    r"|\b(?:what|which)\s+multiple\s+of\s+(?:the|its)\s+(?:starting|start|initial|opening|"
    r"beginning|first)\b|\bhow\s+many\s+times\s+(?:the|its)\s+(?:starting|start|initial|"
    r"opening|beginning|first)\s+(?:price|close|level|value)\b"
)


@dataclass(frozen=True)
class RatioAsk:
    """The ratio asked; `after` is where the divisor's name is looked for."""

    span: tuple[int, int]
    after: int


def read_ratio_ask(text: str) -> RatioAsk | None:
    """The ratio of two figures `text` asks for, or None."""
    found = _RATIO.search(text)
    if found is None:
        return None
    growth = _GROWTH_MULTIPLE.search(text)
    if growth is not None and found.start() < growth.end() and growth.start() < found.end():
        return None  # "as a multiple of the starting one", 是期初的多少倍: its own growth
    if found.group("zh") is not None:
        return RatioAsk(found.span(), found.start("zh"))
    than = _THAN.search(text, found.start())
    return RatioAsk(found.span(), than.end() if than is not None else found.start())


def read_growth_multiple(text: str) -> tuple[int, int] | None:
    """The words asking one figure's growth as a multiple of its start (涨了几倍), or None."""
    found = _GROWTH_MULTIPLE.search(text)
    return found.span() if found is not None else None


def _first_said(entity: Entity, text: str, after: int) -> int | None:
    """Where `entity` is first named at or after `after` (its id, name or an alias)."""
    places = []
    for name in {entity.id, entity.name, *entity.aliases}:
        if not name:
            continue
        edge = r"(?<![A-Za-z0-9])" if name[0].isascii() else ""
        tail = r"(?![A-Za-z0-9])" if name[-1].isascii() else ""
        for hit in re.finditer(edge + re.escape(name) + tail, text[after:], re.IGNORECASE):
            places.append(after + hit.start())
            break
    return min(places) if places else None


def ratio_sides(reading: Reading, ask: RatioAsk) -> tuple[str, str] | None:
    """(numerator id, denominator id) of a ratio between the reading's two names, or None."""
    if len(reading.entities) != 2:
        return None
    said = [(_first_said(e, reading.text, ask.after), e.id) for e in reading.entities]
    placed = sorted((at, ident) for at, ident in said if at is not None)
    if not placed:
        return None
    under = placed[0][1]
    over = next(e.id for e in reading.entities if e.id != under)
    return over, under


def as_ratio(reading: Reading, ask: RatioAsk) -> None:
    """Record the ratio's words and its two sides on the reading."""
    reading.family_spans.append((*ask.span, RATIO_CUE))
    sides = ratio_sides(reading, ask)
    if sides is None:
        return  # the words stay unhonoured: the answer declines them
    reading.ratio = sides
    reading.rank = True  # the two figures side by side, as a cross-section to divide
    over, under = sides
    reading.trace.append(
        f"倍数：{over}的数值除以{under}的数值"
        if reading.zh
        else f"a ratio: {over}'s figure over {under}'s (how many times)"
    )


# Measures whose window change can be said as a multiple of the start.
_GROWING = {"return", "cumulative_return", "close", "value", "price"}


def as_growth_multiple(reading: Reading, span: tuple[int, int]) -> None:
    """Record a growth asked as a multiple: the window's return, with the end over the start."""
    reading.family_spans.append((*span, MULTIPLE_CUE))
    compounded = "annualized_return" in reading.metrics
    if reading.metrics and not set(reading.metrics) <= _GROWING | {"annualized_return"}:
        return  # "how many-fold did its volatility rise": no multiple is planned; declined
    # "the CAGR, and how many times over did it grow": the yearly rate beside the multiple
    reading.metrics = ["annualized_return", "return"] if compounded else ["return"]
    reading.multiple = True
    english = "a growth multiple: the end's value over the start's"
    reading.trace.append("倍数：期末值除以期初值" if reading.zh else english)
