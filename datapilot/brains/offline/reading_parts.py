"""Multi-part questions: each measure keeps the window said beside it.

"Coca-Cola's return in 2018 and its volatility in 2020" asks two things; merged, both would be
measured over 2018–2020. Each measure word pairs with the time phrase beside it (after it in
English, before it in Chinese: 2018年的收益率), and the planner answers each part over its own
window. The parts are split only when every measure asked finds its phrase.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from datapilot.brains.offline.basis import window_between
from datapilot.brains.offline.family_asks import read_when_ask
from datapilot.brains.offline.first_back import read_first_ask
from datapilot.brains.offline.first_day import read_first_day_ask
from datapilot.brains.offline.honour import GAP
from datapilot.brains.offline.how_much import closes_bound_a_move
from datapilot.brains.offline.level_changes import (
    LEVEL_GAP,
    asks_level_change,
    asks_rate_change,
    moves_against_a_period,
)
from datapilot.brains.offline.parsing import Parsed
from datapilot.brains.offline.parts import Part, part_of, split_into
from datapilot.brains.offline.periods import calendar_unit, period_holding
from datapilot.brains.offline.points_beside import dated_windows, points_and_a_span
from datapilot.brains.offline.ratios import read_ratio_ask
from datapilot.brains.offline.windows import Clause
from datapilot.core.intent import IntentPart

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading


_EXTREME = r"(?:high|highs|peak|top|low|lows|bottom|trough)"
_EXTREME_ZH = r"(?:高点|最高点?|低点|最低点?|峰值|谷底)"
# "from its 2014 high to its 2016 low", 从2014年的高点到2016年的低点: two extremes, each of its
# own dated period (a peak to its trough is a drawdown, read elsewhere).
_EXTREME_TO_EXTREME = re.compile(
    rf"(?i)\bfrom\s+(?:its|the|their)\s+[^.?!,]{{0,20}}?(?P<a>\d{{4}})[^.?!,]{{0,12}}?\b{_EXTREME}\b"
    rf"[^.?!,]{{0,12}}?\bto\s+(?:its|the|their)\s+[^.?!,]{{0,20}}?(?P<b>\d{{4}})[^.?!,]{{0,12}}?"
    rf"\b{_EXTREME}\b"
    rf"|(?P<c>\d{{4}})年?[^，,。？?\d]{{0,6}}?{_EXTREME_ZH}[^，,。？?]{{0,6}}?到[^，,。？?\d]{{0,6}}?"
    rf"(?P<d>\d{{4}})年?[^，,。？?\d]{{0,6}}?{_EXTREME_ZH}"
)


# The periods just named, taken up again as the two ends of one move: "between those two
# quarters", "between them", 这两个季度之间, 两者之间.
_BETWEEN_THOSE = re.compile(
    r"(?i)\bbetween\s+(?:those|these|the)\s+(?:two|2)\b|\bbetween\s+them\b"
    r"|(?:这|那)(?:两|2)个?[^，。？！,?]{0,3}之间|两者之间"
)


def read_parts(reading: Reading, parsed: Parsed) -> None:
    """Split the question into parts when its measures sit beside different windows."""
    moved = _EXTREME_TO_EXTREME.search(parsed.text)
    dated = moved is not None and len({y for y in moved.group("a", "b", "c", "d") if y}) == 2
    if dated and {"return", "cumulative_return"} & set(reading.metrics):
        # "how much did it drop from its 2014 high to its 2016 low": one move between two
        # extremes of two windows, which no part (each window's statistics) answers; a chart
        # "from its 2000 peak to the 2002 bottom" is drawn over the years named.
        reading.status = "no_data"
        reading.message = (
            "这个问题问的是一个时段的高点到另一个时段的低点之间的变动，我还不能这样计算；"
            "可以分别问两个时段的最高和最低收盘价，我不会用别的数字代替。"
            if reading.zh
            else "This asks for the move from one period's high to another period's low, which "
            "I can't compute yet; ask for each period's highest and lowest close instead. I "
            "won't give other figures in its place."
        )
        return
    clauses = dated_windows(parsed)
    if points_and_a_span(clauses, parsed.text) and read_when_ask(parsed.text) is not None:
        return  # values at named periods beside a span's dated extreme: read after the families
    if _rate_at_two_periods(reading, parsed):
        return
    if _chained_moves(reading, parsed.time.clauses):
        return
    if parsed.time.basis:
        # "按1991年四季度对1990年四季度算，增长了百分之几": one period over the other decides; its
        # answer states both periods' values and the change between them, never each period's
        # own change
        return
    clauses = _without_echoes(clauses, parsed.group("metric"))
    if len({(c.start, c.end) for c in clauses}) < 2 or reading.tables:
        return
    if reading.members_of or reading.universe or "forecast" in reading.metrics:
        return
    if _BETWEEN_THOSE.search(parsed.text):
        # "how many bp did it move between those two quarters": one move between them, from the
        # first one's own value
        reading.base = "on_or_before"
        return
    if reading.amount is not None and len(clauses) == 2 and all(c.start == c.end for c in clauses):
        return  # "$500k … at the close on Dec 31, 2019 … worth at the close on Dec 31, 2021": held
    if moves_against_a_period(parsed.text):
        # "where was it in Dec 2008, and how many bps did it move versus Dec 2007": one move,
        # from the earlier period's own value
        reading.base = "on_or_before"
        return
    if closes_bound_a_move(parsed.text):
        return  # "between the 2019 year-end close and the 2021 year-end close": one move
    if read_first_ask(parsed.text) is not None:
        return  # "first close back above its Feb 19 close": that day names the level, not a part
    if read_first_day_ask(parsed.text) is not None:
        return  # "how far below its Feb 19 2020 close": that day is the reference, not a part
    if read_ratio_ask(parsed.text) is not None:
        # "2020's return was how many times its 2019 return": one figure over another, which
        # separate parts would each answer without the ratio asked; the ratio's reader decides.
        return
    # A series' "levels" are read as its values (close → value): the same measure, said; the
    # points of "how many points lower" are a difference's unit, not a measure.
    gaps = [f.span() for pattern in (GAP, LEVEL_GAP) for f in pattern.finditer(parsed.text)]
    said = [
        ("value" if m == "close" and "value" in reading.metrics else m, h)
        for m, h in parsed.group("metric")
        if m != "close" or not any(a <= h.start < b for a, b in gaps)
    ]
    hits = [(m, h) for m, h in said if m in reading.metrics]
    if not hits and reading.measure_defaulted and reading.metrics in (["value"], ["return"]):
        if _set_against(reading, parsed.text, clauses, hits):
            return  # "CPI在A和B分别是多少？从前者到后者变化了百分之几？": each level and the change
        # No measure word ("国库券利率1981年一季度和1990年一季度相比", "apple 2019 vs 2020 - which
        # year was better"): the values, or the returns, per window.
        _each_window(reading, clauses, reading.metrics[0], None, text=parsed.text)
        return
    if reading.measure_defaulted and reading.metrics in (["value", "stats"], ["close", "stats"]):
        # "the highest rate in the 1970s, and in the 1980s? Which quarters?": each window's
        # highest and lowest, dated, never the extreme of one window spanning both
        _each_window(reading, clauses, "stats", None, text=parsed.text)
        return
    asked = set(reading.metrics)
    if asked - {"value"} and "value" not in {m for m, _ in hits}:
        asked -= {"value"}  # a rate's values a statistic is taken of ("its 2000 average")
    if not hits or {m for m, _ in hits} != asked:
        return  # a measure the rules refined or added: no safe pairing
    if _set_against(reading, parsed.text, clauses, hits):
        return
    if len(hits) == 1:
        # One measure said once over separate windows ("Apple's return in 2019 and in 2021"):
        # each window is a part of its own, never one window spanning both.
        _each_window(reading, clauses, *hits[0], text=parsed.text)
        return
    paired: dict[int, list[str]] = {}
    words: dict[int, list[str]] = {}
    for metric, hit in hits:
        before = [i for i, c in enumerate(clauses) if c.span[1] <= hit.start]
        after = [i for i, c in enumerate(clauses) if c.span[0] >= hit.end]
        # A phrase right before the word qualifies it ("its 2000 average", "the 1990 average").
        touching = before and not parsed.text[clauses[before[-1]].span[1] : hit.start].strip()
        near = (before[-1:] + after[:1]) if reading.zh or touching else (after[:1] + before[-1:])
        if not near:
            return
        paired.setdefault(near[0], [])
        if metric not in paired[near[0]]:
            paired[near[0]].append(metric)
        words.setdefault(near[0], []).append(hit.text)
    windows = {(clauses[i].start, clauses[i].end) for i in paired}
    if len(windows) < 2 and len({metric for metric, _ in hits}) == 1:
        # One measure said twice next to each other ("core CPI inflation year over year in June
        # 2008, and in June 2018"): one measure over each window
        _each_window(reading, clauses, *hits[0], text=parsed.text)
        return
    if len(windows) < 2 or windows < {(c.start, c.end) for c in clauses}:
        return  # (a period no measure is said beside, "in June 2013 and June 2015": no pairing)
    parts = [part_of(clauses[i], paired[i], words[i], reading.zh) for i in sorted(paired)]
    changed = _changes_between(parts, [clauses[i] for i in sorted(paired)], parsed.text)
    if changed != parts and all(e.frequency == reading.frequency for e in reading.entities):
        # "Brent crude monthly price …": the word says what the data is, not that each month's
        # change is asked; the change asked runs between the two periods.
        reading.frequency = None
    split_into(reading, changed)


# "the price in January 2020, and the change versus January 2019": a change said against a
# period is measured from that period to the other part's.
_VERSUS_BEFORE = re.compile(
    r"(?i)(?:versus|vs\.?|compared\s+(?:with|to)|relative\s+to|against|相比|对比|较)\s*(?:the\s+)?$"
)
# (A year-over-year rate is each period's own: "Q2 1980 vs Q2 2008" compares two of them.)
_CHANGES = {"pop", "return", "cumulative_return"}


def _changes_between(parts: list[Part], clauses: list[Clause], text: str) -> list[Part]:
    """Each part asking a change against another part's period, over the window between them."""
    if len(parts) != 2:
        return parts
    out = list(parts)
    for i, (part, clause) in enumerate(zip(parts, clauses, strict=True)):
        other = clauses[1 - i]
        # "the year-over-year % change versus June 2007" beside June 2008: the same change
        changes = _CHANGES | ({"yoy"} if _a_year_apart(clause, other) else set())
        if not set(part.part.metrics) <= changes or not _VERSUS_BEFORE.search(
            text[: clause.span[0]]
        ):
            continue
        if None in (clause.start, clause.end, other.start, other.end):
            continue
        if all((c.end - c.start).days > 92 for c in (clause, other)):  # type: ignore[operator]
            # two stretches of years set against each other ("HML compounded: 2007-2011 vs
            # 2012-2017"): each one's own change, never one between them
            continue
        periods = ((clause.start, clause.end), (other.start, other.end))
        between = window_between(periods)  # type: ignore[arg-type]
        if between is None:
            continue
        out[i] = Part(
            part=IntentPart(
                text=part.part.text, metrics=["return"], start=between[0], end=between[1]
            ),
            base="before",
        )
    return out


