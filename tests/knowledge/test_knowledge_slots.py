"""A question sharing nearly all of a passage's words but asking for another slot than the
passage states gets "not mentioned" first: another share class, another month or count of years,
another measure or metric, another business line or kind of vehicle, a reason the passage does
not give."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES, SLOT_NOTES

NOT_SAID = [
    "What are the ongoing charges of the Wren fund's C shares?",  # another share class
    "What was Ostmark's consumer price inflation in January?",  # another month
    "What annualised return did the Wren fund make over five years?",  # another period
    "What was Ostmark's core inflation rate in February?",  # another measure
    "松果电器一季度净利润同比增长多少？",  # another metric (revenue growth is given)
    "松果电器冰箱业务收入是多少？",  # another business line
    "研报预计2023年商用车出口多少辆？",  # another kind of vehicle
    "Why did two Ostmark members prefer a cut?",  # a reason the statement does not give
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), {**KNOWLEDGE_NOTES, **SLOT_NOTES})


@pytest.mark.parametrize("question", NOT_SAID)
def test_another_slot_than_the_passage_states_is_not_mentioned(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]
