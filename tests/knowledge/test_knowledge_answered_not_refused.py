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

DOCUMENTS = {
    "harbour_income_fund_factsheet.md": """# Harbour Income Fund factsheet

## Fund facts
- Fund size: USD 640 million
- Dealing: daily, cut-off 14:00 Dublin time

## Objective
The fund aims to pay an income of 4% a year.
""",
    "harbour_treasury_policy.md": """# Harbour Treasury Policy

Version 2.1, approved by the Audit Committee on 3 March 2024.

## Collateral
Eligible collateral is cash and government bonds rated AA- or better.

## Review
The policy is reviewed every two years.
""",
    "northmere_central_bank_minutes.txt": """Northmere central bank minutes

Balance sheet. The Board agreed to cut the stock of government bond holdings by 80 billion over
the next year, to 742 billion.

Labour market. The unemployment rate was 5.1% in the second quarter.

Growth. Gross domestic product grew by 0.4% in the first quarter; business investment was flat.
""",
    "电动车出口研报.txt": """电动车出口研报

出口：2023年中国电动车出口约90万辆，同比增长近60%。美国加征关税，出口增速或将放缓。

电池：动力电池价格较上年下降约30%。
""",
    "青松电子2024年一季度业绩说明会.md": """# 青松电子2024年一季度业绩说明会

## 研发投入
一季度研发费用合计3.2亿元，占营业收入的比例为9.4%。

## 现金流
经营活动产生的现金流量净额为4.1亿元。

## 分业务情况
云计算业务收入5.6亿元，同比增长18%，占总收入的比重为35%。
""",
}

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
