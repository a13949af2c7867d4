"""A library ranks by a question's words, each counted once: a long Chinese word cut into many
pieces (第三季度 → 第三, 三季度, 季度 …) or a glossary group's many words no longer add up in a
passage that shares them but does not answer, above the passage that does. Everyday finance
paraphrases ("cost" for charges, "smallest amount at first" for the minimum initial investment,
"gilts" for government bonds, 比例 for 比重) find their passage and are answered, not said "not
mentioned"."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, notes_library

DOCUMENTS = {
    "meridian_bond_fund_factsheet.md": """# Meridian Bond Fund factsheet

## Fund facts
- Ongoing charges: 0.48% a year
- Minimum initial investment: EUR 2,500

## Objective
The fund aims to beat its benchmark by 1% a year, before fees, by holding government and
corporate bonds.

## Performance
Over the first half of the year the fund returned 2.2%; the best position was in Canadian bonds.

## Portfolio
Modified duration is 5.1 years; the average credit rating is AA-.

## Risks
Interest rate risk: when interest rates rise, bond prices fall.
""",
    "northmoor_bank_statement.txt": """Northmoor central bank statement

Growth. GDP is expected to grow by 0.4% in the third quarter.

Balance sheet. The committee will reduce its stock of government bond purchases by 60 billion
pounds over the next twelve months.
""",
    "青松电子2024年三季度业绩说明会.md": """# 青松电子2024年三季度业绩说明会

## 经营概况
公司第三季度实现营业收入31.2亿元，同比增长9.5%。

## 研发
前三季度公司研发费用合计4.1亿元，占营业收入的比例为13%，同比增长12%。公司研发人员共有1,200人。

## 分业务情况
云服务收入9.8亿元，占总收入的比重为31%。
""",
    "新能源汽车行业研报摘要.txt": """新能源汽车行业研报摘要

核心观点：我们预计2025年国内新能源汽车销量将达到1,300万辆，同比增长约15%。

出口：2024年新能源汽车出口约150万辆，欧洲对中国电动车的关税或使出口增速放缓。

风险提示：需求不及预期；原材料价格大幅波动；价格竞争超预期。
""",
}

RANKED_FIRST = [
    # 第三季度's pieces and 增长 in the earnings call outweighed the English answer.
    ("How much will the economy grow in the third quarter?", "0.4% in the third quarter"),
    # 久期's glossary words "interest rate sensitivity" added up in the risks passage.
    ("这只债券基金的久期是多少年？", "Modified duration is 5.1 years"),
    ("What is the smallest amount I can put into the Meridian fund at first?", "EUR 2,500"),
    # "expect" is 预计 and "sell" 销量, not the risk passage's 预期 twice.
    ("How many electric vehicles does the note expect China to sell in 2025?", "1,300万辆"),
    # 比例 and 比重 are the same proportion.
    ("云服务收入占公司总收入的比例是多少？", "比重为31%"),
]
ANSWERED = [
    ("How much does it cost each year to hold the Meridian bond fund?", "0.48% a year"),
    ("What is the smallest amount I can put into the Meridian fund at first?", "EUR 2,500"),
    (
        "By how much will the committee shrink its holdings of gilts over the coming year?",
        "60 billion",
    ),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize(("question", "phrase"), RANKED_FIRST)
def test_the_passage_that_answers_ranks_first(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    from datapilot.knowledge import Libraries

    with library.store.session() as session:
        found = Libraries(session, library.owner, library.settings).search("notes", question, 5)
    texts = [p.citation.text for p in found.passages]
    assert texts and phrase in texts[0], texts


@pytest.mark.parametrize(("question", "phrase"), ANSWERED)
def test_a_paraphrase_is_answered_not_said_not_mentioned(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary
