"""The template summary: a first-person account of what was done and what the numbers say.

Every number it writes comes from a `Fact`, formatted with `format_value`, so the text is
grounded by construction. English by default; Chinese when the question is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.core.facts import format_value
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, refs_in
from datapilot.core.results import CallRecord, Fact, RunResult

if TYPE_CHECKING:
    from datapilot.brains.base import Understanding

_CJK = re.compile(r"[\u3400-\u9fff]")
MAX_KEY_RESULTS = 3
MAX_SUBJECTS = 5
MAX_RANKED = 10
MAX_PAIRS = 6

_CHART_ZH = {
    "line": "折线图",
    "bar": "柱状图",
    "candlestick": "K线图",
    "scatter": "散点图",
    "area": "面积图",
    "pie": "饼图",
}
_TITLE_ZH = {
    "Close": "收盘价",
    "Close (adjusted)": "复权收盘价",
    "Adjusted close": "复权收盘价",
    "Open": "开盘价",
    "High": "最高价",
    "Low": "最低价",
    "Volume": "成交量",
    "Cumulative return": "累计收益率",
    "Daily return": "日收益率",
    "Weekly return": "周收益率",
    "Monthly return": "月收益率",
    "Quarterly return": "季度收益率",
    "Annual return": "年收益率",
    "Drawdown": "回撤",
    "Maximum drawdown": "最大回撤",
    "Period return": "区间收益率",
}
_TASK_ZH = {"data": "数据", "processing": "处理", "prediction": "预测", "visualization": "展示"}


def is_chinese(text: str) -> bool:
    """True when `text` contains CJK characters."""
    return bool(_CJK.search(text))


def template_summary(question: str, understanding: Understanding, run: RunResult) -> str:
    """First-person summary naming the tasks and interfaces used and quoting the key facts."""
    return "".join(summary_chunks(question, understanding, run))


def summary_chunks(question: str, understanding: Understanding, run: RunResult) -> list[str]:
    """The summary as sentences (with their separating spaces), for streaming one at a time."""
    sentences = _sentences(question, understanding, run)
    if is_chinese(question):
        return sentences
    return [sentence if i == 0 else " " + sentence for i, sentence in enumerate(sentences)]


def _sentences(question: str, understanding: Understanding, run: RunResult) -> list[str]:
    zh = is_chinese(question)
    plan = understanding.plan or Plan()
    steps = _steps(plan, run)
    sentences = []
    if plan.tasks:
        sentences.append(_tasks_sentence(plan, zh))
    done = [step for step in steps if step.record.status == "ok"]
    if done:
        sentences.append(_actions_sentence(done, understanding, zh))
    for step in _key_results(steps):
        sentences.extend(_fact_sentences(step, zh))
    problems = [step for step in steps if step.record.status != "ok"]
    if problems:
        sentences.append(_problems_sentence(problems, zh))
    if not done:
        sentences.append("我没有得到可以报告的结果。" if zh else "I have no results to report.")
    return sentences


# --- what was done ------------------------------------------------------------------------------


@dataclass
class _Step:
    call: Call
    record: CallRecord
    value: Any
    category: str


def _steps(plan: Plan, run: RunResult) -> list[_Step]:
    calls = {call.output: call for call in plan.calls()}
    steps = []
    for record in run.calls:
        call = calls.get(record.output) or Call(interface=record.interface, output=record.output)
        value = run.values.get(record.output)
        steps.append(_Step(call, record, value, _category(call, value)))
    return steps


def _category(call: Call, value: Any) -> str:
    from datapilot.interfaces import registry

    if call.interface in registry:
        return registry.get(call.interface).category
    if isinstance(value, ChartOutput | TableOutput | TextOutput):
        return "visualization"
    if isinstance(value, pd.DataFrame) and value.attrs.get("kind") == "forecast":
        return "prediction"
    return "processing" if any(True for _ in refs_in(call.args)) else "acquisition"


def _tasks_sentence(plan: Plan, zh: bool) -> str:
    if zh:
        items = "；".join(
            f"（{i}）{_TASK_ZH[t.kind]}：{t.instruction.rstrip('。.')}"
            for i, t in enumerate(plan.tasks, 1)
        )
        return f"我把问题拆成了{len(plan.tasks)}个任务：{items}。"
    items = "; ".join(
        f"({i}) {t.kind}: {_lower_first(t.instruction.rstrip('.'))}"
        for i, t in enumerate(plan.tasks, 1)
    )
    count = "one task" if len(plan.tasks) == 1 else f"{len(plan.tasks)} tasks"
    return f"I split the question into {count}: {items}."


def _actions_sentence(steps: list[_Step], understanding: Understanding, zh: bool) -> str:
    # The window is said once, on the first call that brings data in.
    window = _window(understanding, zh)
    first_data = next((s for s in steps if s.category == "acquisition"), None) or next(
        (s for s in steps if s.category != "visualization"), None
    )
    phrases = []
    seen_titles: set[str] = set()
    for step in steps:
        name = step.call.interface
        what = _what(step, zh)
        when = window if step is first_data else ""
        title = _title(step)
        if step.category == "visualization":
            phrases.append(_shown(step, zh))
        elif step.category == "prediction":
            phrases.append(_forecast_phrase(step, zh))
        elif step.category == "frame" and len(set(refs_in(step.call.args))) > 1:
            phrases.append(f"用 {name} 合并了结果" if zh else f"combined them with {name}")
        elif step.category == "frame" or (
            title and title in seen_titles and step is not first_data
        ):
            # Same measure as an earlier result (rank, filter …): an operation on it.
            phrases.append(f"对结果应用了 {name}" if zh else f"applied {name} to it")
        elif step.category == "acquisition":
            phrases.append(
                f"用 {name} 获取了{what}{when}" if zh else f"fetched {what}{when} with {name}"
            )
        else:
            phrases.append(
                f"用 {name} 计算了{what}{when}" if zh else f"computed {what}{when} with {name}"
            )
        if title:
            seen_titles.add(title)
    phrases = list(dict.fromkeys(phrases))
    if zh:
        return "我" + "，".join(phrases) + "。"
    if len(phrases) > 1:
        return f"I {', '.join(phrases[:-1])}, and {phrases[-1]}."
    return f"I {phrases[0]}."


def _title(step: _Step) -> str:
    if isinstance(step.value, pd.DataFrame):
        return str(step.value.attrs.get("title") or "").strip()
    return ""


def _forecast_phrase(step: _Step, zh: bool) -> str:
    name, frame = step.call.interface, step.value
    if not isinstance(frame, pd.DataFrame):
        return f"用 {name} 做了预测" if zh else f"made a forecast with {name}"
    subject = str(frame.attrs.get("entity") or ", ".join(map(str, frame.columns[:1])))
    model = frame.attrs.get("model")
    periods = len(frame)
    if zh:
        how = f"（{model}）" if model else ""
        return f"用 {name}{how}预测了{subject}未来{periods}期"
    how = f" ({model})" if model else ""
    return f"forecast {subject} {periods} periods ahead with {name}{how}"


def _what(step: _Step, zh: bool) -> str:
    value = step.value
    if not isinstance(value, pd.DataFrame):
        return "结果" if zh else "the result"
    title = str(value.attrs.get("title") or "").strip()
    subjects = _subjects_of(value)
    if zh:
        title = _TITLE_ZH.get(title, title)
        title = title or "数据"
        named = any(subject in title for subject in subjects)
        return (
            f"{'、'.join(subjects)}的{title}"
            if subjects and step.category == "acquisition" and not named
            else title
        )
    title = _lower_first(title) if title else "the data"
    if subjects and step.category == "acquisition" and not any(s in title for s in subjects):
        return f"{title} for {', '.join(subjects)}"
    return title


def _subjects_of(frame: pd.DataFrame) -> list[str]:
    entity = frame.attrs.get("entity")
    if entity:
        return [str(entity)]
    if isinstance(frame.index, pd.DatetimeIndex):
        columns = [str(c) for c in frame.columns]
        return columns[:MAX_SUBJECTS] + (["…"] if len(columns) > MAX_SUBJECTS else [])
    return []


def _shown(step: _Step, zh: bool) -> str:
    name, value = step.call.interface, step.value
    if isinstance(value, ChartOutput):
        if zh:
            return f"用 {name} 画了{_CHART_ZH.get(value.chart_type, '图')}《{value.title}》"
        article = "an" if value.chart_type[0] in "aeiou" else "a"
        return f"plotted {article} {value.chart_type} chart “{value.title}” with {name}"
    if isinstance(value, TableOutput):
        return (
            f"用 {name} 制作了表格《{value.title}》"
            if zh
            else f"built a table “{value.title}” with {name}"
        )
    return f"用 {name} 写了说明" if zh else f"wrote a note with {name}"


def _window(understanding: Understanding, zh: bool) -> str:
    intent = understanding.intent
    if intent is None or not (intent.start or intent.end):
        return ""
    start = intent.start.isoformat() if intent.start else ("最早" if zh else "the beginning")
    end = intent.end.isoformat() if intent.end else ("最新" if zh else "the latest date")
    return f"（{start} 至 {end}）" if zh else f" from {start} to {end}"


# --- what the numbers say -----------------------------------------------------------------------


def _key_results(steps: list[_Step]) -> list[_Step]:
    """The frames worth quoting: those shown as charts or tables, else those nothing else used."""
    frames = {
        s.record.output: s
        for s in steps
        if s.record.status == "ok" and isinstance(s.value, pd.DataFrame) and s.record.facts
    }
    shown = [
        name
        for s in steps
        if s.category == "visualization"
        for name in refs_in(s.call.args)
        if name in frames
    ]
    if not shown:
        used = {name for s in steps for name in refs_in(s.call.args)}
        shown = [name for name in frames if name not in used]
    return [frames[name] for name in dict.fromkeys(shown)][:MAX_KEY_RESULTS]


def _fact_sentences(step: _Step, zh: bool) -> list[str]:
    frame: pd.DataFrame = step.value
    facts = step.record.facts
    kind = frame.attrs.get("kind") or (
        "timeseries" if isinstance(frame.index, pd.DatetimeIndex) else "cross_section"
    )
    title = str(frame.attrs.get("title") or "")
    if kind == "forecast":
        return _forecast_sentences(facts, zh)
    if kind == "matrix":
        return _matrix_sentences(facts, title, zh)
    if kind in {"timeseries", "indicator", "ohlcv"} and isinstance(frame.index, pd.DatetimeIndex):
        return _series_sentences(facts, title, zh, entity=frame.attrs.get("entity"), kind=kind)
    return _cell_sentences(facts, title, zh)


def _by_subject(facts: Iterable[Fact]) -> dict[str, dict[str, Fact]]:
    grouped: dict[str, dict[str, Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.subject or "", {})[fact.measure or "value"] = fact
    return grouped


def _v(fact: Fact, *, absolute: bool = False, bare: bool = False) -> str:
    value = fact.value
    if absolute and isinstance(value, float):
        value = abs(value)
    return format_value(value, None if bare else fact.unit)


def _series_sentences(
    facts: list[Fact], title: str, zh: bool, entity: str | None = None, kind: str = "timeseries"
) -> list[str]:
    if kind == "indicator":
        return _indicator_sentences(facts, title, zh)
    sentences = []
    for subject, m in list(_by_subject(facts).items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        first, last = m["first"], m["last"]
        name = _series_name(subject, title, zh, kind)
        # A long unit ("billions of chained 2012 USD") is said once per sentence.
        bare = len(first.unit or "") > 4
        move = m.get("pct_change") or m.get("change")
        if move is not None and move.unit == "pp":
            move = None  # the two percentages already say it
        if zh:
            text = f"{name}从{first.date}的{_v(first)}变为{last.date}的{_v(last, bare=bare)}"
            if move is not None and isinstance(move.value, float):
                verb = "上涨" if move.value > 0 else "下跌" if move.value < 0 else "变化"
                text += f"，{verb}{_v(move, absolute=True)}"
            if "high" in m and "low" in m:
                text += (
                    f"；期间最高{_v(m['high'], bare=bare)}（{m['high'].date}），"
                    f"最低{_v(m['low'], bare=bare)}（{m['low'].date}）"
                )
            sentences.append(text + "。")
            continue
        text = (
            f"{_upper_first(name)} went from {_v(first)} on {first.date} "
            f"to {_v(last, bare=bare)} on {last.date}"
        )
        if move is not None and isinstance(move.value, float) and move.value != 0:
            verb = "up" if move.value > 0 else "down"
            text += f", {verb} {_v(move, absolute=True)}"
        if "high" in m and "low" in m:
            text += (
                f"; the high was {_v(m['high'], bare=bare)} on {m['high'].date} "
                f"and the low {_v(m['low'], bare=bare)} on {m['low'].date}"
            )
        sentences.append(text + ".")
    return sentences


_MEASURE_WORDS = ("close", "open", "price", "return", "volatility", "drawdown", "change", "level")


def _series_name(subject: str, title: str, zh: bool, kind: str) -> str:
    if kind == "ohlcv":
        title = "Close"
    if zh:
        return f"{subject}的{_TITLE_ZH.get(title, title)}" if title else subject
    if not title:
        return subject
    if any(word in title.lower() for word in _MEASURE_WORDS):
        return f"{title} of {subject}"
    return f"{title} ({subject})"  # a series name, e.g. "US real GDP (GDPC1)"


def _indicator_sentences(facts: list[Fact], title: str, zh: bool) -> list[str]:
    """An indicator's lines at their last date, in one sentence."""
    lasts = [m["last"] for m in _by_subject(facts).values() if "last" in m]
    if not lasts:
        return []
    when = lasts[0].date
    items = [f"{fact.subject} {_v(fact)}" for fact in lasts]
    if zh:
        return [f"{title}在{when}：{'，'.join(items)}。"]
    return [f"{_upper_first(title or 'The indicator')} on {when}: {', '.join(items)}."]


