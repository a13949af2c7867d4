"""The status of an answer, decided in one place for every face (CLI, HTTP, chat, widgets).

An answer is `ok` only when every word the brain recognised is honoured by the plan (the
ledger's `unhonoured` is empty) and every planned step ran. A word recognised but not honoured
("best month" of one entity, "above $150" with no filter, "except AMD" with AMD still ranked)
means the figures would answer another question: the answer is `no_data`, saying in the user's
language what could not be done and offering the question without those words.
"""

from __future__ import annotations

import re

from datapilot.core.intent import NESTED_WINDOW, LedgerEntry
from datapilot.core.plan import Plan
from datapilot.core.results import RunResult

_UNIT_ZH = {"day": "日", "week": "周", "month": "月", "quarter": "季度", "year": "年"}


def cannot_honour_message(entries: list[LedgerEntry], zh: bool) -> str:
    """What the answer could not do, word by word, in the question's language."""
    said = [_what(e, zh) for e in entries]
    if zh:
        return (
            "这个问题我还不能按原意回答：" + "；".join(dict.fromkeys(said)) + "。"
            "我不会用另一个问题的数字来代替。"
        )
    return (
        "I can't answer this as asked yet: "
        + "; ".join(dict.fromkeys(said))
        + ". I won't give a figure for a different question instead."
    )


def _what(entry: LedgerEntry, zh: bool) -> str:
    word, meaning = entry.text, entry.meaning or ""
    if entry.reading == "period":
        if zh:
            unit = _UNIT_ZH.get(meaning, meaning)
            return f"“{word}”：我还不能按{unit}分组，或找出其中最好/最差的{unit}"
        return f'"{word}": I can\'t yet group by {meaning} or find the best or worst {meaning}'
    key = meaning if entry.reading == "form" and meaning.startswith("cue:") else entry.reading
    if entry.reading == "form" and meaning.startswith("freq:"):
        key = "frequency"
    if entry.reading == "window" and meaning == NESTED_WINDOW:
        key = "window:nested"
    elif entry.reading == "window" and re.fullmatch(r"\d{4}-\d\d-\d\d\.\..*", meaning):
        key = "window:beside"  # a dated window no part of the answer measures
    en, chinese = _CANNOT.get(key, _CANNOT["unused"])
    return f"“{word}”：{chinese}" if zh else f'"{word}": {en}'


# What an unhonoured word asked that the plan cannot do yet, by its reading (a form word by its
# cue), in English and Chinese.
_CANNOT: dict[str, tuple[str, str]] = {
    "threshold": ("I can't yet filter or count by a threshold", "我还不能按阈值筛选或计数"),
    "exclusion": ("I can't yet leave a member out of a list", "我还不能从名单里去掉某个成员"),
    "when": ("I can't yet give the date this question asks for", "我还不能给出这个问题所问的日期"),
    "distance": (
        "I can't yet measure the distance from a peak or a low",
        "我还不能计算离高点或低点的距离",
    ),
    "gap": (
        "I can't yet give the difference between the figures (in percentage points)",
        "我还不能算出两个数之间的差（百分点）",
    ),
    "tally": (
        "I can't yet count how many periods were up or down alongside this",
        "我还不能同时统计上涨或下跌的时段个数",
    ),
    "number": (
        "I did not read what this number is (an amount, a level, a fee?)",
        "我还没有读懂这个数字（金额、阈值还是费率？）",
    ),
    "cue:rank": (
        "there is one thing to rank, and I can't yet rank its sub-periods",
        "只有一个对象，无法排名，也还不能按时间段排名",
    ),
    "cue:compare": ("there is only one thing to compare", "只有一个对象，无法比较"),
    "cue:ratio": (
        "I can't yet give how many times one figure is the other here (two names, one measure)",
        "我还不能在这里算出一个数是另一个数的几倍（需要两个对象、同一指标）",
    ),
    "window": (
        "I can't date the window it names; say the day, e.g. 'the two weeks after 2008-11-04'",
        "我无法确定它指的是哪段时间；请写出具体日期，例如“2008-11-04之后两周”",
    ),
    "window:nested": (
        "it is a second window inside the year asked beside it, and one answer holds one "
        "window; ask about each on its own",
        "它是同一问题里另一段时间（所在年份）之内的第二个时间段，一个回答只能用一个时间段；请分开问",
    ),
    "window:beside": (
        "I can't yet measure over this window beside the other periods asked; ask about it on "
        "its own",
        "我还不能在其他时间段之外再计算这段时间的变化；请单独问这一段",
    ),
    "frequency": (
        "the data has no values that frequent (the series is kept at a lower frequency)",
        "数据没有这么高频率的数值（该序列的数据频率更低）",
    ),
    "unused": ("nothing in the plan uses it", "计划里没有用到它"),
}
_CANNOT["cue:worst"] = _CANNOT["cue:rank"]


def without_words(question: str, entries: list[LedgerEntry]) -> str:
    """The question with the unhonoured words taken out: what can be answered instead."""
    chars = list(question)
    for entry in entries:
        if entry.end <= len(chars) and question[entry.start : entry.end] == entry.text:
            chars[entry.start : entry.end] = [""] * (entry.end - entry.start)
    text = re.sub(r"\s+([,.?!，。？！])", r"\1", re.sub(r"\s{2,}", " ", "".join(chars)))
    return text.strip()


def offered(plan: Plan | None, zh: bool) -> str:
    """What the plan could show instead, as its task list (never presented as the answer)."""
    if plan is None or not plan.tasks:
        return ""
    tasks = (
        "；".join(t.instruction for t in plan.tasks[:3])
        if zh
        else "; ".join(t.instruction for t in plan.tasks[:3])
    )
    return f"我能做的是：{tasks}。" if zh else f" What I can do: {tasks}."


def failed_steps_message(run: RunResult, zh: bool) -> str | None:
    """Why an answer with a failed or skipped step is not `ok`; None when every step ran."""
    failed = [c for c in run.calls if c.status != "ok"]
    if not failed:
        return None
    said = "; ".join(f"{c.interface} ({c.output}) {c.status}: {c.error}" for c in failed)
    if zh:
        return (
            f"计划中有步骤没有完成，所以这不是完整的答案：{said}。"
            "下面显示的是已算出的部分，并非答案。"
        )
    return (
        f"Not every planned step ran, so this is not the answer: {said}. What is shown is the "
        "part that was computed, not the answer."
    )
