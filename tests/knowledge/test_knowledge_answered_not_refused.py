"""A question its documents answer is answered, not told "not mentioned", when it asks in its
own way: a date asked as a "sign-off date" (the passage says "approved … on 3 March 2024"), a
number said in words with hundreds ("seven hundred and forty-two billion"), a question asking
whether a figure passes a number (是不是超过了百分之九, the passage gives 9.4%), a credit grade
checked against the passage's ("single-A" beside "rated AA- or better"), modal verbs and verbs
the documents never use ("Why might …", "say … brought in"), everyday words for the documents'
own ("electric cars", "Chinese", "earnings call" for 业绩说明会). What the documents do not say
still gets "not mentioned" first, and a passage holds a glossary phrase only with all its words
("gross domestic product" does not say 毛利率, "gross margin")."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES

DOCUMENTS = KNOWLEDGE_NOTES

SAID = [
    # Everyday words for the fund's dealing terms ("order", "a given day", "the latest time").
    (
        "Hi, I'd like to put some money into the Harbour Income Fund soon. If I place an order "
        "on a given day, what's the latest time I can send it in so it goes through that day?",
        "cut-off 14:00",
    ),
    ("treasury policy sign-off date", "3 March 2024"),
    ("What comes to seven hundred and forty-two billion after the cut?", "742 billion"),
    (
        "Which of the central bank's holdings will come to seven hundred and forty-two billion?",
        "742 billion",
    ),
    ("Did China's electric car exports jump by almost sixty percent?", "近60%"),
    ("Why might overseas shipments of Chinese EVs slow down?", "出口增速或将放缓"),
    ("青松电子研发费用率是不是超过了百分之九？", "9.4%"),
    (
        "Can we accept a single-A rated government bond as collateral under the treasury policy?",
        "AA- or better",
    ),
    ("On the earnings call, how much cash did the company say its business brought in?", "4.1亿元"),
]
NOT_SAID = [
    # A question asking whether: the number is checked, the words still must be there.
    "Did the treasury policy's haircut on equities exceed 10%?",
    # A date asked of something no passage speaks of.
    "What is the launch date of the Northmere fund?",
    "Might the central bank sell its gold reserves?",
    # "Gross domestic product" in the first quarter is not the gross margin (毛利率) of one.
    "青松电子第一季度云计算业务的毛利率是多少？",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_a_question_the_documents_answer_is_answered(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]


@pytest.mark.parametrize("question", NOT_SAID)
def test_what_the_documents_do_not_say_is_still_not_mentioned(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]