def _cell_sentences(facts: list[Fact], title: str, zh: bool) -> list[str]:
    numeric = [f for f in facts if isinstance(f.value, float)]
    if not numeric:
        return []
    main = numeric[0].measure or "value"
    ranked = [f for f in numeric if f.measure == main]
    others = _by_subject(f for f in facts if f.measure != main)
    label = _measure_label(main, zh)
    head = (_TITLE_ZH.get(title, title) if zh else title) or label
    items = []
    for position, fact in enumerate(ranked[:MAX_RANKED], 1):
        extra = _cell_extras(others.get(fact.subject or "", {}), zh)
        rank = f"{position}. " if len(ranked) > 1 and "rank" in {f.measure for f in facts} else ""
        items.append(f"{rank}{fact.subject} {_v(fact)}{extra}")
    more = len(ranked) - MAX_RANKED
    said = head if label.lower() in head.lower() else f"{head} ({label})"
    if zh:
        tail = f"，另有{more}项" if more > 0 else ""
        said = head if label in head else f"{head}（{label}）"
        return [f"{said}：{'；'.join(items)}{tail}。"]
    tail = f", and {more} more" if more > 0 else ""
    return [f"{_upper_first(said)}: {'; '.join(items)}{tail}."]


def _cell_extras(measures: dict[str, Fact], zh: bool) -> str:
    """The other numbers of a row (mean → median, std …), leaving out bookkeeping columns."""
    parts = [
        f"{_measure_label(name, zh)} {_v(fact)}"
        for name, fact in measures.items()
        if name not in {"rank", "start_value", "end_value"}
        and not name.endswith("_date")
        and isinstance(fact.value, float)
    ][:5]
    dates = [
        f"{_measure_label(name, zh)} {fact.value}"
        for name, fact in measures.items()
        if isinstance(fact.value, str)
    ][:3]
    parts += dates
    if not parts:
        return ""
    return f"（{'，'.join(parts)}）" if zh else f" ({', '.join(parts)})"


