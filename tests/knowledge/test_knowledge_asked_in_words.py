"""A question its documents answer is answered, not told "not mentioned", when it says its
share in words ("a third", "two and a half percent" beside 36% and 2.5%), asks "is it true
that", hedges ("roughly", "actually") or first tells who asks and why ("I'm on the treasury
desk and we're about to … . Does the policy cover …?"). What the documents do not say still
gets "not mentioned" first, with or without such a preamble."""

from __future__ import annotations

import asyncio

import pytest

from datapilot.settings import Settings
from tests.knowledge.test_knowledge_answered_not_refused import DOCUMENTS as OTHER_NOTES

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
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, str, Settings]:
    from datapilot.knowledge import Libraries, read_upload
    from datapilot.store import open_store
    from datapilot.store.models import User

    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), offline=True)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = User(name="reader")
        session.add(user)
        session.flush()
        owner = user.id
        Libraries(session, owner, settings).create("notes")
    for name, text in DOCUMENTS.items():
        upload = read_upload(settings, name, text.encode())
        with store.session(write=True) as session:
            Libraries(session, owner, settings).add("notes", upload)
    return store, owner, settings


def _answer(question: str, library: tuple[object, str, Settings]) -> tuple[str, str]:
    """(status, summary) of the offline library answer, as `ask --library` gives it."""
    from datapilot.core.context import QuestionContext
    from datapilot.engine.pipeline import final_answer
    from datapilot.knowledge.answering import library_events

    store, owner, settings = library
    context = QuestionContext(today=settings.effective_today(), brain="offline", offline=True)
    events = library_events(question, store, owner, "notes", context, settings)  # type: ignore[arg-type]
    answer = asyncio.run(final_answer(events))
    return answer.status, answer.summary or ""


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_a_question_the_documents_answer_is_answered(
    question: str, phrase: str, library: tuple[object, str, Settings]
) -> None:
    status, summary = _answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]


@pytest.mark.parametrize("question", NOT_SAID)
def test_what_the_documents_do_not_say_is_still_not_mentioned(
    question: str, library: tuple[object, str, Settings]
) -> None:
    status, summary = _answer(question, library)
    chinese = any("\u4e00" <= c <= "\u9fff" for c in question)
    first = (
        "知识库“notes”的文档中没有提到这一点。"
        if chinese
        else "The documents in the library 'notes' do not mention this."
    )
    assert status == "no_data" and summary.startswith(first), summary[:200]
