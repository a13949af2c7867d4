"""Questions typed the way people type them reach the passage that answers: "A not A" (含不含税),
counts and amounts in Chinese numerals (每十股, 三块五, 三个月, 九十万辆), colloquial and Cantonese
words (啥, 幾多), a finance abbreviation (归母净利), the question placed in time by 这一季 or
截至, a company named in pinyin ("Jinqiao Technology" for 金桥科技), a compound ending in a
participle ("rate-setting committee" beside "Monetary Policy Committee … Bank Rate"), China
implied by a Chinese document ("battery prices in China"). A numbered edition the document does
not have ("version 1.9" beside "Version 2.1") and a reason asked of a passage that gives none
still get "not mentioned" first."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library
from support.knowledge_notes import KNOWLEDGE_NOTES

DOCUMENTS = {
    **KNOWLEDGE_NOTES,
    "金桥科技2024年中期业绩说明会.md": (
        "# 金桥科技2024年中期业绩说明会\n\n"
        "## 分红\n公司计划以每10股派发现金红利3.5元（含税）的方式进行中期分红。\n\n"
        "## 经营概况\n第二季度归属于上市公司股东的净利润2.4亿元，同比增长6.1%。\n"
        "综合毛利率为28.2%，较上年同期下降0.8个百分点，主要受芯片价格上涨影响。\n\n"
        "## 员工\n公司员工共有2,100人，其中研发人员760人。\n"
    ),
    "westmark_policy_statement.txt": (
        "Westmark policy statement\n\n"
        "Decision. At its meeting ending on 6 June 2024, the Monetary Policy Committee voted by 7 "
        "votes to 2 to hold Bank Rate at 4.5%.\n\n"
        "Labour market. The unemployment rate rose to 4.1% in the three months to April.\n"
    ),
}

SAID = [
    ("金桥科技中期分红是每十股派三块五吗？含不含税？", "3.5元"),
    ("金桥科技这一季归母净利有多少？", "2.4亿元"),
    ("金桥科技毛利率比去年同期掉了，管理层说是啥原因？", "芯片价格上涨"),
    ("金橋科技啲員工有幾多人？", "2,100"),
    ("What interim dividend does Jinqiao Technology plan to pay?", "3.5元"),
    ("How did Westmark's rate-setting committee vote in June?", "7 votes to 2"),
    ("威斯特马克的声明里，截至4月的三个月失业率是多少？", "4.1%"),
    ("研报说电动车出口约九十万辆，这是哪一年的数？", "2023年"),
    ("How much did battery prices in China fall from the year before?", "30%"),
]
NOT_SAID = [
    "When was version 1.9 of the Harbour treasury policy approved?",
    "Why did the unemployment rate in Westmark rise?",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_a_question_typed_as_people_type_is_answered(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]


@pytest.mark.parametrize("question", NOT_SAID)
def test_what_the_documents_do_not_say_is_not_mentioned(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]


def test_the_edition_the_document_has_is_answered(library: NotesLibrary) -> None:
    status, summary = library_answer(
        "When was version 2.1 of the Harbour treasury policy approved?", library
    )
    assert status == "ok" and "3 March 2024" in summary, summary[:200]
