"""A question sharing nearly all of a passage's words but asking for another slot than the
passage states gets "not mentioned" first: another share class, another month or count of years,
another measure, metric or term, another business line or kind of vehicle, a reason or a day the
passage does not give, something besides what it says, a passage of another document than the
one the question names."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES, SLOT_NOTES

NOT_SAID = [
    "What are the ongoing charges of the Wren fund's C shares?",  # another share class
    "What are the Wren fund's ongoing charges for class C?",
    "Wren基金C类份额的费率是多少？",
    "What was Ostmark's consumer price inflation in January?",  # another month
    "What annualised return did the Wren fund make over five years?",  # another period
    "What was Ostmark's core inflation rate in February?",  # another measure
    "松果电器一季度净利润同比增长多少？",  # another metric (revenue growth is given)
    "松果电器一季度经营利润同比增长多少？",  # its words are in the passage, not the metric
    "松果电器冰箱业务收入是多少？",  # another business line
    "研报预计2023年商用车出口多少辆？",  # another kind of vehicle
    "Why did two Ostmark members prefer a cut?",  # a reason the statement does not give
    "What payout ratio does Songguo's interim dividend represent?",  # a term not given
    "除了中期分红，松果电器还宣布了股份回购吗？",  # besides what the passage says
    "松果电器这次中期分红的股权登记日是哪一天？",  # a day the passage does not write
    "Kite衍生品政策对新交易要求多少初始保证金？",  # an amount the policy does not set
    "Is it true that the Bank of Ostmark expects exports to grow by 60%?",  # another document
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
