"""A series asked at a frequency it has a sibling for: "How much pricier was Brent than WTI in
July 2008? use the monthly prices" means the monthly WTI series (its catalog name "monthly WTI"),
not the daily one resampled. The question's one frequency word, said of the data ("monthly
prices", 月度数据) rather than beside a name, moves a name to the sibling the catalog names with
that word ("monthly WTI" beside "WTI", "daily Brent" beside "Brent"), when the question does not
already say the sibling's own name.
"""

from __future__ import annotations

import re
import weakref

from datapilot.data.catalog import Catalog

_WORDS = ("monthly", "daily", "weekly", "quarterly")
_ANY = re.compile(rf"(?i)\b(?:{'|'.join(_WORDS)})\b|月度|日度|周度")
# The frequency said of the data, not of a name ("use the monthly prices", 用月度数据): "WTI
# daily and Brent monthly" or "the monthly Brent premium" name their series themselves.
_SAID = re.compile(
    rf"(?i)\b({'|'.join(_WORDS)})\s+(?:prices?|data|figures?|values?|series|numbers|averages?|"
    r"readings?|observations|basis|closes?)\b|(月度|日度|周度)(?:数据|价格|数值|均价)"
)
_ZH = {"月度": "monthly", "日度": "daily", "周度": "weekly"}
_SIBLING = re.compile(rf"(?i)^(?:({'|'.join(_WORDS)})\s+(.+)|(.+?)\s+({'|'.join(_WORDS)}))$")
_kept: weakref.WeakKeyDictionary[Catalog, dict[tuple[str, str], str]] = weakref.WeakKeyDictionary()


def _siblings(catalog: Catalog) -> dict[tuple[str, str], str]:
    """(frequency, another entity's name, lower-cased) → the sibling's own name for it."""
    if catalog in _kept:
        return _kept[catalog]
    owners: dict[str, str] = {}
    for entity in catalog.entities():
        for name in (entity.name, *entity.aliases):
            owners.setdefault(name.casefold(), entity.id)
    found: dict[tuple[str, str], str] = {}
    for entity in catalog.entities():
        for name in entity.aliases:
            said = _SIBLING.match(name)
            if said is None:
                continue
            frequency = (said.group(1) or said.group(4)).casefold()
            base = (said.group(2) or said.group(3)).casefold()
            if owners.get(base, entity.id) != entity.id:
                found.setdefault((frequency, base), name)
    _kept[catalog] = found
    return found


def with_frequency_siblings(text: str, catalog: Catalog) -> str:
    """`text` with a name moved to its sibling of the frequency the question says."""
    said = _SAID.search(text)
    if said is None or len(_ANY.findall(text)) != 1:
        return text
    frequency = (said.group(1) or _ZH[said.group(2)]).casefold()
    for (wanted, base), sibling in _siblings(catalog).items():
        if wanted != frequency or sibling.casefold() in text.casefold():
            continue
        pattern = re.compile(rf"(?i)(?<![\w-]){re.escape(base)}(?![\w-])")
        if pattern.search(text):
            # Only the name itself: a longer name ("WTI crude") keeps its own entity.
            text = pattern.sub(sibling, text, count=1)
    return text
