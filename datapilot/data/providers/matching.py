"""Fuzzy name search over a provider's own list of entities (EN and ZH)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rapidfuzz import fuzz, process, utils

from datapilot.data.catalog import Entity

_CJK = re.compile(r"[\u3400-\u9fff]")


def name_score(query: str, choice: str, **kwargs: Any) -> float:
    """WRatio, tempered for space-separated words by token overlap.

    WRatio alone rates "copper price" close to "consumer price index"; requiring the words to
    overlap too fixes that. Chinese has no spaces, so WRatio's partial matching is kept there.
    """
    cutoff = kwargs.get("score_cutoff") or 0
    score = fuzz.WRatio(query, choice)
    if score >= cutoff and not _CJK.search(query):
        score = min(score, fuzz.token_set_ratio(query, choice))
    return score


def rank_entities(
    text: str, entities: Iterable[Entity], limit: int = 10, cutoff: float = 80.0
) -> list[Entity]:
    """Entities whose id, name or an alias matches `text`, best first.

    An exact id or alias match (case-insensitive) always ranks first.
    """
    query = text.strip()
    if not query:
        return []
    folded = query.casefold()
    best: dict[str, tuple[float, Entity]] = {}
    choices: list[str] = []
    owners: list[Entity] = []
    for entity in entities:
        names = [entity.id, entity.name, *entity.aliases]
        if any(name.casefold() == folded for name in names):
            best[entity.id] = (101.0, entity)
            continue
        choices.extend(names)
        owners.extend([entity] * len(names))
    for _, score, index in process.extract(
        query,
        choices,
        scorer=name_score,
        processor=utils.default_process,
        limit=max(limit * 4, 20),
        score_cutoff=cutoff,
    ):
        entity = owners[index]
        if score > best.get(entity.id, (-1.0, entity))[0]:
            best[entity.id] = (score, entity)
    ranked = sorted(best.values(), key=lambda pair: -pair[0])
    return [entity for _, entity in ranked[:limit]]


def first_of_each_id(entities: Iterable[Entity], limit: int) -> list[Entity]:
    """The first entity found for each id, in the order found, at most `limit` of them."""
    unique: dict[str, Entity] = {}
    for entity in entities:
        unique.setdefault(entity.id, entity)
    return list(unique.values())[:limit]
