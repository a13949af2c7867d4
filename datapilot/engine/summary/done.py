"""What was done: the sentences naming the tasks, and the interfaces used with what each did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, refs_in
from datapilot.core.results import CallRecord, RunResult
from datapilot.data.phrases_zh import CHART_ZH, model_zh
from datapilot.engine.summary.words import Words, lower_first
from datapilot.interfaces.table_words import chinese_column

if TYPE_CHECKING:
    from datapilot.core.understanding import Understanding

MAX_SUBJECTS = 5  # entities named for one result, in either sentence kind


@dataclass
class Step:
    """One call of the plan with its record, its value and its interface's category."""

    call: Call
    record: CallRecord
    value: Any
    category: str


def steps_of(plan: Plan, run: RunResult) -> list[Step]:
    """The calls the run recorded, in order, each matched to its call in the plan."""
    calls = {call.output: call for call in plan.calls()}
    steps = []
    for record in run.calls:
        call = calls.get(record.output) or Call(interface=record.interface, output=record.output)
        value = run.values.get(record.output)
        steps.append(Step(call, record, value, _category(call, value)))
    return steps


def _category(call: Call, value: Any) -> str:
    from datapilot.engine.executor import default_registry

    registry = default_registry()
    if call.interface in registry:
        return registry.get(call.interface).category
    if isinstance(value, ChartOutput | TableOutput | TextOutput):
        return "visualization"
    if isinstance(value, pd.DataFrame) and value.attrs.get("kind") == "forecast":
        return "prediction"
    return "processing" if any(True for _ in refs_in(call.args)) else "acquisition"


def method_sentence(
    plan: Plan, steps: list[Step], understanding: Understanding, w: Words, *, dated: bool
) -> str:
    """How the answer was made, in one sentence: the number of tasks and what each successful
    call did, in words (the plan names the interfaces). The window is said only when `dated`
    (no answer sentence said the dates already); charts and tables by their kind (their titles
    are on screen)."""
    zh = w.zh
    # The window is said once, on the first call that brings data in.
    window = _window(understanding, zh) if dated else ""
    first_data = next((s for s in steps if s.category == "acquisition"), None) or next(
        (s for s in steps if s.category != "visualization"), None
    )
    phrases = []
    seen_titles: set[str] = set()
    for step in steps:
        what = _what(step, w)
        when = window if step is first_data else ""
        title = _title(step)
        if step.category == "visualization":
            phrases.append(_shown(step, zh))
        elif step.category == "prediction":
            phrases.append(_forecast_phrase(step, w))
        elif step.category == "frame" and len(set(refs_in(step.call.args))) > 1:
            phrases.append("合并了结果" if zh else "combined them")
        elif step.category == "frame" or (
            title and title in seen_titles and step is not first_data
        ):
            # Same measure as an earlier result (rank, filter …): an operation on it.
            phrases.append(_operation(step.call.interface, zh))
        elif step.category == "acquisition":
            phrases.append(f"获取了{what}{when}" if zh else f"fetched {what}{when}")
        else:
            phrases.append(f"计算了{what}{when}" if zh else f"computed {what}{when}")
        if title:
            seen_titles.add(title)
    phrases = list(dict.fromkeys(phrases))
    tasks = len(plan.tasks)
    if zh:
        lead = f"我分{tasks}个任务完成：" if tasks > 1 else "我"
        return lead + "，".join(phrases) + "。"
    lead = f"In {tasks} tasks, I" if tasks > 1 else "I"
    if len(phrases) > 2:
        return f"{lead} {', '.join(phrases[:-1])}, and {phrases[-1]}."
    return f"{lead} {' and '.join(phrases)}."


def _title(step: Step) -> str:
    if isinstance(step.value, pd.DataFrame):
        return str(step.value.attrs.get("title") or "").strip()
    return ""


