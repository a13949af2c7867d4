"""One quantity at two frequencies ("WTI crude oil spot price", daily, and "WTI crude oil price
(monthly)"): which of the two a question means once its measures are read.

- **A frequency said of the data** ("use the monthly prices", 用月度数据) moves every series to
  its sibling of that frequency.
- **Series combined value by value** (a spread, a ratio, a correlation: "how much pricier was
  Brent than WTI", 布伦特比WTI贵多少) are taken at one frequency, so a monthly value is never set
  against one day's; a note says which series stood in.

A swap is recorded in `reading.swapped`, so the ledger says the name meant the series used.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.refusals import PERIOD_ZH, chinese_name
from datapilot.data.catalog import Catalog, Entity

if TYPE_CHECKING:  # reading.py calls in here
    from datapilot.brains.offline.reading import Reading

# Words that say a series' frequency inside its alias ("monthly WTI", 布伦特原油日度).
_FREQUENCY_WORDS = re.compile(
    r"(?i)\b(?:daily|weekly|monthly|quarterly|annual|spot)\b|日度|周度|月度|季度|年度|现货"
)
_WORDS = ("monthly", "daily", "weekly", "quarterly")
_ANY = re.compile(rf"(?i)\b(?:{'|'.join(_WORDS)})\b|月度|日度|周度|季度|月均|月平均")
# The frequency said of the data, not of a name ("use the monthly prices", 用月度数据): "WTI
# daily and Brent monthly" or "the monthly Brent premium" name their series themselves.
_SAID = re.compile(
    rf"(?i)\b({'|'.join(_WORDS)})[\s-]+(?:prices?|data|figures?|values?|series|numbers|averages?|"
    r"avg\.?|"
    r"readings?|observations|basis|closes?)\b|(月度|日度|周度|季度)(?:数据|价格|数值|均价)"
    r"|(月均|月平均)"  # 月均价: each month's average, which a monthly series is
)
_ZH = {"月度": "monthly", "日度": "daily", "周度": "weekly", "季度": "quarterly"}
_ZH |= {"月均": "monthly", "月平均": "monthly"}  # each month's average: a monthly series' value
# Coarser first: where either frequency would do, a month's value (the mean of its days) is
# the one both series publish.
_COARSE = ("annual", "quarterly", "monthly", "weekly", "daily")
# Measures that set two series' values against each other, date by date.
_COMBINING = {"spread", "ratio", "correlation"}
# Kinds priced by the session: one frequency each, never a sibling.
_PRICED = {"stock", "etf", "index", "fund"}


def sibling_series(entity: Entity, catalog: Catalog) -> list[Entity]:
    """The same quantity at another frequency: "WTI crude oil spot price" (daily) and "WTI
    crude oil price (monthly)", found by an alias of one that the other repeats with a
    frequency word ("WTI" and "monthly WTI")."""

    def bare(aliases: list[str]) -> set[str]:
        return {" ".join(_FREQUENCY_WORDS.sub(" ", a).split()).casefold() for a in aliases}

    own = bare(entity.aliases)
    return [
        other
        for other in catalog.entities()
        if other.id != entity.id
        and other.kind == entity.kind
        and other.frequency != entity.frequency
        and own & bare(other.aliases)
        and any(_FREQUENCY_WORDS.search(a) for a in [*entity.aliases, *other.aliases])
    ]


def frequency_zh(frequency: str | None) -> str:
    """A series' frequency as its Chinese name says it: 月度, 季度, 日度."""
    every = PERIOD_ZH.get(frequency or "", "")
    return every if every.endswith("度") else every + "度"


def swap_series(reading: Reading, index: int, sibling: Entity) -> None:
    """Answer `reading.entities[index]` from `sibling`, and remember which name meant it."""
    said = reading.entities[index]
    reading.entities[index] = sibling
    first = next((k for k, v in reading.swapped.items() if v == said.id), said.id)
    reading.swapped[first] = sibling.id


def said_frequency(text: str) -> str | None:
    """The one frequency the question says of its data ("use the monthly prices"), if any."""
    said = _SAID.search(text)
    if said is None or len(_ANY.findall(text)) != 1:
        return None
    return (said.group(1) or _ZH[said.group(2) or said.group(3)]).casefold()


def align_series(reading: Reading, text: str, catalog: Catalog) -> None:
    """Take each series at the frequency the question says of its data, or, when its measure
    combines series value by value, at one frequency they all have."""
    wanted = said_frequency(text)
    if wanted is not None:
        named = {e.id for e in reading.entities}
        for entity in list(reading.entities):
            twin = next((s for s in sibling_series(entity, catalog) if s.frequency == wanted), None)
            if entity.frequency != wanted and twin is not None and twin.id in named:
                # "油价…用WTI月度数据计": the oil price is the monthly WTI named, no second one
                reading.entities.remove(entity)
                reading.trace.append(f"{entity.id} is {twin.id}, at the frequency asked")
        for index, entity in enumerate(list(reading.entities)):
            if entity.kind in _PRICED or entity.frequency == wanted:
                continue
            sibling = _sibling_at(entity, wanted, reading, catalog)
            if sibling is not None:
                swap_series(reading, index, sibling)
                reading.trace.append(f"{entity.id} at the frequency asked: {sibling.id}")
        return
    if set(reading.metrics) & _COMBINING:
        _combine_at_one_frequency(reading, text, catalog)


def _says(text: str, frequency: str) -> bool:
    return any(_ZH.get(word, word.casefold()) == frequency for word in _ANY.findall(text))


def _sibling_at(
    entity: Entity, frequency: str, reading: Reading, catalog: Catalog
) -> Entity | None:
    named = {e.id for e in reading.entities}
    return next(
        (
            s
            for s in sibling_series(entity, catalog)
            if s.frequency == frequency and s.available and s.id not in named
        ),
        None,
    )


def _combine_at_one_frequency(reading: Reading, text: str, catalog: Catalog) -> None:
    series = [(i, e) for i, e in enumerate(reading.entities) if e.kind not in _PRICED]
    frequencies = {e.frequency for _, e in series if e.frequency is not None}
    if len(series) < 2 or len(frequencies) < 2:
        return
    # The fewest series moved; then the coarser frequency, or for one day's values the finer.
    finer = reading.start is not None and reading.start == reading.end

    def preference(frequency: str) -> tuple[int, int]:
        coarse = _COARSE.index(frequency) if frequency in _COARSE else len(_COARSE)
        return sum(e.frequency != frequency for _, e in series), -coarse if finer else coarse

    order = sorted(frequencies, key=preference)
    for frequency in order:
        moves = {
            i: _sibling_at(e, frequency, reading, catalog)
            for i, e in series
            if e.frequency != frequency
        }
        if any(s is None for s in moves.values()):
            continue
        for index, sibling in moves.items():
            assert sibling is not None
            said = reading.entities[index]
            swap_series(reading, index, sibling)
            reading.trace.append(f"{said.id} combined at one frequency: {sibling.id}")
            if _says(text, frequency):
                continue  # "the monthly Brent premium over WTI": as asked, nothing to say
            reading.notes.append(
                f"{chinese_name(said)}（{said.id}）改用同一数据的{frequency_zh(frequency)}序列"
                f"{chinese_name(sibling)}（{sibling.id}），两者按同一频率对比。"
                if reading.zh
                else f"{said.name} ({said.id}) is taken as its {frequency} series "
                f"{sibling.name} ({sibling.id}), so both are compared at one frequency."
            )
        return
