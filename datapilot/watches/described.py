"""What a watch was understood as, in its own language (English or Chinese): the lines a chat
shows before the user confirms it, and the page's preview.

    lines(spec)  # ["Kind: alert", "Watching: Apple Inc. (AAPL)", "Condition: …", "Schedule: …"]
"""

from __future__ import annotations

from datapilot.core.watches import WatchSpec

_LABELS = {
    "en": {
        "kind": "Kind",
        "alert": "alert",
        "report": "report",
        "entities": "Watching",
        "waiting": "waiting for data",
        "condition": "Condition",
        "question": "Question",
        "schedule": "Schedule",
        "on_change": "when the data change",
    },
    "zh": {
        "kind": "类型",
        "alert": "提醒",
        "report": "定期报告",
        "entities": "对象",
        "waiting": "尚无数据",
        "condition": "条件",
        "question": "问题",
        "schedule": "时间",
        "on_change": "数据更新时",
    },
}


def lines(spec: WatchSpec) -> list[str]:
    """One line per part understood: kind, entities, condition or question, schedule."""
    zh = spec.language == "zh"
    words = _LABELS[spec.language]
    named = [f"{e.name} ({e.id})" if e.name and e.name != e.id else e.id for e in spec.entities]
    named += [f"{w} ({words['waiting']})" for w in spec.waiting_for_data]
    sep = "：" if zh else ": "
    shown = [f"{words['kind']}{sep}{words[spec.kind]}"]
    if named:
        shown.append(f"{words['entities']}{sep}{('、' if zh else ', ').join(named)}")
    if spec.condition is not None:
        what = spec.condition.describe(zh)
        shown.append(f"{words['condition']}{sep}{what}")
    if spec.question:
        shown.append(f"{words['question']}{sep}{spec.question}")
    when = words["on_change"]
    if spec.schedule is not None:
        when = spec.schedule.describe(zh)
    shown.append(f"{words['schedule']}{sep}{when}")
    return shown
