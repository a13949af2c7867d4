"""Search results merged from several lists: one entity per id, first found wins."""

from __future__ import annotations

from datapilot.data.catalog import Entity
from datapilot.data.providers.matching import first_of_each_id


def entity(entity_id: str, name: str) -> Entity:
    return Entity(id=entity_id, kind="stock", name=name, source="test")


def test_first_of_each_id_keeps_the_first_hit_in_order_up_to_the_limit() -> None:
    by_code = entity("600519.SH", "600519")
    by_name = entity("600519.SH", "贵州茅台")
    other = entity("000858.SZ", "五粮液")
    third = entity("300750.SZ", "宁德时代")
    found = [by_code, other, by_name, third]
    assert [e.name for e in first_of_each_id(found, 10)] == ["600519", "五粮液", "宁德时代"]
    assert first_of_each_id(found, 2) == [by_code, other]
    assert first_of_each_id([], 5) == []