def _matrix_sentences(facts: list[Fact], title: str, zh: bool) -> list[str]:
    pairs = [f for f in facts if isinstance(f.value, float)][:MAX_PAIRS]
    if not pairs:
        return []
    label = title or ("相关系数" if zh else "value")
    items = [f"{f.subject} {_v(f)}" for f in pairs]
    if zh:
        return [f"{label}：{'；'.join(items)}。"]
    return [f"{_upper_first(label)}: {'; '.join(items)}."]


def _forecast_sentences(facts: list[Fact], zh: bool) -> list[str]:
    sentences = []
    for subject, m in _by_subject(facts).items():
        point = m.get("forecast")
        if point is None:
            continue
        bare = len(point.unit or "") > 4  # a long unit is said once
        band = ""
        if "lower" in m and "upper" in m:
            band = (
                f"（区间 {_v(m['lower'], bare=bare)} 至 {_v(m['upper'], bare=bare)}）"
                if zh
                else f" (interval {_v(m['lower'], bare=bare)} to {_v(m['upper'], bare=bare)})"
            )
        start = m.get("forecast_first")
        if zh:
            lead = (
                f"{subject}的预测值从{start.date}的{_v(start)}" if start else f"{subject}的预测值"
            )
            sentences.append(
                f"{lead}到{point.date}为{_v(point, bare=bare and start is not None)}{band}。"
            )
        else:
            lead = (
                f"The forecast of {subject} starts at {_v(start)} on {start.date} and reaches"
                if start
                else f"The forecast of {subject} reaches"
            )
            sentences.append(
                f"{lead} {_v(point, bare=bare and start is not None)} on {point.date}{band}."
            )
    return sentences