def _a_year_apart(one: Clause, other: Clause) -> bool:
    """Whether two periods are the same calendar period a year apart (June 2007, June 2008)."""
    if None in (one.start, one.end, other.start, other.end):
        return False
    early, late = sorted(((one.start, one.end), (other.start, other.end)))
    unit = calendar_unit(*early)  # a month, quarter or year: its start is a first of the month
    return (
        unit is not None
        and calendar_unit(*late) == unit
        and late[0] == early[0].replace(year=early[0].year + 1)  # type: ignore[union-attr]
    )


# Two periods set against each other with the measures said for both: "Jan 2020 vs Jan 2019 -
# levels and % change", "levels and % change, 2019 vs 2018".
_AGAINST = re.compile(
    r"(?i)^\s*(?:(?:monthly|quarterly|weekly|daily)\s+)?(?:(?:reading|print|value|level|figure|"
    r"number|close)s?\s+)?(?:vs\.?|versus|against|compared\s+(?:with|to)|相比|对比)\s*$"
)


_AND = re.compile(r"(?i)^\s*(?:,\s*)?(?:and|&|和|与|跟|同|、)\s*(?:in\s+|at\s+|on\s+|在)?\s*$")
# The change between the two asked in words that point back at them.
_FIRST_TO_SECOND = re.compile(
    r"(?i)\bfrom\s+the\s+(?:first|former|earlier)\s+(?:one\s+)?to\s+the\s+(?:second|latter|later)"
    r"|\bbetween\s+(?:them|the\s+two)\b|从前者到后者|前者到后者|两者之间|两者相比"
    # the change over both, said as a total: "一共增长了百分之多少", "how much in total"
    r"|(?:一共|总共|合计|累计)(?:增长|上涨|涨|下降|下跌|跌|变化|变动)|\bin\s+total\b"
)
_CHANGE_SAID = re.compile(r"(?i)change|chg|\bdiff|变化|变动|增长|增幅|涨跌")


