"""Stamps chat clients and agents put before a message (`[Sent at 2026-11-27 07:43 UTC]`,
`[Fri 2026-11-27 07:43 UTC]`, `[11/27/2026, 7:43:12 AM]`, `[07:43]`): metadata about when it was
sent, not part of the question. They are taken off before anything reads the question, so a
stamp's date never becomes the question's time window and its words ("UTC") are never asked
about. A bracket holding a bare year or words (`[2021]`, `[AAPL]`) is not a stamp and stays.
"""

from __future__ import annotations

import re

_DATE = r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}年\d{1,2}月\d{1,2}日)"
_TIME = r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[AaPp]\.?[Mm]\.?)?"
_ZONE = r"(?:Z|UTC|GMT|[A-Z]{2,5}|[+-]\d{2}:?\d{2}|(?:UTC|GMT)[+-]\d{1,2}(?::?\d{2})?)"
_WEEKDAY = (
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?|周[一二三四五六日天]|星期[一二三四五六日天])"
)
_LEAD = (
    r"(?:(?:sent|received|posted|message sent|time|timestamp)(?:\s+(?:at|on))?\s*:?"
    r"|发送于|发送时间[:：]?)"
)
_WHEN = (
    rf"(?:{_DATE}(?:[T\s,]+{_TIME})?|{_TIME})"  # a date (with a time), or a time alone
    rf"(?:\s*{_ZONE})?"
)
_STAMP = re.compile(
    rf"^\s*[\[【]\s*(?:{_LEAD}\s*)?(?:{_WEEKDAY}\s*)?{_WHEN}\s*[\]】]\s*[:：-]?\s*",
    re.IGNORECASE,
)


def strip_stamps(text: str) -> tuple[str, list[str]]:
    """`text` without the stamps it starts with, and the stamps taken off (as written)."""
    stamps: list[str] = []
    while True:
        found = _STAMP.match(text)
        if found is None or found.end() == len(text):  # a stamp alone is the whole message
            return text, stamps
        stamps.append(found.group(0).strip())
        text = text[found.end() :]