def _problems_sentence(steps: list[_Step], zh: bool) -> str:
    parts = []
    for step in steps:
        name, error = step.call.interface, (step.record.error or "").rstrip(".")
        if step.record.status == "skipped":
            parts.append(f"{name} 未运行（{error}）" if zh else f"{name} did not run ({error})")
        elif step.record.status == "timeout":
            parts.append(f"{name} 超时（{error}）" if zh else f"{name} timed out ({error})")
        else:
            parts.append(f"{name} 失败：{error}" if zh else f"{name} failed: {error}")
    if zh:
        return "注意：" + "；".join(parts) + "。"
    return "Not everything worked: " + "; ".join(parts) + "."


# --- words --------------------------------------------------------------------------------------

_MEASURE_ZH = {
    "return_pct": "收益率",
    "mean": "均值",
    "median": "中位数",
    "std": "标准差",
    "min": "最小值",
    "max": "最大值",
    "count": "样本数",
    "correlation": "相关系数",
    "max_drawdown_pct": "最大回撤",
    "peak_date": "峰值日",
    "trough_date": "谷底日",
    "recovery_date": "恢复日",
}


_MEASURE_EN = {"max_drawdown_pct": "maximum drawdown", "return_pct": "return"}


def _measure_label(name: str, zh: bool) -> str:
    if zh and name in _MEASURE_ZH:
        return _MEASURE_ZH[name]
    if not zh and name in _MEASURE_EN:
        return _MEASURE_EN[name]
    words = name.removesuffix("_pct").replace("_", " ")
    return words


def _lower_first(text: str) -> str:
    # Keep acronyms and tickers (MACD, AAPL) as written.
    if len(text) > 1 and text[:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