def _set_against(reading: Reading, text: str, clauses: list[Clause], hits: list[Any]) -> bool:
    """Each period's levels, and the change from the earlier to the later, when two periods are
    set against each other and every measure is said outside the pair; False otherwise."""
    if len(clauses) != 2:
        return False
    first, second = sorted(clauses, key=lambda c: c.span[0])
    # (brackets around the periods, "(Q1 1993) vs … (Q1 2001)", set nothing apart)
    gap = re.sub(r"[()（）]", " ", text[first.span[1] : second.span[0]])
    # "GDP in 1990Q3 and in 1991Q1, and the percent change from the first to the second"
    paired = _AND.match(gap) is not None and (
        _FIRST_TO_SECOND.search(text) is not None or asks_rate_change(text)
    )
    if not _AGAINST.match(gap) and not paired:
        return False
    # Every measure outside the pair ("avg price, Jan 2020 vs Jan 2019 - levels and % change"):
    # none said of one period alone.
    # (a measure word said between them as what is set against, "Dec 2008 monthly reading vs
    # Jun 2008", is the pair's own)
    outside = all(
        h.start >= second.span[1] or h.end <= first.span[0]
        for _, h in hits
        if not (first.span[1] <= h.start and h.end <= second.span[0])
    )
    if not outside or None in (first.start, first.end, second.start, second.end):
        return False
    levels = [m for m in reading.metrics if m not in _CHANGES]
    # (a factor's values are returns: "HML compounded: 2007-2011 vs 2012-2017" compounds each)
    returns = bool(reading.entities) and all(e.measure == "returns" for e in reading.entities)
    if not levels and (paired or not (reading.price_entities or returns)):
        # "GDP in 1990Q3 and in 1991Q1, and the percent change from the first to the second":
        # the two periods named are each one's level, beside the change between them (a
        # stock's "2019 vs 2020 … by how many points" compares each year's return instead)
        levels = ["close" if reading.price_entities else "value"]
    if "mean" in levels:
        levels = [m for m in levels if m != "value"]  # a period's level is its average
    # A change said as one ("% change", 变化): a return each period could have is no change
    # between them ("close and return, 2020 vs 2019").
    changes = [m for m, h in hits if m in _CHANGES and _CHANGE_SAID.search(h.text)]
    rates_of_change = {"yoy", "qoq", "mom"} & set(levels)  # (their gap is no level's change)
    if (asks_rate_change(text) or asks_level_change(text)) and not rates_of_change:
        changes.append("return")  # "both monthly levels and the move in bps"
    if paired and not changes:
        changes.append("return")  # "从前者到后者变化了百分之几": the change between them
    parts = [part_of(c, levels, [], reading.zh) for c in (first, second)] if levels else []
    between = window_between(((first.start, first.end), (second.start, second.end)))  # type: ignore[arg-type]
    if changes and between is not None:
        earlier, later = sorted((first, second), key=lambda c: c.end)  # type: ignore[arg-type,return-value]
        said = f"{earlier.text}→{later.text}" if reading.zh else f"{earlier.text} to {later.text}"
        # a spread's change is the spread's own move between the two (in its points), never its
        # legs' returns
        spread = "spread" in levels
        # (a spread's move runs from the earlier period's own value: its first observation)
        start = earlier.start if spread and earlier.start is not None else between[0]
        change = IntentPart(
            text=said, metrics=["spread" if spread else "return"], start=start, end=between[1]
        )
        parts.append(Part(part=change, base="before"))
    if len(parts) < 2:
        return False
    if changes:
        reading.frequency = None  # the change runs between the two periods, not month by month
    split_into(reading, parts)
    return True


