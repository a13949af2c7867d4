"""A second anchored window that leaves out what the first said: "10 trading days before D and
10 after" is "… and 10 trading days after D"; 在D之前10个交易日和之后10个交易日 is "… 和D之后10个
交易日". The missing day (and unit) is the first window's, written back into the text so the
time grammar reads two windows, each a part of its own."""

from __future__ import annotations

import re

_UNIT = r"(?:trading\s+days?|sessions?|calendar\s+days?|days?|weeks?|months?|years?)"
_DAY = (
    r"(?:\d{4}-\d{2}-\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
    r"\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})"
)
_EN = re.compile(
    rf"(?i)\b(?P<n1>\d+|[a-z]+)\s+(?P<unit>{_UNIT})\s+(?P<dir1>before|after)\s+(?P<day>{_DAY})"
    rf"(?P<join>\s*,?\s+and\s+(?:the\s+)?)(?P<n2>\d+|[a-z]+)(?:\s+(?P<unit2>{_UNIT}))?"
    rf"\s+(?P<dir2>before|after)\b(?!\s+(?:{_DAY}|the\b|it\b|that\b))"
)
_ZH_DAY = r"(?:\d{4}-\d{2}-\d{2}|\d{4}年\d{1,2}月\d{1,2}日)"
_ZH_N = r"(?:\d+|[一二两三四五六七八九十]+)"
_ZH_UNIT = r"(?:个交易日|交易日|天|日|周|个星期|个月|年)"
_ZH = re.compile(
    rf"(?P<day>{_ZH_DAY})(?P<dir1>之前|以前|之后|以后|前|后)(?P<n1>{_ZH_N})(?P<unit>{_ZH_UNIT})"
    rf"(?P<join>和|与|及|以及|、|，)(?P<dir2>之前|以前|之后|以后)(?P<n2>{_ZH_N})(?P<unit2>{_ZH_UNIT})?"
)


def fill_elided_anchor(text: str) -> str:
    """`text` with a second anchored window's left-out day and unit written in."""

    def en(found: re.Match[str]) -> str:
        unit = found.group("unit2") or found.group("unit")
        return (
            f"{found.group('n1')} {found.group('unit')} {found.group('dir1')} {found.group('day')}"
            f"{found.group('join')}{found.group('n2')} {unit} {found.group('dir2')} "
            f"{found.group('day')}"
        )

    def zh(found: re.Match[str]) -> str:
        unit = found.group("unit2") or found.group("unit")
        return (
            f"{found.group('day')}{found.group('dir1')}{found.group('n1')}{found.group('unit')}"
            f"{found.group('join')}{found.group('day')}{found.group('dir2')}{found.group('n2')}{unit}"
        )

    return _ZH.sub(zh, _EN.sub(en, text))
