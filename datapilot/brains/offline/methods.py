"""Methods a question asks a figure to be computed with that the offline reader does not apply.

"(use log returns)", "population standard deviation (ddof=0)", "× √250", "a simple sum, no
compounding", "the geometric mean", 用对数收益率, 总体标准差, 简单相加、不复利: each changes the
figure. The documented conventions (simple returns, the sample standard deviation, √252 for daily
returns, compounding) would answer another question, so the answer is `no_data` naming the
method, never the default figure in its place.
"""

from __future__ import annotations

import re

_METHODS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(r"(?i)\blog(?:arithmic)?[-\s]+returns?\b|continuously[-\s]compounded|对数收益"),
        "log returns",
        "对数收益率",
    ),
    (
        re.compile(
            r"(?i)\bpopulation\s+(?:standard\s+deviation|std|sd|variance)\b|ddof\s*=\s*0"
            r"|总体标准差|总体方差"
        ),
        "the population standard deviation",
        "总体标准差",
    ),
    (
        re.compile(
            r"(?i)(?:sqrt\s*\(?\s*|square\s+root\s+of\s+|√\s*|根号\s*)(?:250|260|360|365)\b"
            r"|(?:×|\bx\b|\btimes\b|乘以?)\s*(?:250|260|360|365)\b"
        ),
        "another number of days a year than 252",
        "每年252个交易日以外的天数",
    ),
    (
        re.compile(
            r"(?i)\bsimple\s+(?:sum|addition)\b|\bwithout\s+compounding\b|\bno\s+compounding\b"
            r"|\bnot\s+compounded\b|\bsimple\s+scaling\b|简单相加|不复利|直接相加"
        ),
        "adding returns up without compounding",
        "不复利的简单相加",
    ),
    (
        # monthly returns annualised by √12 (of daily prices: the default is daily returns, √252)
        re.compile(
            r"(?i)(?:monthly\s+(?:simple\s+)?returns|month[-\s]end\s+closes|月收益率|月末收盘)"
            r"[^.?!。？！]{0,80}?(?:sqrt\s*\(?\s*12\b|square\s+root\s+of\s+12\b|√\s*12)"
        ),
        "monthly returns annualised by √12",
        "月收益率按√12年化",
    ),
    (
        re.compile(
            r"(?i)\b(?:using|from|on|with)\s+(?:weekly\s+)?friday\s+closes\b|\bweekly\s+closes\b"
            r"|(?:用|按)每?周五的?收盘价?计算"
        ),
        "weekly (Friday) closes",
        "每周五收盘价",
    ),
    (
        # "(alpha = MSFT's 2020 return − beta × the S&P 500's)": a formula of the question's own,
        # which the reader does not evaluate (a rate given as "rf = 2%" is read elsewhere)
        re.compile(
            r"(?i)(?<![\w-])(?!risk[-\s]?free|rf\b|无风险)[a-z\u3400-\u9fff][\w\s'’]{0,24}?\s*="
            r"\s*[^=\n]{0,80}?(?:\s[−\-+×*/÷]\s|[−×÷]|\bminus\b|\btimes\b|减去?|乘以?|除以)"
        ),
        "a formula of its own",
        "问题自己给出的公式",
    ),
    (
        re.compile(r"(?i)\bgeometric\s+(?:mean|average)\b|几何平均"),
        "the geometric mean",
        "几何平均",
    ),
    (
        re.compile(
            r"(?i)\barithmetic\s+(?:annuali[sz]ed\s+)?mean\s+return"
            r"|mean\s+daily\s+(?:simple\s+)?return\s*(?:×|\bx\b|\btimes\b)\s*252"
            r"|number\s+of\s+(?:daily\s+)?returns\s+divided\s+by\s+252"
        ),
        "an arithmetic annualisation",
        "算术年化",
    ),
)


def unsupported_method(text: str, zh: bool) -> str | None:
    """The `no_data` message for a method `text` asks for that the reader does not apply."""
    for pattern, en, chinese in _METHODS:
        found = pattern.search(text)
        if found is None:
            continue
        if zh:
            return (
                f"这个问题要求按“{found.group(0)}”（{chinese}）计算，我还不能这样算；"
                "按默认方法（简单收益率、样本标准差、日数据按√252年化、复利）得到的数字回答的是另一个问题，"
                "所以不给出。可以去掉这个要求再问。"
            )
        return (
            f'This asks for the figure computed with "{found.group(0)}" ({en}), which I can\'t '
            "do yet. The default method (simple returns, the sample standard deviation, √252 "
            "for daily returns, compounding) would answer another question, so I won't give its "
            "figure instead; ask without that method to get it."
        )
    return None
