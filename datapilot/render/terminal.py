"""The rich terminal view of a question's events: a live spinner per running call, the plan as a
tree, tables, charts and the summary."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from datapilot.core.answer import Answer
from datapilot.core.events import (
    Done,
    Event,
    Failed,
    IntentEvent,
    NeedsClientData,
    OutputEvent,
    PlanEvent,
    StatusEvent,
    StepFinished,
    StepStarted,
    TextDelta,
)
from datapilot.core.intent import Intent
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, is_ref
from datapilot.core.results import CallRecord
from datapilot.data.display import kind_name, measure_name
from datapilot.data.phrases_zh import CHART_ZH, TASK_ZH
from datapilot.data.text import is_chinese
from datapilot.render.markdown import table_headers
from datapilot.render.wrap import Wrapped, wrap

MAX_TABLE_ROWS = 15
MAX_TABLE_COLUMNS = 10
_MARKS = {
    "ok": "[green]✓[/]",
    "failed": "[red]✗[/]",
    "timeout": "[red]⏱[/]",
    "skipped": "[yellow]↷[/]",
}
_STATUS_STYLE = {"ok": "green", "no_data": "yellow", "out_of_scope": "yellow", "error": "red"}
# The view's own words, (English, Chinese): a Chinese question is answered in Chinese throughout
# (the plan's calls stay code). Columns and measures are named by `data.display`.
_WORDS = {
    "entities": ("entities", "标的"),
    "window": ("window", "时间窗口"),
    "to": ("→", "至"),
    "metrics": ("metrics", "指标"),
    "horizon": ("horizon: {n}", "预测期数：{n}"),
    "plan": ("Plan", "计划"),
    "tasks": ("Tasks", "任务"),
    "step": ("Step {n}", "第 {n} 步"),
    "step_line": ("step {n}", "第 {n} 步"),
    "chart": ("chart", "图表"),
    "summary": ("Summary", "总结"),
    "sources": ("sources", "数据来源"),
    "note": ("note", "提示"),
    "size": ("{rows} rows × {columns} columns", "{rows} 行 × {columns} 列"),
    "writing": ("Writing the summary…", "正在写总结…"),
    "starting": ("Starting…", "开始…"),
    "wrote": ("wrote", "已写入"),
    "widgets": ("Widget data requested: {names}", "需要组件数据：{names}"),
    "no_chart": (
        "the chart could not be drawn here ({error}); --out writes it as PNG and HTML, "
        "--open shows it in the browser",
        "这里画不出这张图（{error}）；--out 会写出 PNG 和 HTML，--open 在浏览器中打开",
    ),
}
_STATUS_WORDS = {
    "ok": ("ok", "已回答"),
    "no_data": ("no data", "没有数据"),
    "out_of_scope": ("out of scope", "超出范围"),
    "error": ("error", "出错"),
}
_TIMING_WORDS = {
    "understand": "理解",
    "validate": "校验",
    "setup": "准备",
    "execute": "执行",
    "summarize": "总结",
    "total": "合计",
}


def say(key: str, zh: bool, **values: Any) -> str:
    """One of the view's words in the answer's language, its {fields} filled."""
    english, chinese = _WORDS[key]
    return (chinese if zh else english).format(**values)


def label(key: str, zh: bool) -> str:
    """A line's label with its colon: "entities: ", 标的："""
    return f"{say(key, zh)}：" if zh else f"{say(key, zh)}: "


async def render(
    events: AsyncIterator[Event], console: Console | None = None, *, draw_charts: bool | None = None
) -> Answer:
    """Draw `events` as they arrive and return the final Answer. Charts are drawn in text cells
    when `draw_charts`, by default when the console is a terminal (not a pipe or a file)."""
    console = console or Console()
    view = _View(console, console.is_terminal if draw_charts is None else draw_charts)
    answer: Answer | None = None
    with Live(view, console=console, transient=True, refresh_per_second=12) as live:
        async for event in events:
            view.handle(event, live.console)
            if isinstance(event, Done):
                answer = event.answer
    assert answer is not None, "the event stream ended without a done event"
    said = _plain(f"{answer.summary or ''} {answer.message or ''}")
    for text in view.texts:  # a passage the summary does not hold already
        if _plain(text) not in said:
            console.print(Panel(escape(wrap(text, max(20, console.width - 4)))))
    print_answer(answer, console)
    return answer


def _plain(text: str) -> str:
    """`text` with its whitespace collapsed, to tell whether one text holds another."""
    return " ".join(text.split())


