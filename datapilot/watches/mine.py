""" "My fund", "my portfolio", 我的基金: the one fund or series its owner imported.

A user's imports are theirs (`data.owners`): rows stored under `user:<id>:<label>`. When those
hold exactly one entity, "my fund" is it; with none, or several, the sentence is refused
saying so (listing them to choose from), never guessed.
"""

from __future__ import annotations

import re

from datapilot.data.access import DataAccess
from datapilot.data.owners import mine
from datapilot.watches.reading import WatchRefused

MY = re.compile(
    r"(?i)\bmy\s+(?:own\s+)?(?:imported\s+)?(?:fund|portfolio|series|holdings?)\b"
    r"|我(?:的|自己的)(?:基金|投资组合|组合|持仓)"
)
IMPORT_HOW = (
    "import one first (the page's Import data panel, or POST /api/v1/data/imports)",
    "请先导入（网页的“导入数据”面板，或 POST /api/v1/data/imports）",
)


def imported(data: DataAccess, owner: str | None) -> list[str]:
    """The ids of the entities `owner`'s own imports hold rows of, in id order."""
    prefix = mine(owner)
    if prefix is None:
        return []
    coverage = data.warehouse.coverage()
    if coverage.empty:
        return []
    own = coverage[coverage["source"].str.startswith(prefix)]
    return sorted({str(entity_id) for entity_id in own["id"]})


def with_my_fund(sentence: str, data: DataAccess, owner: str | None) -> tuple[str, str | None]:
    """`sentence` with "my fund" replaced by the id of the owner's one import, and a trace line
    saying so (None when the sentence says no such thing); raises `WatchRefused` when the owner
    has no import, or several."""
    found = MY.search(sentence)
    if found is None:
        return sentence, None
    said = found.group(0)
    zh = said.startswith("我")
    ids = imported(data, owner)
    if not ids:
        raise WatchRefused(
            f"你还没有导入任何基金或序列，“{said}”无从对应：{IMPORT_HOW[1]}，或直接说出名称或代码。"
            if zh
            else f'You have no imported fund or series for "{said}": {IMPORT_HOW[0]}, or name '
            "the fund or its ticker.",
            [said],
        )
    if len(ids) > 1:
        listed = ("、" if zh else ", ").join(_named(data, i) for i in ids)
        raise WatchRefused(
            f"你导入了多个：{listed}。请说出“{said}”指的是哪一个（名称或代码）。"
            if zh
            else f'You have imported several: {listed}. Say which one "{said}" means (its name '
            "or ticker).",
            [said],
        )
    (entity_id,) = ids
    text = sentence[: found.start()] + f" {entity_id} " + sentence[found.end() :]
    return text.strip(), f'"{said}" → {entity_id}, the only entity your imports hold'


def _named(data: DataAccess, entity_id: str) -> str:
    entity = data.catalog.get(entity_id)
    if entity is None or entity.name in ("", entity_id):
        return entity_id
    return f"{entity.name} ({entity_id})"
