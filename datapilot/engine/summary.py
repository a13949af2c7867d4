"""The template summary: a first-person account of what was done and what the numbers say.

Every number it writes comes from a `Fact`, formatted with `format_value`, so the text is
grounded by construction. English by default; Chinese when the question is, with the
interfaces' English titles and units said in Chinese and entities called by the names given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from datapilot.core.intent import Intent
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, refs_in
from datapilot.core.results import CallRecord, Fact, RunResult
from datapilot.data.text import is_chinese
from datapilot.engine.facts import format_value

if TYPE_CHECKING:
    from datapilot.core.understanding import Understanding

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
    "Series values": "序列数值",
    "Annualised return": "年化收益率",
    "Annualised volatility": "年化波动率",
    "Sharpe ratio": "夏普比率",
    "Available entities": "可用数据",
    "Price": "价格",
}
_TASK_ZH = {"data": "数据", "processing": "处理", "prediction": "预测", "visualization": "展示"}


def understood_line(intent: Intent) -> str:
    """The status line for what was understood, in the question's language: "Understood: …" or
    "已理解：…" (front ends show it before the plan)."""
    if is_chinese(intent.rewritten):
        return f"已理解：{intent.rewritten}"
    return f"Understood: {intent.rewritten}"


def template_summary(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None = None,
) -> str:
    """First-person summary naming the tasks and interfaces used and quoting the key facts.

    `names` maps entity ids to what to call them in the question's language (苹果 for AAPL);
    without it the intent's names are used.
    """
    return "".join(summary_chunks(question, understanding, run, names))


def summary_chunks(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None = None,
) -> list[str]:
    """The summary as sentences (with their separating spaces), for streaming one at a time."""
    sentences = _sentences(question, understanding, run, names)
    if is_chinese(question):
        return sentences
    return [sentence if i == 0 else " " + sentence for i, sentence in enumerate(sentences)]


def _sentences(
    question: str,
    understanding: Understanding,
    run: RunResult,
    names: Mapping[str, str] | None,
) -> list[str]:
    w = _words(is_chinese(question), understanding, names)
    zh = w.zh
    plan = understanding.plan or Plan()
    steps = _steps(plan, run)
    sentences = []
    if plan.tasks:
        sentences.append(_tasks_sentence(plan, zh))
    done = [step for step in steps if step.record.status == "ok"]
    if done:
        sentences.append(_actions_sentence(done, understanding, w))
    for step in _key_results(steps):
        sentences.extend(_fact_sentences(step, w))
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


def _actions_sentence(steps: list[_Step], understanding: Understanding, w: _Words) -> str:
    zh = w.zh
    # The window is said once, on the first call that brings data in.
    window = _window(understanding, zh)
    first_data = next((s for s in steps if s.category == "acquisition"), None) or next(
        (s for s in steps if s.category != "visualization"), None
    )
    phrases = []
    seen_titles: set[str] = set()
    for step in steps:
        name = step.call.interface
        what = _what(step, w)
        when = window if step is first_data else ""
        title = _title(step)
        if step.category == "visualization":
            phrases.append(_shown(step, zh))
        elif step.category == "prediction":
            phrases.append(_forecast_phrase(step, w))
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


def _forecast_phrase(step: _Step, w: _Words) -> str:
    name, frame = step.call.interface, step.value
    if not isinstance(frame, pd.DataFrame):
        return f"用 {name} 做了预测" if w.zh else f"made a forecast with {name}"
    subject = str(frame.attrs.get("entity") or ", ".join(map(str, frame.columns[:1])))
    model = frame.attrs.get("model")
    periods = len(frame)
    if w.zh:
        how = f"（{_model_zh(str(model))}）" if model else ""
        return f"用 {name}{how}预测了{subject}未来{periods}期"
    how = f" ({model})" if model else ""
    return f"forecast {subject} {periods} periods ahead with {name}{how}"


def _what(step: _Step, w: _Words) -> str:
    value = step.value
    if not isinstance(value, pd.DataFrame):
        return "结果" if w.zh else "the result"
    title = str(value.attrs.get("title") or "").strip()
    subjects = _subjects_of(value)
    acquired = subjects and step.category == "acquisition"
    if w.zh:
        if acquired and len(subjects) == 1 and w.is_name_of(title, subjects[0]):
            return w.series(subjects[0])  # 实际GDP（GDPC1）
        title = w.title(title) or "数据"
        named = any(subject in title for subject in subjects)
        return f"{'、'.join(subjects)}的{title}" if acquired and not named else title
    title = _lower_first(title) if title else "the data"
    if acquired and not any(s in title for s in subjects):
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


def _fact_sentences(step: _Step, w: _Words) -> list[str]:
    frame: pd.DataFrame = step.value
    facts = step.record.facts
    kind = frame.attrs.get("kind") or (
        "timeseries" if isinstance(frame.index, pd.DatetimeIndex) else "cross_section"
    )
    title = str(frame.attrs.get("title") or "")
    if kind == "forecast":
        return _forecast_sentences(facts, w)
    if kind == "matrix":
        return _matrix_sentences(facts, title, w)
    if kind in {"timeseries", "indicator", "ohlcv"} and isinstance(frame.index, pd.DatetimeIndex):
        return _series_sentences(_own_units(facts, frame), title, w, kind=kind)
    return _cell_sentences(facts, title, w)


def _own_units(facts: list[Fact], frame: pd.DataFrame) -> list[Fact]:
    """Series of different units side by side (CPI and M1): each value with its own unit."""
    units = frame.attrs.get("units")
    shared = frame.attrs.get("unit")
    if not isinstance(units, dict) or not shared:
        return facts
    return [
        f.model_copy(update={"unit": units[f.subject]})
        if f.unit == shared and units.get(f.subject)
        else f
        for f in facts
    ]


def _by_subject(facts: Iterable[Fact]) -> dict[str, dict[str, Fact]]:
    grouped: dict[str, dict[str, Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.subject or "", {})[fact.measure or "value"] = fact
    return grouped


def _series_sentences(facts: list[Fact], title: str, w: _Words, kind: str) -> list[str]:
    if kind == "indicator":
        return _indicator_sentences(facts, title, w)
    v = w.value
    sentences = []
    for subject, m in list(_by_subject(facts).items())[:MAX_SUBJECTS]:
        if "first" not in m or "last" not in m:
            continue
        first, last = m["first"], m["last"]
        name = _series_name(subject, title, w, kind)
        # A long unit ("billions of chained 2012 USD") is said once per sentence.
        bare = len(first.unit or "") > 4
        move = m.get("pct_change") or m.get("change")
        if move is not None and move.unit == "pp":
            move = None  # the two percentages already say it
        if w.zh:
            text = f"{name}从{first.date}的{v(first)}变为{last.date}的{v(last, bare=bare)}"
            if move is not None and isinstance(move.value, float):
                verb = "上涨" if move.value > 0 else "下跌" if move.value < 0 else "变化"
                text += f"，{verb}{v(move, absolute=True)}"
            if "high" in m and "low" in m:
                text += (
                    f"；期间最高{v(m['high'], bare=bare)}（{m['high'].date}），"
                    f"最低{v(m['low'], bare=bare)}（{m['low'].date}）"
                )
            sentences.append(text + "。")
            continue
        text = (
            f"{_upper_first(name)} went from {v(first)} on {first.date} "
            f"to {v(last, bare=bare)} on {last.date}"
        )
        if move is not None and isinstance(move.value, float) and move.value != 0:
            verb = "up" if move.value > 0 else "down"
            text += f", {verb} {v(move, absolute=True)}"
        if "high" in m and "low" in m:
            text += (
                f"; the high was {v(m['high'], bare=bare)} on {m['high'].date} "
                f"and the low {v(m['low'], bare=bare)} on {m['low'].date}"
            )
        sentences.append(text + ".")
    return sentences


_MEASURE_WORDS = ("close", "open", "price", "return", "volatility", "drawdown", "change", "level")


def _series_name(subject: str, title: str, w: _Words, kind: str) -> str:
    if kind == "ohlcv":
        title = "Close"
    if w.is_name_of(title, subject) or title == "Series values":
        return w.series(subject)  # "US real GDP (GDPC1)", 实际GDP（GDPC1）
    if w.zh:
        return f"{subject}的{w.title(title)}" if title else subject
    if not title:
        return subject
    if any(word in title.lower() for word in _MEASURE_WORDS):
        return f"{title} of {subject}"
    return f"{title} ({subject})"  # a series name, e.g. "US real GDP (GDPC1)"


def _indicator_sentences(facts: list[Fact], title: str, w: _Words) -> list[str]:
    """An indicator's lines at their last date, in one sentence."""
    lasts = [m["last"] for m in _by_subject(facts).values() if "last" in m]
    if not lasts:
        return []
    when = lasts[0].date
    if w.zh:
        items = [f"{_LINE_ZH.get(f.subject or '', f.subject)} {w.value(f)}" for f in lasts]
        return [f"{w.title(title) or '指标'}在{when}：{'，'.join(items)}。"]
    items = [f"{fact.subject} {w.value(fact)}" for fact in lasts]
    return [f"{_upper_first(title or 'The indicator')} on {when}: {', '.join(items)}."]


