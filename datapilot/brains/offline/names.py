"""What to call an entity in a Chinese answer: its Chinese alias, or a name written the same way."""

from __future__ import annotations

from collections.abc import Iterable

from datapilot.data.catalog import Catalog, Entity


def chinese_name(entity: Entity) -> str:
    """苹果 for Apple; IBM and AMD stay as they are; the English name when no Chinese one exists."""
    if entity.name.isascii() and entity.name.isupper():
        return entity.name  # IBM, AMD: written the same way in Chinese
    for alias in entity.aliases:
        if any("\u3400" <= ch <= "\u9fff" for ch in alias):
            return alias
    return entity.name


def chinese_names(ids: Iterable[str], catalog: Catalog) -> dict[str, str]:
    """Entity id → Chinese name, for the ids the catalog knows."""
    return {i: chinese_name(e) for i in ids if (e := catalog.get(i)) is not None}
