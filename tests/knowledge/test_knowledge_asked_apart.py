"""A passage sharing most of a question's words but speaking of something else is not an answer:
another share class named by its letter before the noun ("the fund's I share class" beside
the A class), another numbered quarter (第一季度 beside 第二季度 and 第三季度), a share asked of
a whole the passage gives no share of (占多少比例), a figure of another body (GDP beside an
industry's growth), trade with a place the passage names in another clause (出口到美国 beside
"美国…反倾销调查" and a total export figure). Said as the documents say it, the same questions are
answered; a Latin name written against Chinese (Eastmark央行) names its document, and so are
questions put in everyday words ("the smallest amount to get started", "the cost of living
increase by December", "per share" beside 每10股, 揸住幾多隻債). A quarter asked "alone" beside a
figure summed over the half (上半年研发费用合计) is not answered by it."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library

DOCUMENTS = {
    "kestrel_bond_fund_factsheet.md": (
        "# Kestrel Bond Fund factsheet\n\n"
        "## Fund facts\n- Share class: A (USD, accumulating)\n- Ongoing charges: 0.55% a year\n"
        "- Minimum initial investment: USD 1,000\n\n"
        "## Portfolio\nThe portfolio holds 180 bonds from 12 countries.\n\n"
        "## Performance\nOver the first half of 2024 the A share class returned 3.1%.\n\n"
        "## Objective\nThe fund invests in government and corporate bonds from developed and "
        "emerging markets.\n"
    ),
    "eastmark_policy_statement.txt": (
        "Eastmark policy statement\n\n"
        "Decision. At its meeting ending on 5 March 2024, the Monetary Policy Committee voted by "
        "8 votes to 1 to raise Bank Rate to 3.75%.\n\n"
        "Growth. Gross domestic product is expected to grow by 0.2% in the first quarter.\n\n"
        "Inflation. Consumer price inflation fell to 5.1% in February. The Committee expects "
        "inflation to fall to around 3% by the end of the year.\n"
    ),
    "光伏行业研报摘要.txt": (
        "光伏行业研报摘要\n\n"
        "核心观点：我们预计2025年国内光伏装机量将达到250吉瓦，同比增长约15%。\n\n"
        "出口：2024年光伏组件出口约200吉瓦，同比增长近20%。美国对中国光伏发起反倾销调查，"
        "出口增速或将放缓，我们预计2025年出口量为220吉瓦。\n"
    ),
    "储能行业研报摘要.txt": "储能行业研报摘要\n\n电池：动力电池价格已从2023年高点下降约35%。\n",
    "红杉科技2024年二季度业绩说明会.md": (
        "# 红杉科技2024年二季度业绩说明会\n\n"
        "## 经营概况\n公司第二季度实现营业收入30.2亿元，同比增长9.1%。\n\n"
        "## 问答环节\n问：第三季度的收入指引是多少？\n"
        "答：管理层预计第三季度营业收入在31亿元至33亿元之间。\n\n"
        "## 分业务情况\n智能终端业务收入11.4亿元，同比下降4%。\n\n"
        "## 研发投入\n上半年研发费用合计6.1亿元。\n\n"
        "## 分红\n公司计划以每10股派发现金红利1.8元（含税）的方式进行中期分红。\n"
    ),
}

NOT_SAID = [
    "What did the Kestrel Bond Fund's I share class return in the first half of 2024?",
    "红杉科技2024年第一季度的营业收入是多少？",
    "Kestrel债券基金里新兴市场债券一共占多少比例？",
    "伊斯特马克央行预计2025年全年GDP增长多少？",
    "研报预计2025年光伏组件出口到美国的数量是多少？",
    "Kestrel债券基金的组合里，新兴市场债券一共占多大比例？",
    "How much did Red Cedar Technology (红杉科技) spend on R&D in the second quarter of 2024 "
    "alone?",
]
SAID = [
    ("What did the Kestrel Bond Fund's A share class return in the first half of 2024?", "3.1%"),
    ("红杉科技第三季度的收入指引是多少？", "31亿元"),
    ("研报预计2025年光伏组件出口量是多少？", "220吉瓦"),
    ("Eastmark央行这次开会后把基准利率调到了多少？", "3.75%"),
    ("红杉科技卖硬件设备那块生意这个季度怎么样，是涨了还是跌了？", "11.4亿元"),
    (
        "My uncle is careful with money. What's the smallest amount he'd have to put in to get "
        "started with the Kestrel Bond Fund?",
        "USD 1,000",
    ),
    ("Kestrel 環球債券基金而家揸住幾多隻債？", "180 bonds"),
    (
        "How far have power battery prices fallen from their peak, according to the research note?",
        "35%",
    ),
    (
        "I hold some Red Cedar Tech (红杉科技) shares - how much interim dividend are they paying "
        "per share?",
        "1.8元",
    ),
    (
        "Where does the Bank of Eastmark think the cost of living increase will be by December?",
        "around 3%",
    ),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize("question", NOT_SAID)
def test_a_passage_about_something_else_is_not_an_answer(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_the_same_question_about_what_is_written_is_answered(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]
