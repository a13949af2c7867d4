"""TAT-QA's dev questions answered from the table alone (vendored under
`tests/fixtures/report_tables/`), asked as `bench/report_tables.py` asks them and scored by its
rules against TAT-QA's own answers: no wrong figure comes back as `ok`, and every declined answer
says what it could not find. A fixed slice runs fast; the whole split is a slow test."""

from __future__ import annotations

import json
import sys
from collections import Counter
from types import ModuleType
from typing import Any

import pytest
from support import paths

VENDORED = paths.FIXTURES / "report_tables" / "tatqa_dev_table_only.json"
SLICE_DOCUMENTS = 40  # the first forty tables of the file, every question asked over them


def bench() -> ModuleType:
    folder = str(paths.ROOT / "bench")
    sys.path.insert(0, folder)
    try:
        import report_tables
    finally:
        sys.path.remove(folder)
    return report_tables


def share(counts: Counter[str], outcome: str) -> float:
    return counts[outcome] / (counts["right"] + counts["wrong"] + counts["declined"])


def test_the_vendored_split_holds_the_dev_questions_answered_from_the_table() -> None:
    documents: list[dict[str, Any]] = json.loads(VENDORED.read_text(encoding="utf-8"))
    kinds = Counter(q["answer_type"] for doc in documents for q in doc["questions"])
    assert kinds == {"arithmetic": 497, "span": 171, "multi-span": 92, "count": 12}


async def test_a_slice_of_the_dev_split_has_no_wrong_figure_and_most_arithmetic_right(
    data: Any,
) -> None:
    reader = bench()
    documents = json.loads(VENDORED.read_text(encoding="utf-8"))
    asked = sum(len(doc["questions"]) for doc in documents[:SLICE_DOCUMENTS])
    counts = await reader.score(reader.cases(VENDORED)[:asked])
    assert counts["all"]["wrong"] == 0, reader.report(counts)
    assert counts["all"]["silent"] == 0, reader.report(counts)
    assert share(counts["arithmetic"], "right") >= 0.70, reader.report(counts)


@pytest.mark.slow
async def test_the_dev_split_arithmetic_is_mostly_right_and_almost_never_wrong(
    data: Any,
) -> None:
    reader = bench()
    counts = await reader.score(reader.cases(VENDORED, kinds=["arithmetic"]))
    arithmetic = counts["arithmetic"]
    assert sum(arithmetic.values()) - arithmetic["silent"] == 497
    assert share(arithmetic, "right") >= 0.70, reader.report(counts)
    assert share(arithmetic, "wrong") <= 0.01, reader.report(counts)
    assert arithmetic["silent"] == 0, reader.report(counts)
