"""What a question pins down beyond its words must be in the passage that answers it: the tier
it numbers (tier 2 capital is not the policy's tier 1), and a place it asks a figure from
("revenue from Europe" is not an overseas share the note puts "mainly" down to Europe and North
America). The same documents answer questions put in everyday words: "every year" for "a
year", a central bank for "the Bank of …", "the jul-sep period" for the third quarter, a
trading partner's cap for a counterparty limit, 不满12个月 for 一年以内, 电芯 for 电池, 一吨
for 每吨, a word of no weight (那边, 最后) between the words narrowing what is asked, 7到9月
for the third quarter, 多少号人 counting people, "the least you can start with" for a minimum
investment, "the other side" for a counterparty, "as security" for collateral, "out of work"
for unemployment, "the Harbor A class" (a letter naming the class after it), the document
named by its kind ("the lithium battery industry research summary"). A glossary word of
two (核心通胀) asked beside a passage saying only its head (inflation), a share 占组合多少百分比
beside a passage giving none, "the Europe business" beside a share put "mainly" down to Europe,
and 出口到欧洲多少 beside a total, are not answers."""

from __future__ import annotations

import pytest
from support.knowledge import NotesLibrary, library_answer, not_mentioned_opening, notes_library

DOCUMENTS = {
    "osprey_credit_policy.md": (
        "# Osprey Counterparty Credit Policy\n\n"
        "## Limits\nEach counterparty receives a limit based on its internal rating. No single "
        "counterparty may exceed 12% of the group's tier 1 capital.\n\n"
        "## Collateral\nEligible collateral is cash and government bonds. Margin calls are made "
        "daily, and the minimum transfer amount is 250,000 dollars.\n\n"
        "## Monitoring and escalation\nA limit breach must be reported to the desk head within "
        "two hours and to the Chief Risk Officer by the end of the business day.\n"
    ),
    "harbor_bond_fund_factsheet.md": (
        "# Harbor Bond Fund factsheet\n\n"
        "## Fund facts\n- Share class: A (USD, accumulating)\n"
        "- Ongoing charges: 0.48% a year; no entry or exit charge\n"
        "- Minimum initial investment: USD 2,500\n\n"
        "## Objective\nThe fund invests in government and corporate bonds from developed and "
        "emerging markets.\n\n"
        "## Performance\nOver three years the fund returned an annualised 1.2%.\n"
    ),
    "northvale_policy_statement.txt": (
        "Monetary Policy Statement — Bank of Northvale, 3 October 2024\n\n"
        "Decision. The Monetary Policy Committee voted by 7 votes to 2 to raise Bank Rate to "
        "4.5%.\n\n"
        "Growth. Gross domestic product is expected to grow by 0.3% in the third quarter.\n\n"
        "Inflation. Consumer price inflation fell to 5.9% in August.\n\n"
        "Labour market. The unemployment rate rose to 4.1% in the three months to August.\n"
    ),
    "锂电行业研报摘要.txt": (
        "锂电行业研报摘要\n\n"
        "电池：动力电池价格已从高点下降约30%，碳酸锂价格跌至每吨8万元以下。"
        "我们判断电池环节产能过剩将持续至2026年。\n\n"
        "出口：2024年动力电池出口约80吉瓦时。欧洲对中国电池发起调查，我们预计2025年出口量为95吉瓦时。\n"
    ),
    "青松科技2024年三季度业绩说明会.md": (
        "# 青松科技2024年三季度业绩说明会\n\n"
        "## 经营概况\n公司第三季度实现营业收入30.5亿元；归属于上市公司股东的净利润3.1亿元。\n\n"
        "## 分业务情况\n海外收入占比为18%，主要来自欧洲和北美市场。\n\n"
        "## 研发投入\n公司研发人员共有2,150人。\n\n"
        "## 分红\n公司计划以每10股派发现金红利1.2元（含税）的方式进行中期分红。\n\n"
        "## 问答环节\n问：应收账款是否有所上升？\n"
        "答：截至9月末，应收账款余额为20.1亿元，账龄一年以内的占比超过80%。\n"
    ),
}