def print_answer(answer: Answer, console: Console) -> None:
    """The summary, the message of a non-ok answer, notes, sources and timings, in the language
    of the question; Chinese text is wrapped between words and numbers, never inside a number."""
    zh = is_chinese(answer.query)
    style = _STATUS_STYLE.get(answer.status, "white")
    width = max(20, console.width - 4)  # inside a panel's borders and padding
    status_panel = answer.status != "ok" or (answer.message and not answer.summary)
    title = _STATUS_WORDS.get(answer.status, (answer.status, answer.status))[1 if zh else 0]
    message = answer.message or ""
    summary = answer.summary or ""
    if status_panel and summary and _plain(message) in _plain(summary):
        # A refusal whose summary holds its message is said once, titled by its status.
        message, summary = summary, ""
    if summary:
        shown = escape(wrap(summary, width))
        console.print(Panel(shown, title=say("summary", zh), border_style=style))
    if status_panel:
        console.print(Panel(escape(wrap(message or title, width)), title=title, style=style))
    for note in answer.unsaid_notes():
        console.print(f"[yellow]{label('note', zh)}[/]{escape(note)}")
    if answer.notice:  # how the answer was made: quiet, after the answer
        console.print(f"[dim]{escape(answer.notice)}[/]")
    if answer.sources:
        console.print(f"[dim]{label('sources', zh)}{escape(', '.join(answer.sources))}[/]")
    if answer.timings_ms:
        timings = ", ".join(
            f"{_TIMING_WORDS.get(k, k) if zh else k} {v:,.0f} ms"
            for k, v in answer.timings_ms.items()
        )
        timings = timings.replace(", ", "，") if zh else timings
        console.print(f"[dim]{timings}[/]")


def print_files(paths: Iterable[Path], console: Console, zh: bool = False) -> None:
    """The files written for the outputs, said in the answer's language."""
    for path in paths:
        console.print(f"[dim]{say('wrote', zh)}[/] {escape(str(path))}")


class _View:
    """The live part (status and running calls) plus the permanent prints for each event, in
    the question's language once the intent says what it is."""

    def __init__(self, console: Console, draw_charts: bool = False) -> None:
        self.console = console
        self.draw_charts = draw_charts
        self.zh = False
        self.status = say("starting", False)
        self.running: dict[str, Call] = {}
        self.calls: dict[str, Call] = {}
        self.texts: list[str] = []

    def __rich__(self) -> Any:
        lines: list[Any] = [Spinner("dots", text=Text(self.status, style="cyan"))]
        for call in self.running.values():
            lines.append(Spinner("dots", text=Text(f"  {call_words(call, self.zh)}")))
        return Group(*lines)

    def handle(self, event: Event, out: Console) -> None:
        if isinstance(event, StatusEvent):
            self.zh = self.zh or is_chinese(event.message)
            self.status = event.message
        elif isinstance(event, IntentEvent):
            self.zh = is_chinese(event.intent.rewritten)
            out.print(intent_panel(event.intent))
        elif isinstance(event, PlanEvent):
            self.calls = {call.output: call for call in event.plan.calls()}
            out.print(plan_tree(event.plan, self.zh))
        elif isinstance(event, StepStarted):
            self.running[event.call.output] = event.call
        elif isinstance(event, StepFinished):
            self.running.pop(event.record.output, None)
            call = self.calls.get(event.record.output)
            out.print(record_line(event.step, event.record, self.zh, call))
        elif isinstance(event, OutputEvent) and isinstance(event.output, TextOutput):
            # Printed at the end, unless the summary says it (a library's passages are both).
            self.texts.append(event.output.text)
        elif isinstance(event, OutputEvent):
            out.print(output_view(event.output, self.zh))
            if self.draw_charts and isinstance(event.output, ChartOutput):
                out.print(chart_view(event.output, out.width, self.zh))
        elif isinstance(event, Failed):
            out.print(f"[red]{escape(event.message)}[/]")
        elif isinstance(event, NeedsClientData):
            names = ", ".join(w.name or w.widget_id for w in event.request.widgets)
            out.print(f"[yellow]{escape(say('widgets', self.zh, names=names))}[/]")
        elif isinstance(event, TextDelta):
            self.status = say("writing", self.zh)


def intent_panel(intent: Intent) -> Panel:
    """What was understood: the restated question, entities, window and the decisions taken."""
    zh = is_chinese(intent.rewritten)
    lines = [f"[bold]{escape(intent.rewritten)}[/]"]
    if intent.entities:
        entities = ("、" if zh else ", ").join(_entity_words(e, zh) for e in intent.entities)
        lines.append(f"{label('entities', zh)}{escape(entities)}")
    if intent.start or intent.end:
        window = f"{intent.start or '…'} {say('to', zh)} {intent.end or '…'}"
        lines.append(f"{label('window', zh)}{window}")
    if intent.metrics:
        metrics = ("、" if zh else ", ").join(measure_name(m, zh) for m in intent.metrics)
        lines.append(f"{label('metrics', zh)}{escape(metrics)}")
    if intent.horizon:
        lines.append(say("horizon", zh, n=intent.horizon))
    lines.extend(f"[dim]· {escape(reason)}[/]" for reason in intent.trace)
    title = "已理解" if zh else "Understood"
    return Panel("\n".join(lines), title=title, border_style="cyan")


def _entity_words(entity: Any, zh: bool) -> str:
    """An entity as the panel names it: "AAPL (Apple Inc., stock)", 苹果（AAPL，股票）."""
    if not zh:
        return f"{entity.id} ({entity.name}, {entity.kind})"
    name = entity.label or _chinese_name(entity.id) or entity.name
    if not name or name == entity.id:
        return f"{entity.id}（{kind_name(entity.kind, zh)}）"
    return f"{name}（{entity.id}，{kind_name(entity.kind, zh)}）"