# What an operation on an earlier result did, (English, Chinese); another one "reworked" it.
_OPERATIONS = {
    "select_columns": ("kept the columns needed", "选取了所需的列"),
    "filter_dates": ("kept the dates asked for", "截取了所需的日期"),
    "filter_rows": ("kept the rows asked for", "筛选了所需的行"),
    "head_rows": ("kept the first rows", "保留了前几行"),
    "rank": ("ranked the results", "对结果排了序"),
    "count_signs": ("counted the periods up and down", "统计了上涨和下跌的时段数"),
    "figure_ratio": ("divided one figure by the other", "计算了倍数"),
    "top_bottom": ("picked the top and bottom", "选出了排在前后的几项"),
    "resample": ("changed its frequency", "调整了数据频率"),
    "normalize": ("rebased it", "做了归一化"),
}


def _operation(name: str, zh: bool) -> str:
    english, chinese = _OPERATIONS.get(name, ("reworked the result", "整理了结果"))
    return chinese if zh else english


def _forecast_phrase(step: Step, w: Words) -> str:
    frame = step.value
    if not isinstance(frame, pd.DataFrame):
        return "做了预测" if w.zh else "made a forecast"
    subject = str(frame.attrs.get("entity") or ", ".join(map(str, frame.columns[:1])))
    model = frame.attrs.get("model")
    periods = len(frame)
    if w.zh:
        how = f"用{model_zh(str(model))}模型" if model else ""
        return f"{how}预测了{w.name(subject)}未来{periods}期"
    how = f" with {model}" if model else ""
    return f"forecast {subject} {periods} periods ahead{how}"


def _what(step: Step, w: Words) -> str:
    value = step.value
    if not isinstance(value, pd.DataFrame):
        return "结果" if w.zh else "the result"
    title = str(value.attrs.get("title") or "").strip()
    subjects = _subjects_of(value)
    acquired = subjects and step.category == "acquisition"
    if w.zh:
        if value.attrs.get("title_zh"):  # a table answer titles itself in Chinese
            return str(value.attrs["title_zh"])
        if acquired and from_client(value):  # “prices”的开盘价、收盘价
            return f"“{title}”的{'、'.join(chinese_column(s) for s in subjects)}"
        if acquired and len(subjects) == 1 and w.is_name_of(title, subjects[0]):
            return w.series(subjects[0])  # 实际GDP（GDPC1）
        title = w.title(title) or "数据"
        named = any(subject in title for subject in subjects)
        names = "、".join(w.name(subject) for subject in subjects)
        return f"{names}的{title}" if acquired and not named else title
    title = lower_first(title) if title else "the data"
    if acquired and not any(s in title for s in subjects):
        return f"{title} for {', '.join(subjects)}"
    return title


def from_client(frame: object) -> bool:
    """Whether a result was read from a table the user sent or one of the user's tools returned
    (its columns are the subjects)."""
    sources = getattr(frame, "attrs", {}).get("sources") or []
    return any(str(source).startswith(("client table:", "tool: ")) for source in sources)


def _subjects_of(frame: pd.DataFrame) -> list[str]:
    entity = frame.attrs.get("entity")
    if entity:
        return [str(entity)]
    if isinstance(frame.index, pd.DatetimeIndex):
        columns = [str(c) for c in frame.columns]
        return columns[:MAX_SUBJECTS] + (["…"] if len(columns) > MAX_SUBJECTS else [])
    return []


def _shown(step: Step, zh: bool) -> str:
    name, value = step.call.interface, step.value
    if isinstance(value, ChartOutput):
        if zh:
            return f"画了{CHART_ZH.get(value.chart_type, '图')}"
        article = "an" if value.chart_type[0] in "aeiou" else "a"
        return f"plotted {article} {value.chart_type} chart"
    if isinstance(value, TableOutput) and name.startswith("plot_"):
        # A chart of a single value is shown as a table: say what the user sees.
        return "以表格展示了这个数值" if zh else "showed the single value as a table"
    if isinstance(value, TableOutput):
        return "制作了表格" if zh else "built a table"
    return "写了说明" if zh else "wrote a note"


def _window(understanding: Understanding, zh: bool) -> str:
    intent = understanding.intent
    if intent is None or not (intent.start or intent.end):
        return ""
    start = intent.start.isoformat() if intent.start else ("最早" if zh else "the beginning")
    end = intent.end.isoformat() if intent.end else ("最新" if zh else "the latest date")
    return f"（{start} 至 {end}）" if zh else f" from {start} to {end}"