def _chained_moves(reading: Reading, said: list[Clause]) -> bool:
    """ "From the 1990Q3 peak to the 1991Q1 trough, how far did it fall? And then to 1993Q1, how
    much did it grow?": one start and two ends said one after the other are two moves, the
    second from the first's end; never one window spanning all to today."""
    ordered = sorted(said, key=lambda c: c.span[0])
    rules = [c.rule for c in ordered]
    # (a period named before them, "1990–91年那次衰退", only says which episode)
    while rules[:1] == ["period"] and len(rules) > 3:
        ordered, rules = ordered[1:], rules[1:]
    if rules != ["since", "until", "until"] or not {"return", "cumulative_return"} & set(
        reading.metrics
    ):
        return False
    start, middle, last = ordered[0].start, ordered[1].end, ordered[2].end
    if start is None or middle is None or last is None or not start < middle < last:
        return False
    parts = [
        Part(
            part=IntentPart(
                text=f"{ordered[0].text}{ordered[1].text}",
                metrics=["return"],
                start=start,
                end=middle,
            ),
            base="on_or_before",
        ),
        Part(
            part=IntentPart(text=ordered[2].text, metrics=["return"], start=middle, end=last),
            base="on_or_before",
        ),
    ]
    split_into(reading, parts)
    return True