NOT_SAID = [
    "按照信用风险政策，单一交易对手的敞口最多可占集团总资本（含二级资本）的多少？",
    "Under the Osprey credit policy, how much of the group's tier 2 capital may one "
    "counterparty take up?",
    "What share of Qingsong Technology's third-quarter revenue came from Europe?",
    "青松科技三季度来自北美的收入占比是多少？",
    "Northvale 8月份核心通脹（剔除能源同食品）係幾多？",
    "Harbor債券基金入面新興市場債券佔組合幾多百分比？",
    "How much revenue did Qingsong Technology's Europe business bring in during Q3?",
    "研报预计2025年动力电池出口到欧洲多少吉瓦时？",
    "Harbor債券基金過去五年的年化回報是多少？",
    "How much revenue did Qingsong Technology make from Europe in Q3?",
]
SAID = [
    (
        "I'm retired - what will the Harbor bond fund cost me every year to hold, and do they "
        "take a cut when I buy in or cash out?",
        "0.48%",
    ),
    (
        "roughly how much bigger is northvale's economy supposed to get in the jul-sep period, "
        "according to their central bank?",
        "0.3%",
    ),
    ("how did the vote split at northvale's central bank?", "7 votes to 2"),
    (
        "if we blow thru a trading partner's cap how fast do i have to tell the head of my "
        "trading team??",
        "within two hours",
    ),
    ("Under Osprey's policy, what share of tier 1 capital can one counterparty reach?", "12%"),
    ("碳酸锂现在是不是已经跌破一吨十万块了？", "8万元"),
    ("做电芯的厂子产能太多这个问题，研报说要拖到哪一年？", "2026年"),
    ("青松科技Q3母公司那边最后落袋的利润是多少钱？", "3.1亿元"),
    ("我想问下青松的客户还欠着没给的钱里，不满12个月的有多大比例？", "80%"),
    ("青松科技三季度海外收入占比是多少？", "18%"),
    ("青松科技7到9月到手的利润有多少？", "3.1亿元"),
    ("青松科技做技术开发的工程师团队多大，多少号人？", "2,150人"),
    (
        "my grandson wants to put money in that Harbor bond thing, what's the least you can "
        "start with?",
        "USD 2,500",
    ),
    ("Northvale 8月份通脹係幾多？", "5.9%"),
    ("What are the ongoing charges of the Harbor A class?", "0.48%"),
    (
        "what can the other side hand over to us as security on swaps under Osprey's rules?",
        "cash and government bonds",
    ),
    ("how many ppl are out of work in northvale these days, whats the jobless %", "4.1%"),
    (
        "under Osprey's rulebook, whats the smallest amount of collateral they'd bother moving "
        "when they ask the other side to top up?",
        "250,000 dollars",
    ),
    ("锂盐现在一吨啥价位了？听说跌得很惨", "8万元"),
    (
        "I'm retired and thinking of putting some savings into that Harbor fixed-income thing. "
        "What's the smallest sum they'll let me start with?",
        "USD 2,500",
    ),
    ("我退休了手里有点青松的股票，这回中期每股能拿到多少钱？", "1.2元"),
    ("Harbor债券基金过去三年的年化回报是多少？", "1.2%"),
    (
        "How far have battery prices come down from their high, according to the lithium "
        "battery industry research summary?",
        "30%",
    ),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> NotesLibrary:
    return notes_library(tmp_path_factory.mktemp("data"), DOCUMENTS)


@pytest.mark.parametrize("question", NOT_SAID)
def test_a_passage_without_what_the_question_pins_is_not_an_answer(
    question: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    first = not_mentioned_opening(question)
    assert status == "no_data" and summary.startswith(first), summary[:200]


@pytest.mark.parametrize(("question", "phrase"), SAID)
def test_everyday_words_find_what_is_written(
    question: str, phrase: str, library: NotesLibrary
) -> None:
    status, summary = library_answer(question, library)
    assert status == "ok" and phrase in summary, summary[:200]
