"""Three short notes (a fund factsheet, a treasury policy, a Chinese earnings-call summary) that
several knowledge tests ask about; each test file adds its own documents beside them.
`SLOT_NOTES`: a bond factsheet, a rate statement, a Chinese earnings call and a research note
that the tests of questions said otherwise and of questions asking another slot share."""

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

SLOT_NOTES = {
    "wren_bond_fund_factsheet.md": """# Wren Bond Fund factsheet, 31 March 2024

## Fund facts
- Share class: A (EUR, distributing)
- Ongoing charges: 0.48% a year

## Portfolio
Modified duration is 5.2 years. Sub-investment-grade bonds are 6% of the portfolio. The
portfolio holds 240 bonds from 18 countries. Corporate bonds are 41% of the portfolio.

## Performance
Over the first quarter the A share class returned 1.4%. Over three years it returned an
annualised 2.2%. The outperformance was attributed to an overweight in Polish government bonds.
""",
    "ostmark_rate_statement.txt": """Rate Statement — Bank of Ostmark, 14 March 2024

The Policy Board voted by 5 votes to 2 to hold the policy rate at 4.5%. Two members dissented,
preferring a cut of 0.25 percentage points.

Prices. Consumer price inflation fell to 3.1% in February. Unemployment was 6.2%.

Growth. Business surveys point to a slowing in activity, particularly in retail and housing.
""",
    "松果电器2024年一季度业绩说明会.md": """# 松果电器2024年一季度业绩说明会

## 经营概况
一季度营业收入12.4亿元，同比增长15%。

## 分业务情况
空调业务收入7.2亿元，同比增长9%。

## 应收账款
截至3月末，应收账款余额为5.6亿元，账龄一年以内的占比为82%。

## 分红
公司计划以每10股派发现金红利1.5元（含税）的方式进行中期分红。
""",
    "乘用车出口研报.txt": """乘用车出口研报

出口：2023年乘用车出口约300万辆，同比增长近60%。
""",
    "kite_derivatives_policy.md": """# Kite Derivatives Policy

Version 4.1, approved by the Risk Committee on 2 February 2024.

## Collateral
All new derivative trades must be covered by a credit support annex.

## Review
The policy is reviewed every two years, or sooner after a material market event.
""",
}
