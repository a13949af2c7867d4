"""Counts of one name's periods up or down, asked on their own: "how many months was KO up in
2019", "how many quarters did Apple fall", 有几个月是涨的, 几个月上涨, 上涨的月份有几个.

Each period's move is its return on the previous period's last close (January's on December's),
so the answer counts the window's months (quarters, weeks, years) with a return above or below
zero. Sessions are counted by `family_asks.read_count_ask`; a count beside another figure ("the
average monthly return, and how many months were up") by the planner's tally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from datapilot.brains.offline.phrases import Span
from datapilot.core.intent import Frequency

_UNIT_EN: dict[str, Frequency] = {
    "week": "weekly",
    "month": "monthly",
    "quarter": "quarterly",
    "year": "annual",
}
_UNIT_ZH: dict[str, Frequency] = {"周": "weekly", "星期": "weekly", "月": "monthly"}
_UNIT_ZH |= {"月份": "monthly", "季度": "quarterly", "季": "quarterly"}
_UNIT_ZH |= {"年": "annual", "年份": "annual"}

# A quantity's own verbs too: GDP or investment "grew", "expanded", "shrank", "contracted".
_UP = r"up|positive|higher|green|gain(?:ed|s)?|r[io]se|rising|climb(?:ed)?|advanc(?:ed|e)"
_UP += r"|gr[oe]w|grown|expand(?:ed)?"
_DOWN = r"down|negative|lower|red|f[ae]ll|falling|los(?:e|t|s)|declin(?:ed|e)|drop(?:ped)?"
_DOWN += r"|shr[iau]nk|contract(?:ed)?"
_TALLY_EN = re.compile(
    # "how many months from 2012 to 2016 did Johnson & Johnson finish higher": the window and
    # the name may sit between, within the clause
    r"(?i)\bhow\s+many\s+(?:of\s+(?:the|its|their|those|these)\s+(?:\d+\s+)?)?"
    r"(?P<unit>week|month|quarter|year)s\b"
    rf"[^.?!;,]{{0,70}}?\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b"
    rf"|\bhow\s+many\s+(?:(?P<up2>up|positive|green|winning)|(?P<down2>down|negative|red|losing))"
    r"\s+(?P<unit2>week|month|quarter|year)s\b"
    rf"|\b(?:number|count|tally)\s+of\s+(?:(?P<up3>up|positive|green)|(?P<down3>down|negative|red))"
    r"\s+(?P<unit3>week|month|quarter|year)s\b"
    # "what share of months did it finish up", "the percentage of its quarters that were down"
    r"|\b(?:share|percentage|percent|proportion|fraction|ratio)\s+of\s+(?:the\s+|its\s+|their\s+)?"
    rf"(?P<unit4>week|month|quarter|year)s\b[^.?!;,]{{0,40}}?\b(?:(?P<up4>{_UP})|(?P<down4>{_DOWN}))\b"
    # "out of the 120 months from 2010 through 2019, in how many did it finish up" (what share)
    r"|\b(?:out\s+)?of\s+(?:the|its|those|these|all)\s+(?:\d+\s+)?(?:(?:calendar|full)\s+)?"
    r"(?P<unit5>week|month|quarter|year)s\b"
    r"[^.?!;]{0,60}?\b(?:how\s+many|what\s+(?:share|percentage|percent|fraction|proportion))\b"
    rf"[^.?!;,]{{0,40}}?\b(?:(?P<up5>{_UP})|(?P<down5>{_DOWN}))\b"
)
# A number after the move ("up more than 5%") asks a threshold, which a count of signs is not.
_THRESHOLD_AFTER = re.compile(
    r"(?i)^\s*(?:by\s+)?(?:more|less|over|above|under|at\s+least|than(?=\s*[-−$]?\s*\d))\b"
)

_ZH_UNIT = r"(?P<unit>月份|月|季度|季|周|星期|年份|年)"
_ZH_UP = r"上涨|收涨|涨|正|盈利|收红|收阳"
_ZH_DOWN = r"下跌|收跌|跌|负|亏损|收绿|收阴"
# "几个月" after 过去/最近/前 is a length ("过去几个月涨了多少"), not a count of months.
_TALLY_ZH = re.compile(
    r"(?<!过去)(?<!最近)(?<![近前后这那])(?:有)?(?:几|多少)个?" + _ZH_UNIT
    + rf"(?:是|为|收|出现|在)?(?:(?P<up>{_ZH_UP})|(?P<down>{_ZH_DOWN}))(?![了幅跌])"
    rf"|(?:(?P<up2>{_ZH_UP})|(?P<down2>{_ZH_DOWN}))的?" + _ZH_UNIT.replace("unit", "unit2")
    + r"(?:数|数量)?(?:有|是|共)?(?:几个|多少个?|几)"
    # 上涨月份占比, 上涨的月份占多少比例, 多少比例的月份是上涨的
    + rf"|(?:(?P<up3>{_ZH_UP})|(?P<down3>{_ZH_DOWN}))的?" + _ZH_UNIT.replace("unit", "unit3")
    + r"(?:数|数量)?(?:的)?(?:占比|比例|比重|占(?:了)?(?:多少|几成|百分之几))"
    + r"|(?:多大|多少)(?:比例|比重|占比)的?" + _ZH_UNIT.replace("unit", "unit4")
    + rf"(?:是|为|收|出现)?(?:(?P<up4>{_ZH_UP})|(?P<down4>{_ZH_DOWN}))"
)  # fmt: skip


@dataclass(frozen=True)
class PeriodTally:
    """The periods counted (`monthly`…), the side asked (`up` or `down`) and the words said."""

    period: Frequency
    side: str
    spans: tuple[Span, ...]


# The return whose sign is counted, said after the sign ("a positive return", 正收益): part of
# the count's words, not a measure of its own.
_SIGNED_RETURN = re.compile(r"(?i)\s*(?:returns?|performance)\b|收益率?|回报率?")


def read_period_tally(text: str) -> PeriodTally | None:
    """The count of periods up or down `text` asks for, or None."""
    found = _TALLY_EN.search(text)
    if found is not None and not _THRESHOLD_AFTER.match(text[found.end() :]):
        units = ("unit", "unit2", "unit3", "unit4", "unit5")
        unit = next(found[u] for u in units if found[u]).lower()
        fell = any(found[f"down{n}"] for n in ("", "2", "3", "4", "5"))
        return PeriodTally(_UNIT_EN[unit], "down" if fell else "up", (_with_return(text, found),))
    found = _TALLY_ZH.search(text)
    if found is not None and not re.match(r"\s*\d", text[found.end() :]):
        period = _zh_period(found)
        down = found["down"] or found["down2"] or found["down3"] or found["down4"]
        # The same count asked again (有多少个月是上涨的？上涨月份占比多少？): its share.
        spans = tuple(
            _with_return(text, m) for m in _TALLY_ZH.finditer(text) if _zh_period(m) == period
        )
        return PeriodTally(period, "down" if down else "up", spans)
    return None


def _with_return(text: str, found: re.Match[str]) -> Span:
    start, end = found.span()
    signed = _SIGNED_RETURN.match(text, end)
    return (start, signed.end() if signed else end)


def _zh_period(found: re.Match[str]) -> Frequency:
    return _UNIT_ZH[found["unit"] or found["unit2"] or found["unit3"] or found["unit4"]]