def _without_echoes(clauses: list[Clause], hits: list[tuple[str, Any]]) -> list[Clause]:
    """Drop a phrase that only names again a window said before it: "in Q1 1981 vs Q1 1990 — how
    much lower was it in 1990?" asks about Q1 1990, not all of 1990. A measure first said
    between them asks it of the wider window: "its close on Dec 30 2011, and its average close
    for 2011"."""
    kept: list[Clause] = []
    for clause in sorted(clauses, key=lambda c: c.span[0]):
        span = (clause.start, clause.end)
        inner = [k for k in kept if _inside((k.start, k.end), span) and (k.start, k.end) != span]
        if inner and not _measure_said_between(inner[-1], clause, hits):
            continue
        kept.append(clause)
    return kept


def _measure_said_between(earlier: Clause, later: Clause, hits: list[tuple[str, Any]]) -> bool:
    """A statistic said after a day or a range (before the wider period, or after it as Chinese
    says it: 2011年全年的平均收盘价; "the change from 1981Q3 to 1982Q4, and the peak over
    1981-1983") that was not said before it."""
    if earlier.start != earlier.end and earlier.rule != "range":
        return False  # (a period's figure, then the wider period's statistic: an echo)
    before = {m for m, h in hits if h.start < earlier.span[1]}
    return later.span[0] > earlier.span[0] and any(
        m in _STATISTICS and m not in before and earlier.span[1] <= h.start for m, h in hits
    )


