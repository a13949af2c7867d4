"""What to call an entity in a Chinese answer: its Chinese alias, or a name written the same way."""

from __future__ import annotations

from collections.abc import Iterable

from datapilot.data.catalog import Catalog
from datapilot.data.phrases_zh import chinese_name

__all__ = ["chinese_name", "chinese_names"]


def chinese_names(ids: Iterable[str], catalog: Catalog) -> dict[str, str]:
    """Entity id → Chinese name, for the ids the catalog knows."""
    return {i: chinese_name(e) for i in ids if (e := catalog.get(i)) is not None}
