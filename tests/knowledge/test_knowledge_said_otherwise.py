"""A question its documents answer is answered, not told "not mentioned", when it uses other
finance words than the documents ("rate sensitivity" for duration, "junk" for
sub-investment-grade, "voted against" for dissented, "credit for" for "attributed to",
"published" for a statement's date line, "outstanding for less than a year" for 账龄一年以内),
hedges a guess ("maybe around 6.8 yrs?", 我记得…好像…来着), misspells a word ("statment"),
stresses a noun ("individual bonds"), uses an idiom ("a CSA in place") or first sets the scene
before a colon or a dash ("… for the model portfolio: can the policy …?")."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES, SLOT_NOTES

SAID = [
    # Other finance words than the documents'
    ("What is the rate sensitivity of the Wren bond fund?", "5.2 years"),
    ("How much junk does the Wren bond fund hold?", "6%"),
    ("How many Ostmark board members voted against the decision?", "dissented"),
    ("What does Wren give the credit for the outperformance?", "Polish government bonds"),
    ("When was the Bank of Ostmark's rate statement published?", "14 March 2024"),
    ("What share of Songguo's receivables has been outstanding for less than a year?", "82%"),
    ("What did the Wren fund return a year over the last three years?", "2.2%"),
    ("松果电器一季度营收同比增长多少？", "15%"),
    ("How much of the Wren bond fund is in credit?", "41%"),  # "credit" is corporate bonds
    ("Which revision of the Kite derivatives policy is this?", "Version 4.1"),
    ("Is Songguo's interim dividend quoted before or after tax?", "含税"),
    ("Which parts of the economy are losing steam, according to the Ostmark statement?", "retail"),
    # Words that stress or set the scene, not name what is asked
    ("Does the Wren fund hold more than two hundred individual bonds?", "240 bonds"),
    ("Do we need a CSA in place before booking a new derivative under the Kite policy?", "annex"),
    (
        "Our auditors asked before we sign off the model portfolio: can the Kite derivatives "
        "policy be reviewed sooner than every two years?",
        "material market event",
    ),
    # A guess or a hedge inside the question
    ("Is the Wren fund's duration maybe around 6.8 yrs?", "5.2 years"),
    ("我记得松果电器一季度营业收入好像大概是10亿来着？", "12.4亿元"),
    # Misspelt words
    ("What was unemplyment in Ostmark accordng to the rate statment?", "6.2%"),
    ("How often is the Kite derivatives policy reviewd?", "every two years"),
    # A class or a month named another way than the passage's
    ("What are the ongoing charges of Wren's A share class?", "0.48%"),
    ("Wren基金A类份额的费率是多少？", "0.48%"),
    ("奥斯特马克央行2月份的通胀率是多少？", "3.1%"),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), {**KNOWLEDGE_NOTES, **SLOT_NOTES})


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_a_question_the_documents_answer_is_answered(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]