def _chinese_name(entity_id: str) -> str | None:
    """The catalog's Chinese name of an entity an intent made without labels names."""
    from datapilot.data import get_catalog
    from datapilot.data.phrases_zh import chinese_name

    try:
        known = get_catalog().get(entity_id)
    except Exception:  # the view names what it can; the catalog is the data layer's to report
        return None
    return chinese_name(known) if known is not None else None


def plan_tree(plan: Plan, zh: bool | None = None) -> Tree:
    """The plan: tasks, then steps with their calls and arguments (the calls as code)."""
    if zh is None:
        zh = any(is_chinese(task.instruction) for task in plan.tasks)
    tree = Tree(f"[bold]{say('plan', zh)}[/]")
    if plan.tasks:
        tasks = tree.add(say("tasks", zh))
        for number, task in enumerate(plan.tasks, 1):
            kind = TASK_ZH.get(task.kind, task.kind) if zh else task.kind
            tasks.add(f"{number}. [magenta]{kind}[/] {escape(task.instruction)}")
    for number, step in enumerate(plan.steps, 1):
        branch = tree.add(say("step", zh, n=number))
        for call in step.calls:
            label = f"[bold]{call.interface}[/]({escape(_args_text(call.args))}) → {call.output}"
            if call.description:
                label += f" [dim]{escape(call.description)}[/]"
            branch.add(label)
    return tree


def call_words(call: Call, zh: bool) -> str:
    """A running call: what it does when the plan says so in Chinese, else its code."""
    if zh and call.description and is_chinese(call.description):
        return call.description
    return f"{call.interface} → {call.output}"


def record_line(step: int, record: CallRecord, zh: bool = False, call: Call | None = None) -> str:
    mark = _MARKS.get(record.status, "?")
    took = f"[dim]{record.elapsed_ms:,.0f} ms[/]"
    if zh and call is not None and call.description and is_chinese(call.description):
        what = escape(call.description)
    else:
        what = f"{record.interface} → {record.output}"
    line = f"{mark} {say('step_line', zh, n=step)} · {what} {took}"
    if record.error:
        line += f"\n    [dim]{escape(record.error)}[/]"
    return line


def output_view(output: ChartOutput | TableOutput | TextOutput, zh: bool | None = None) -> Any:
    if isinstance(output, TableOutput):
        return table_view(output, zh)
    if isinstance(output, ChartOutput):
        zh = is_chinese(output.title) if zh is None else zh
        kind = CHART_ZH.get(output.chart_type, output.chart_type) if zh else output.chart_type
        kind = f"（{kind}）" if zh else f" ({kind}) "
        return f"[bold]{say('chart', zh)}[/]{kind}{escape(output.title)}"
    return Panel(escape(output.text))


def chart_view(chart: ChartOutput, width: int, zh: bool = False) -> Any:
    """The chart drawn in text cells (plotext), or why it could not be."""
    from datapilot.render.terminal_chart import chart_text

    try:
        return Text.from_ansi(chart_text(chart, width=max(40, min(width, 140))))
    except Exception as error:  # a chart the terminal cannot draw still has its PNG and HTML
        return f"[dim]{escape(say('no_chart', zh, error=type(error).__name__))}[/]"


def table_view(table: TableOutput, zh: bool | None = None) -> Table:
    """A rich table, cut to the first and last rows and the first columns when large; each
    column headed by its display name and unit in the answer's language."""
    zh = is_chinese(table.title) if zh is None else zh
    columns = table.columns[:MAX_TABLE_COLUMNS]
    view = Table(title=escape(table.title), show_lines=False)
    for header in table_headers(table)[: len(columns)]:
        view.add_column(Wrapped(header), overflow="fold")
    rows = table.rows
    if len(rows) > MAX_TABLE_ROWS:
        head, tail = rows[: MAX_TABLE_ROWS - 5], rows[-4:]
        rows = [*head, ["…"] * len(columns), *tail]
    for row in rows:
        view.add_row(*(_cell(value) for value in row[: len(columns)]))
    hidden = len(table.columns) - len(columns)
    if hidden > 0 or len(table.rows) > MAX_TABLE_ROWS:
        view.caption = say("size", zh, rows=len(table.rows), columns=len(table.columns))
    return view


def _cell(value: Any) -> Wrapped:
    """A cell's text, folded between words and numbers when its column is narrow."""
    if isinstance(value, float):
        return Wrapped(f"{value:,.4g}" if abs(value) < 1 else f"{value:,.2f}")
    return Wrapped("" if value is None else str(value))


def _args_text(args: dict[str, Any]) -> str:
    parts = []
    for name, value in args.items():
        if is_ref(value):
            text = f"${value['$ref']}"
        elif isinstance(value, list) and value and all(is_ref(v) for v in value):
            text = "[" + ", ".join(f"${v['$ref']}" for v in value) + "]"
        else:
            text = repr(value)
        if len(text) > 40:
            text = text[:37] + "..."
        parts.append(f"{name}={text}")
    return ", ".join(parts)