# Measures of a window as a whole, asked of a wider window after a day's figure.
_STATISTICS = {"mean", "median", "stats", "volatility", "max_drawdown"}


def _inside(inner: tuple[Any, Any], outer: tuple[Any, Any]) -> bool:
    return None not in (*inner, *outer) and outer[0] <= inner[0] and inner[1] <= outer[1]


# A sentence ends between two time phrases: "去年涨了多少？今年以来呢？", "Return in 2021? And YTD?"
_SENTENCE_END = re.compile(
    r"[?？!！。;；]|\.\s"
    # a question of its own after a comma: "how did it do last year, and how's it doing YTD"
    r"|(?i:[,，]\s*(?:and\s+|but\s+)?(?:how|what)(?:'s|’s|\s+(?:is|was|did|does|has|about))\b)"
)


def _each_window(
    reading: Reading, clauses: list[Clause], metric: str, hit: Any, text: str = ""
) -> None:
    """The one measure over each of several windows that do not overlap."""
    spans = sorted({(c.start, c.end) for c in clauses if c.start and c.end})
    ordered = sorted(clauses, key=lambda c: c.span[0])
    # Each window asked in a sentence of its own is a question of its own, however long.
    asked_apart = bool(text) and all(
        _SENTENCE_END.search(text[a.span[1] : b.span[0]]) for a, b in itertools.pairwise(ordered)
    )
    # Lengths anchored on days ("the two weeks after D … the two weeks before E") are windows
    # the user drew, however short; "10 trading days before D and 10 after D" meet on D, the
    # day the first ends and the second's base close.
    anchored = all(c.rule == "duration" for c in clauses)
    # Windows to the same day from the starts of calendar periods ("YTD and month-to-date",
    # 今年以来和本月以来): a report's columns, each asked
    to_date = (
        len(spans) > 1
        and {end for _, end in spans} == {reading.today}
        and all(start.day == 1 for start, _ in spans)
    )
    if not to_date and any(
        later[0] < earlier[1] or (later[0] == earlier[1] and not anchored)
        for earlier, later in itertools.pairwise(spans)
    ):
        return  # nested or touching windows ("in 2021, and in March"): not parts of a comparison
    lengths = [(end - start).days + 1 for start, end in spans]
    if (
        not asked_apart
        and not to_date
        and ((min(lengths) < 28 and not anchored) or max(lengths) > 1.5 * min(lengths))
    ):
        # Days ("invested at the start of 2015 … at the end of 2020") bound one span; only
        # periods alike (two years, two halves, two months) are compared side by side.
        return
    firsts: dict[tuple[Any, Any], Clause] = {}
    for clause in clauses:
        firsts.setdefault((clause.start, clause.end), clause)
    words = [hit.text] if hit is not None else []
    split_into(reading, [part_of(c, [metric], words, reading.zh) for c in firsts.values()])


def _rate_at_two_periods(reading: Reading, parsed: Parsed) -> bool:
    """ "1980年3月核心CPI同比是多少？到1982年3月同比回落了多少个百分点？": a rate of change at one
    period, and by how many points it moved by a later one of the same length: its value at
    each, whose difference the answer states; False when the question is not that."""
    if reading.metrics != ["yoy"] or not asks_rate_change(parsed.text):
        return False
    periods = [c for c in parsed.time.clauses if c.rule == "period" and c.start and c.end]
    until = [c for c in parsed.time.clauses if c.rule == "until" and c.end]
    if len(periods) != 1 or len(until) != 1 or len(parsed.time.clauses) != 2:
        return False
    first, later = periods[0], until[0]
    unit = calendar_unit(first.start, first.end)
    if unit is None or later.end is None or first.end is None or later.end <= first.end:
        return False
    start, end = period_holding(later.end, unit)
    if end != later.end:
        return False  # "to the middle of 1982": no period of the same length
    second = later.model_copy(update={"start": start, "rule": "period"})
    split_into(reading, [part_of(c, ["yoy"], [], reading.zh) for c in (first, second)])
    return True
