"""Whether a chat message asks for a watch rather than asking a question now.

A message asks for one when it says so outright ("remind me", "alert me", "let me know",
提醒, 通知我), or when it asks to be told or sent something ("tell me", "send me", 发给我,
告诉我) together with a schedule or an alert condition the watch reader reads. A question that
merely names a period ("how did Apple do last week") is not a watch request.
"""

from __future__ import annotations

import re

from datapilot.brains.offline.parsing import normalise_text
from datapilot.watches.condition_words import read_condition
from datapilot.watches.schedule_words import read_schedule

_OUTRIGHT = re.compile(
    r"(?i)\b(?:remind|alert|notify|warn|ping)\s+me\b|\blet\s+me\s+know\b"
    r"|\bkeep\s+(?:an\s+eye|watch)\s+on\b|\bset\s+(?:up\s+)?an?\s+(?:alert|reminder|watch)\b"
    r"|提醒|通知我|盯着|盯一下"
)
_TELL_ME = re.compile(
    r"(?i)\b(?:tell|send|email|message|text|give)\s+me\b|\bsend\b"
    r"|告诉我|告知我|发给我|发送给我|推送给我|给我发|给我推送|发我"
)


def asks_for_watch(sentence: str) -> bool:
    """Whether `sentence` asks to be told later (a watch) rather than answered now."""
    text = normalise_text(sentence)
    if _OUTRIGHT.search(text):
        return True
    if not _TELL_ME.search(text):
        return False
    schedule = read_schedule(text)
    if schedule.schedule is not None:
        return True
    condition = read_condition(text)
    return condition.condition is not None or condition.ambiguous is not None
