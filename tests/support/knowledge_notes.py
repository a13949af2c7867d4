"""Three short notes (a fund factsheet, a treasury policy, a Chinese earnings-call summary) that
several knowledge tests ask about; each test file adds its own documents beside them."""

KNOWLEDGE_NOTES = {
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
