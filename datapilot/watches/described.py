"""What a watch was understood as, in its own language (English or Chinese): the lines a chat
shows before the user confirms it, and the page's preview.

    lines(spec)  # ["Kind: alert", "Watching: Apple Inc. (AAPL)", "Condition: …", "Schedule: …"]
"""

from __future__ import annotations

from datapilot.core.watches import Condition, Schedule, WatchSpec

_DAYS_ZH = ("一", "二", "三", "四", "五", "六", "日")
_MEASURES_ZH = {
    "close_level": "收盘价",
    "daily_move": "单日涨跌幅",
    "drawdown": "自最高点的回撤",
}
_COMPARE_ZH = {"above": "高于", "below": "低于", "beyond": "超出（任一方向）"}
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
        what = condition_zh(spec.condition) if zh else spec.condition.describe()
        shown.append(f"{words['condition']}{sep}{what}")
    if spec.question:
        shown.append(f"{words['question']}{sep}{spec.question}")
    when = words["on_change"]
    if spec.schedule is not None:
        when = schedule_zh(spec.schedule) if zh else spec.schedule.describe()
    shown.append(f"{words['schedule']}{sep}{when}")
    return shown


def condition_zh(condition: Condition) -> str:
    """`Condition.describe` in Chinese, e.g. `单日涨跌幅低于 -2%（每次发生时提醒）`."""
    how = "（每次发生时提醒）"
    if condition.behaviour == "state":
        how = "（成立时提醒一次，恢复后再提醒）"
    if condition.measure == "ma_cross":
        way = "上穿" if condition.comparator == "above" else "跌破"
        return f"收盘价{way}{condition.window}日均线{how}"
    name = _MEASURES_ZH.get(condition.measure) or f"近{condition.window}个交易日涨跌幅"
    edge = "或等于" if condition.inclusive else ""
    unit = "%" if condition.percent else ""
    return f"{name}{_COMPARE_ZH[condition.comparator]}{edge} {condition.threshold:g}{unit}{how}"


def schedule_zh(schedule: Schedule) -> str:
    """`Schedule.describe` in Chinese, e.g. `每周一 08:00（UTC）`."""
    at = schedule.at.strftime("%H:%M") if schedule.at else "00:00"
    zone = f"（{schedule.timezone}）"
    if schedule.kind == "interval":
        return f"每 {schedule.every_seconds} 秒"
    if schedule.kind == "cron":
        return f"按 cron {schedule.cron}{zone}"
    if schedule.kind == "weekly" and schedule.weekday is not None:
        return f"每周{_DAYS_ZH[schedule.weekday]} {at}{zone}"
    if schedule.kind == "monthly":
        return f"每月{schedule.day_of_month}日 {at}{zone}"
    return f"每天 {at}{zone}"