def _cell_sentences(facts: list[Fact], title: str, w: _Words) -> list[str]:
    numeric = [f for f in facts if isinstance(f.value, float)]
    if not numeric:
        return []
    main = numeric[0].measure or "value"
    ranked = [f for f in numeric if f.measure == main]
    others = _by_subject(f for f in facts if f.measure != main)
    label = _measure_label(main, w.zh)
    head = (w.title(title) if w.zh else title) or label
    items = []
    for position, fact in enumerate(ranked[:MAX_RANKED], 1):
        extra = _cell_extras(others.get(fact.subject or "", {}), w)
        rank = f"{position}. " if len(ranked) > 1 and "rank" in {f.measure for f in facts} else ""
        items.append(f"{rank}{fact.subject} {w.value(fact)}{extra}")
    more = len(ranked) - MAX_RANKED
    said = head if label.lower() in head.lower() else f"{head} ({label})"
    if w.zh:
        tail = f"，另有{more}项" if more > 0 else ""
        said = head if label in head else f"{head}（{label}）"
        return [f"{said}：{'；'.join(items)}{tail}。"]
    tail = f", and {more} more" if more > 0 else ""
    return [f"{_upper_first(said)}: {'; '.join(items)}{tail}."]


def _cell_extras(measures: dict[str, Fact], w: _Words) -> str:
    """The other numbers of a row (mean → median, std …), leaving out bookkeeping columns."""
    parts = [
        f"{_measure_label(name, w.zh)} {w.value(fact)}"
        for name, fact in measures.items()
        if name not in {"rank", "start_value", "end_value"}
        and not name.endswith("_date")
        and isinstance(fact.value, float)
    ][:5]
    dates = [
        f"{_measure_label(name, w.zh)} {fact.value}"
        for name, fact in measures.items()
        if isinstance(fact.value, str)
    ][:3]
    parts += dates
    if not parts:
        return ""
    return f"（{'，'.join(parts)}）" if w.zh else f" ({', '.join(parts)})"


