"""A day said by its date and described in words: "2020年3月23号疫情跌到最低那天", "雷曼破产那日
（2008年9月15号）", "on March 23, 2020, the day the sell-off bottomed,", "when Clinton was sworn
in (Q1 1993)". The date decides the day;
the words only say why it matters, so no reader takes their measures, moves or episodes as asked.
"""

from __future__ import annotations

import re

Span = tuple[int, int]

_WORDS = r"[^\d，。？！,?；;：:（）()\s]{2,16}?"
_DESCRIBED = re.compile(
    # the date, then the words, then 那天: 2020年3月23号疫情跌到最低那天
    rf"(?<=\d[日号])\s*[，,]?\s*(?P<after>{_WORDS})(?=的?那一?[天日]|当天|当日)"
    # the words and 那天, then the date in brackets: 雷曼破产那日（2008年9月15号）
    rf"|(?:(?<=[在从自于由，。？！,?；;\s])|^)(?P<before>{_WORDS}的?那一?[天日])"
    r"(?=\s*[（(]\s*\d{4}\s*年)"
    # an English date, then "the day …" between commas
    r"|(?i:(?<=\d{4})\s*,\s*(?P<english>the\s+(?:day|session)\s+[^,;:?!()\d]{3,60}?)\s*(?=,))"
    # "when Clinton was sworn in (Q1 1993)": the words, then the date in brackets
    r"|(?i:(?<![A-Za-z])(?P<when>when\s+[^,;:?!()\d]{3,50}?)(?=\s*\(\s*(?:Q[1-4]\s*)?\d{4}))"
)


# What the asker did on the day comes before the words: 我在雷曼破产那日 (only 雷曼破产那日).
_ON = re.compile(r".*[在从自于由]")


def days_described(text: str) -> list[Span]:
    """The spans of words describing a day that a date beside them already names."""
    spans = []
    for found in _DESCRIBED.finditer(text):
        group = next(g for g in ("after", "before", "english", "when") if found.group(g))
        start, end = found.span(group)
        if group == "before" and (on := _ON.match(text, start, end - 2)) is not None:
            start = on.end()
        spans.append((start, end))
    return spans


def blanked(text: str, spans: list[Span]) -> str:
    """`text` with each span's characters made spaces (every offset stays)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text
