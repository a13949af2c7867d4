"""A question about a document that asks for something it does not say gets "not mentioned"
first, even when it shares the document's words: its name (in every passage) and words of the
passage nearest to it ("overnight repo haircuts" beside a policy's bond haircuts, 资本开支 beside
an annual report's revenue). The questions the documents answer, in their own or other words,
still get their passages."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library

DOCUMENTS = {
    "harbour_equity_fund_factsheet.md": """# Harbour Equity Fund factsheet

## Charges
Share class A: ongoing charges are 0.85% a year. There is no entry charge and no exit charge.

## Performance
Over 2023 the fund returned 6.1%, against 5.4% for its index.

## Holdings
The fund holds 84 shares; technology makes up 31% of the portfolio.

## Risks
Share prices can fall as well as rise. Currency risk is not hedged.
""",
    "collateral_policy.md": """# Collateral policy

## Haircuts
Government bonds posted as collateral take a haircut of 2%; corporate bonds take 8%.

## Margin
Margin calls are made daily; the minimum transfer amount is 250,000 dollars.

## Eligibility
Eligible collateral is cash and bonds rated A or better.
""",
    "东岳电力2023年年报摘要.md": """# 东岳电力2023年年报摘要

## 经营情况
公司全年实现营业收入120.5亿元，同比增长6.3%；发电量为410亿千瓦时。

## 分红
公司拟每10股派发现金红利3元（含税），派息率为35%。

## 员工
公司员工总数为8,200人，其中技术人员占42%。

## 负债
资产负债率为58%，较上年下降2个百分点。
""",
}

NOT_SAID = [
    "What does the collateral policy say about overnight repo haircuts?",
    "东岳电力2023年的资本开支是多少？",
    # A word narrowing a noun the passage holds ("fee" is held as "charges", "margin calls" as
    # such), which the passage lacks.
    "What performance fee does the Harbour Equity Fund charge?",
    "What interest does the collateral policy charge on late margin calls?",
    # The words after a held noun that narrow it ("exposure" is held, not to whom).
    "What is the collateral policy's limit on exposure to central clearing houses?",
    "What haircut do inflation-linked bonds take under the collateral policy?",
    "东岳电力2023年的研发费用是多少？",
    # A one-letter label naming another class than the passage's; a rate of a word the
    # passage lacks (离职率: the passage speaks of 员工, not of their leaving).
    "What are the Harbour Equity Fund's ongoing charges for share class B?",
    "东岳电力2023年的员工离职率是多少？",
]
SAID = [
    ("How much does the Harbour Equity Fund charge each year?", "0.85%"),
    ("What haircut do government bonds take under the collateral policy?", "a haircut of 2%"),
    ("How often are margin calls made?", "made daily"),
    ("东岳电力2023年的发电量是多少？", "410亿千瓦时"),
    ("东岳电力每10股派多少现金红利？", "现金红利3元"),
    ("What are the Harbour Equity Fund's ongoing charges for share class A?", "0.85%"),
    ("东岳电力2023年的派息率是多少？", "派息率为35%"),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize("question", NOT_SAID)
def test_what_the_documents_do_not_say_is_not_mentioned_first(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_what_the_documents_say_is_quoted(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]