def _matrix_sentences(facts: list[Fact], title: str, w: _Words) -> list[str]:
    pairs = [f for f in facts if isinstance(f.value, float)][:MAX_PAIRS]
    if not pairs:
        return []
    items = [f"{f.subject} {w.value(f)}" for f in pairs]
    if w.zh:
        return [f"{w.title(title) or '相关系数'}：{'；'.join(items)}。"]
    return [f"{_upper_first(title or 'value')}: {'; '.join(items)}."]


def _forecast_sentences(facts: list[Fact], w: _Words) -> list[str]:
    v = w.value
    sentences = []
    for subject, m in _by_subject(facts).items():
        point = m.get("forecast")
        if point is None:
            continue
        bare = len(point.unit or "") > 4  # a long unit is said once
        band = ""
        if "lower" in m and "upper" in m:
            band = (
                f"（区间 {v(m['lower'], bare=bare)} 至 {v(m['upper'], bare=bare)}）"
                if w.zh
                else f" (interval {v(m['lower'], bare=bare)} to {v(m['upper'], bare=bare)})"
            )
        start = m.get("forecast_first")
        if w.zh:
            lead = f"{subject}的预测值从{start.date}的{v(start)}" if start else f"{subject}的预测值"
            sentences.append(
                f"{lead}到{point.date}为{v(point, bare=bare and start is not None)}{band}。"
            )
        else:
            lead = (
                f"The forecast of {subject} starts at {v(start)} on {start.date} and reaches"
                if start
                else f"The forecast of {subject} reaches"
            )
            sentences.append(
                f"{lead} {v(point, bare=bare and start is not None)} on {point.date}{band}."
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


@dataclass(frozen=True)
class _Words:
    """The summary's language and the names it gives entities."""

    zh: bool
    names: Mapping[str, str] = field(default_factory=dict)  # entity id → name to use
    english: Mapping[str, str] = field(default_factory=dict)  # entity id → English name

    def is_name_of(self, title: str, subject: str) -> bool:
        """Whether a frame's title is just the entity's own name ("US real GDP")."""
        return bool(title) and self.english.get(subject) == title

    def series(self, subject: str) -> str:
        """A series called by its name and id: "US real GDP (GDPC1)", 实际GDP（GDPC1）."""
        name = self.names.get(subject) or self.english.get(subject)
        if not name or name == subject:
            return subject
        return f"{name}（{subject}）" if self.zh else f"{name} ({subject})"

    def title(self, title: str) -> str:
        """An interface's title in the summary's language."""
        if not self.zh:
            return title
        by_name = {english: self.names.get(i, english) for i, english in self.english.items()}
        return _title_zh(title, by_name)

    def value(self, fact: Fact, *, absolute: bool = False, bare: bool = False) -> str:
        value = fact.value
        if absolute and isinstance(value, float):
            value = abs(value)
        unit = None if bare else fact.unit
        text = format_value(value, unit)
        if self.zh and unit and text.endswith(f" {unit}"):
            said = _unit_zh(unit)
            joint = " " if said[:1].isascii() else ""
            text = text.removesuffix(f" {unit}") + joint + said
        return text


def _words(zh: bool, understanding: Understanding, names: Mapping[str, str] | None) -> _Words:
    entities = understanding.intent.entities if understanding.intent else []
    english = {e.id: e.name for e in entities if e.name}
    return _Words(zh=zh, names=dict(names or english), english=english)


# A title pattern renders its match, translating inner titles with the function it is given.
_Render = Callable[[re.Match[str], Callable[[str], str]], str]
_STAT_ZH = {"mean": "均值", "median": "中位数", "std": "标准差", "min": "最小值", "max": "最大值"}
_STAT_ZH |= {"count": "样本数", "sum": "合计", "last": "最新值", "first": "首个值"}
_PERIOD_ZH = {"daily": "日", "weekly": "周", "monthly": "月", "quarterly": "季度", "annual": "年"}
_METHOD_ZH = {"pearson": "皮尔逊", "spearman": "斯皮尔曼", "kendall": "肯德尔"}
_CHANGE_ZH = {
    "year-over-year": "同比",
    "quarter-over-quarter": "环比",
    "period-over-period": "逐期",
}
_LINE_ZH = {"macd": "DIF", "signal": "DEA", "hist": "DIF−DEA", "upper": "上轨", "middle": "中轨"}
_LINE_ZH |= {"lower": "下轨", "close": "收盘价", "rsi": "RSI", "cci": "CCI"}
_LINE_ZH |= {"k": "K", "d": "D", "j": "J"}
_TITLE_PATTERNS: list[tuple[re.Pattern[str], _Render]] = [
    (re.compile(r"(?P<x>.+) OHLCV"), lambda m, zh: "开高低收和成交量"),
    (re.compile(r"Close \(adjusted for (?P<x>.+)\)"), lambda m, zh: f"收盘价（{m['x']}为复权价）"),
    (
        re.compile(r"(?P<ind>[A-Z]+(?:\([^)]*\))?) of (?P<x>\S+)"),
        lambda m, zh: f"{m['x']}的{m['ind']}",
    ),
    (
        re.compile(r"(?P<n>\d+)-period rolling volatility(?P<a> \(annualised\))?"),
        lambda m, zh: f"{m['n']}期滚动波动率" + ("（年化）" if m["a"] else ""),
    ),
    (
        re.compile(r"Correlation \((?P<m>\w+)\)"),
        lambda m, zh: f"相关系数（{_METHOD_ZH.get(m['m'], m['m'])}）",
    ),
    (
        re.compile(r"(?i)(?P<s>mean|median|std|min|max|count|sum|last|first) of (?P<x>.+)"),
        lambda m, zh: f"{zh(m['x'])}{_STAT_ZH[m['s'].lower()]}",
    ),
    (re.compile(r"Statistics of (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}统计量"),
    (
        re.compile(r"(?i)(?P<p>daily|weekly|monthly|quarterly|annual) (?P<log>log )?return"),
        lambda m, zh: f"{_PERIOD_ZH[m['p'].lower()]}{'对数' if m['log'] else ''}收益率",
    ),
    (
        re.compile(r"(?P<x>.+) volatility forecast \((?P<m>.+)\)"),
        lambda m, zh: f"{zh(m['x'])}波动率预测（{_model_zh(m['m'])}）",
    ),
    (
        re.compile(r"(?P<x>.+) forecast \((?P<m>.+)\)"),
        lambda m, zh: f"{zh(m['x'])}预测（{_model_zh(m['m'])}）",
    ),
    (
        re.compile(r"(?i)(?P<c>year-over-year|quarter-over-quarter|period-over-period) change"),
        lambda m, zh: f"{_CHANGE_ZH[m['c'].lower()]}变化",
    ),
    (
        re.compile(r"(?P<n>\d+)-period moving average of (?P<x>.+)"),
        lambda m, zh: f"{zh(m['x'])}的{m['n']}期移动平均",
    ),
    (re.compile(r"Normalised to (?P<b>.+)"), lambda m, zh: f"归一化（基期={m['b']}）"),
    (re.compile(r"Beta vs (?P<x>.+)"), lambda m, zh: f"相对{zh(m['x'])}的贝塔"),
    (re.compile(r"Members of (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}成分股"),
    (re.compile(r"(?P<x>.+) fundamentals \((?P<p>.+)\)"), lambda m, zh: f"{zh(m['x'])}财务数据"),
    (re.compile(r"News about (?P<x>.+)"), lambda m, zh: f"{zh(m['x'])}相关新闻"),
    (re.compile(r"(?P<x>.+) NAV"), lambda m, zh: f"{zh(m['x'])}净值"),
]


def _title_zh(title: str, by_name: Mapping[str, str]) -> str:
    """An English title from the interfaces in Chinese: known words, entity names, and the
    patterns the interfaces write ("KDJ(9, 3, 3) of IBM", "30-period rolling volatility")."""
    title = title.strip()
    if " & " in title:
        return "、".join(_title_zh(part, by_name) for part in title.split(" & "))
    if title in _TITLE_ZH:
        return _TITLE_ZH[title]
    if title in by_name:
        return by_name[title]
    for pattern, render in _TITLE_PATTERNS:
        if found := pattern.fullmatch(title):
            return render(found, lambda part: _title_zh(part, by_name))
    return title


_MODEL_ZH = (
    (" with drift", "，含漂移项"),
    (" on log values", "，对数尺度"),
    (", annualised", "，年化"),
)


def _model_zh(model: str) -> str:
    for english, chinese in _MODEL_ZH:
        model = model.replace(english, chinese)
    return model


# Units as the catalog and interfaces write them, in Chinese (longest phrases first).
_UNIT_WORDS_ZH = (
    ("index points", "点"),
    ("billions of", "十亿"),
    ("millions of", "百万"),
    ("thousands of", "千"),
    ("per troy ounce", "/盎司"),
    ("per million BTU", "/百万英热单位"),
    ("per barrel", "/桶"),
    ("per pound", "/磅"),
    ("per ", "/"),
    ("(SAAR)", "（季调年率）"),
    ("persons", "人"),
    ("units", "套"),
    ("shares", "股"),
    ("USD", "美元"),
    ("CNY", "元"),
    ("HKD", "港元"),
    ("JPY", "日元"),
    ("EUR", "欧元"),
)
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
_CHAINED = re.compile(r"chained (?P<y>\d{4}) (?P<c>\S+)")
_INDEX_BASE = re.compile(r"^index (?P<b>.+=100)$")


def _unit_zh(unit: str) -> str:
    """A unit in Chinese ("USD per barrel" → 美元/桶); parts it does not know stay as written."""
    parts = []
    for part in unit.split("; "):
        if based := _INDEX_BASE.match(part):
            parts.append(f"（指数，{based['b']}）")
            continue
        chained = _CHAINED.search(part)
        if chained:
            part = _CHAINED.sub(chained["c"], part) + f"（{chained['y']}年不变价）"
        for english, chinese in _UNIT_WORDS_ZH:
            part = part.replace(english, chinese)
        part = re.sub(r"\s*([（/])\s*", r"\1", part).replace("）（", "，")
        parts.append(_CJK_GAP.sub("", part).strip())
    return "；".join(parts)


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
    "sharpe": "夏普比率",
    "annual_return_pct": "年化收益率",
    "annual_volatility_pct": "年化波动率",
    "annualized_return_pct": "年化收益率",
    "beta": "贝塔",
    "r2": "R²",
}


_MEASURE_EN = {
    "max_drawdown_pct": "maximum drawdown",
    "return_pct": "return",
    "sharpe": "Sharpe ratio",
    "annual_return_pct": "annual return",
    "annual_volatility_pct": "annual volatility",
}


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
