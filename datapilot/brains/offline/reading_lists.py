"""Reading lists: the members of an index or group, the universe narrowed to data, the market."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from datapilot.brains.offline.measures import (
    PER_MEMBER,
    members,
)
from datapilot.brains.offline.parsing import Parsed
from datapilot.data.catalog import Catalog

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading

# --- lists -------------------------------------------------------------------------------------


# "the S&P 500 stocks", "stocks in the S&P 500", 标普500里的股票: the index's members.
_STOCKS_AFTER = re.compile(
    r"(?i)^\s*(?:'s\s+)?(?:member\s+|component\s+|constituent\s+)?"
    r"(?:stocks|companies|names|shares|members|constituents|components)\b"
    r"|^\s*(?:里|中|内|里面|当中)?的?(?:股票|公司|个股)"
)
_STOCKS_BEFORE = re.compile(
    r"(?i)\b(?:stocks|companies|names|members|constituents|components)\s+(?:in|of|from)\s+"
    r"(?:the\s+)?$"
)


def members_named(parsed: Parsed) -> bool:
    """The question names an index's members, in words or as 成分股."""
    if parsed.has("metric:constituents"):
        return True
    text = parsed.text
    return any(
        m.entity.kind == "index"
        and (_STOCKS_AFTER.match(text[m.span[1] :]) or _STOCKS_BEFORE.search(text[: m.span[0]]))
        for m in parsed.mentions
    )


def read_members(reading: Reading, parsed: Parsed, catalog: Catalog) -> None:
    """ "The S&P 500 members' returns": the index's member list feeds a measure of each member."""
    if not reading.members_named:
        return
    per_member = [m for m in reading.metrics if m in PER_MEMBER or m in ("mean", "median")]
    if not any(m in PER_MEMBER for m in reading.metrics) and (reading.rank or reading.both_ends):
        # "Top 5 performers among the members", 哪只成分股跌得最多: ranked by their return.
        reading.metrics = ["return", *(m for m in reading.metrics if m not in ("close", "value"))]
        per_member = ["return", *per_member]
        reading.trace.append(
            "成分股排名，未指明指标 → 收益率"
            if reading.zh
            else "a ranking of members with no measure named → return"
        )
    if reading.universe:  # 成分股 with no index named: the bundled members already
        reading.metrics = [m for m in reading.metrics if m != "constituents"]
        return
    indices = [e for e in reading.entities if e.kind == "index"]
    if not per_member or len(indices) != 1:
        return
    found = members(indices[0], catalog)
    if not found:
        return  # the constituents step says no member list is bundled
    reading.entities = found
    reading.members_of = indices[0].id
    reading.metrics = [m for m in reading.metrics if m != "constituents"]
    if len(found) >= 2 and not any(m in reading.metrics for m in ("mean", "median")):
        reading.rank = True
    reading.trace.append(
        f"a measure of each member of {indices[0].id}: the {len(found)} members with bundled "
        "data, one by one"
    )


# --- availability ------------------------------------------------------------------------------


def narrow_universe(reading: Reading) -> None:
    """Keep the bundled stocks with data in the window."""
    start, end = reading.start, reading.end
    covered = [
        e
        for e in reading.entities
        if not (start and e.last and e.last < start) and not (end and e.first and e.first > end)
    ]
    reading.entities = covered or reading.entities
    if reading.members_of:
        reading.trace.append(f"{len(reading.entities)} of them have data in the window")
        return
    reading.trace.append(
        f"no entity named: ranking all {len(reading.entities)} bundled stocks "
        "with data in the window"
    )


MARKET = "^GSPC"


def add_market(reading: Reading, catalog: Catalog) -> None:
    """Beta is measured against a market: an index the question names, else the S&P 500."""
    if any(e.kind == "index" for e in reading.entities):
        return
    market = catalog.get(MARKET)
    if market is not None:
        reading.entities.append(market)
        reading.trace.append(f"beta needs a market: {market.name} ({market.id})")
