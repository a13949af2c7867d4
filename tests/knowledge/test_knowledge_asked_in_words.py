"""A question its documents answer is answered, not told "not mentioned", when it says its
share in words ("a third", "two and a half percent" beside 36% and 2.5%), asks "is it true
that", hedges ("roughly", "actually") or first tells who asks and why ("I'm on the treasury
desk and we're about to … . Does the policy cover …?"). What the documents do not say still
gets "not mentioned" first, with or without such a preamble."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES as OTHER_NOTES

DOCUMENTS = {
    **OTHER_NOTES,
    "kestrel_money_fund_factsheet.md": """# Kestrel Money Fund factsheet

## Objective
The fund aims to beat its benchmark by 0.5% a year.

## Portfolio
Cash and equivalents are 2.5% of assets. Average maturity is 41 days.
""",
    "kestrel_lending_policy.md": """# Kestrel Lending Policy

## Scope
This policy applies to all repo and securities lending trades with external counterparties.

## Limits
No single borrower may take more than 15% of the lendable book.
""",
    "白鹭软件2024年中期业绩说明会.md": """# 白鹭软件2024年中期业绩说明会

## 研发投入
上半年研发费用合计2.1亿元。公司研发人员共有1,260人，占员工总数的36%。
""",
}

SAID = [
    ("Is it true that more than a third of Bailu's employees work in R&D?", "36%"),
    (
        "Is it true that the Kestrel fund keeps roughly two and a half percent of its money "
        "in cash?",
        "2.5%",
    ),
    (
        "I'm on the treasury desk and we're about to borrow bonds from a new name. Does this "
        "lending policy actually cover securities lending, or only repo?",
        "securities lending",
    ),
]
NOT_SAID = [
    # A preamble does not make a question about something else answered.
    "I'm on the treasury desk and we're about to lend bonds to a new name. What fee does the "
    "lending policy charge borrowers who return bonds late?",
    "I'm on the treasury desk and we're about to post collateral. Does the lending policy set a "
    "haircut on equities?",
    "Is it true that the Kestrel fund invests in gold mining shares?",
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
