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
from datapilot.data.text import is_chinese

MAX_TABLE_ROWS = 15
MAX_TABLE_COLUMNS = 10
_MARKS = {
    "ok": "[green]✓[/]",
    "failed": "[red]✗[/]",
    "timeout": "[red]⏱[/]",
    "skipped": "[yellow]↷[/]",
}
_STATUS_STYLE = {"ok": "green", "no_data": "yellow", "out_of_scope": "yellow", "error": "red"}


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
    print_answer(answer, console)
    return answer


def print_answer(answer: Answer, console: Console) -> None:
    """The summary, the message of a non-ok answer, notes, sources and timings."""
    style = _STATUS_STYLE.get(answer.status, "white")
    if answer.summary:
        console.print(Panel(escape(answer.summary), title="Summary", border_style=style))
    if answer.status != "ok" or (answer.message and not answer.summary):
        console.print(
            Panel(escape(answer.message or answer.status), title=answer.status, style=style)
        )
    for note in answer.notes:
        console.print(f"[yellow]note:[/] {escape(note)}")
    if answer.notice:  # how the answer was made: quiet, after the answer
        console.print(f"[dim]{escape(answer.notice)}[/]")
    if answer.sources:
        console.print(f"[dim]sources: {escape(', '.join(answer.sources))}[/]")
    if answer.timings_ms:
        timings = ", ".join(f"{k} {v:,.0f} ms" for k, v in answer.timings_ms.items())
        console.print(f"[dim]{timings}[/]")


def print_files(paths: Iterable[Path], console: Console) -> None:
    """The files written for the outputs."""
    for path in paths:
        console.print(f"[dim]wrote[/] {escape(str(path))}")


class _View:
    """The live part (status and running calls) plus the permanent prints for each event."""

    def __init__(self, console: Console, draw_charts: bool = False) -> None:
        self.console = console
        self.draw_charts = draw_charts
        self.status = "Starting…"
        self.running: dict[str, Call] = {}

    def __rich__(self) -> Any:
        lines: list[Any] = [Spinner("dots", text=Text(self.status, style="cyan"))]
        for call in self.running.values():
            lines.append(Spinner("dots", text=Text(f"  {call.interface} → {call.output}")))
        return Group(*lines)

    def handle(self, event: Event, out: Console) -> None:
        if isinstance(event, StatusEvent):
            self.status = event.message
        elif isinstance(event, IntentEvent):
            out.print(intent_panel(event.intent))
        elif isinstance(event, PlanEvent):
            out.print(plan_tree(event.plan))
        elif isinstance(event, StepStarted):
            self.running[event.call.output] = event.call
        elif isinstance(event, StepFinished):
            self.running.pop(event.record.output, None)
            out.print(record_line(event.step, event.record))
        elif isinstance(event, OutputEvent):
            out.print(output_view(event.output))
            if self.draw_charts and isinstance(event.output, ChartOutput):
                out.print(chart_view(event.output, out.width))
        elif isinstance(event, Failed):
            out.print(f"[red]{escape(event.message)}[/]")
        elif isinstance(event, NeedsClientData):
            names = ", ".join(w.name or w.widget_id for w in event.request.widgets)
            out.print(f"[yellow]Widget data requested: {escape(names)}[/]")
        elif isinstance(event, TextDelta):
            self.status = "Writing the summary…"


def intent_panel(intent: Intent) -> Panel:
    """What was understood: the restated question, entities, window and the decisions taken."""
    lines = [f"[bold]{escape(intent.rewritten)}[/]"]
    if intent.entities:
        entities = ", ".join(f"{e.id} ({e.name}, {e.kind})" for e in intent.entities)
        lines.append(f"entities: {escape(entities)}")
    if intent.start or intent.end:
        lines.append(f"window: {intent.start or '…'} → {intent.end or '…'}")
    if intent.metrics:
        lines.append(f"metrics: {escape(', '.join(intent.metrics))}")
    if intent.horizon:
        lines.append(f"horizon: {intent.horizon}")
    lines.extend(f"[dim]· {escape(reason)}[/]" for reason in intent.trace)
    title = "已理解" if is_chinese(intent.rewritten) else "Understood"
    return Panel("\n".join(lines), title=title, border_style="cyan")


def plan_tree(plan: Plan) -> Tree:
    """The plan: tasks, then steps with their calls and arguments."""
    tree = Tree("[bold]Plan[/]")
    if plan.tasks:
        tasks = tree.add("Tasks")
        for number, task in enumerate(plan.tasks, 1):
            tasks.add(f"{number}. [magenta]{task.kind}[/] {escape(task.instruction)}")
    for number, step in enumerate(plan.steps, 1):
        branch = tree.add(f"Step {number}")
        for call in step.calls:
            label = f"[bold]{call.interface}[/]({escape(_args_text(call.args))}) → {call.output}"
            if call.description:
                label += f" [dim]{escape(call.description)}[/]"
            branch.add(label)
    return tree


def record_line(step: int, record: CallRecord) -> str:
    mark = _MARKS.get(record.status, "?")
    took = f"[dim]{record.elapsed_ms:,.0f} ms[/]"
    line = f"{mark} step {step} · {record.interface} → {record.output} {took}"
    if record.error:
        line += f"\n    [dim]{escape(record.error)}[/]"
    return line


def output_view(output: ChartOutput | TableOutput | TextOutput) -> Any:
    if isinstance(output, TableOutput):
        return table_view(output)
    if isinstance(output, ChartOutput):
        return f"[bold]chart[/] ({output.chart_type}) {escape(output.title)}"
    return Panel(escape(output.text))


def chart_view(chart: ChartOutput, width: int) -> Any:
    """The chart drawn in text cells (plotext), or why it could not be."""
    from datapilot.render.terminal_chart import chart_text

    try:
        return Text.from_ansi(chart_text(chart, width=max(40, min(width, 140))))
    except Exception as error:  # a chart the terminal cannot draw still has its PNG and HTML
        return (
            f"[dim]the chart could not be drawn here ({escape(type(error).__name__)}); "
            "--out writes it as PNG and HTML, --open shows it in the browser[/]"
        )


def table_view(table: TableOutput) -> Table:
    """A rich table, cut to the first and last rows and the first columns when large."""
    columns = table.columns[:MAX_TABLE_COLUMNS]
    view = Table(title=escape(table.title), show_lines=False)
    for column in columns:
        unit = table.units.get(column)
        view.add_column(escape(f"{column} ({unit})" if unit else column), overflow="fold")
    rows = table.rows
    if len(rows) > MAX_TABLE_ROWS:
        head, tail = rows[: MAX_TABLE_ROWS - 5], rows[-4:]
        rows = [*head, ["…"] * len(columns), *tail]
    for row in rows:
        view.add_row(*(_cell(value) for value in row[: len(columns)]))
    hidden = len(table.columns) - len(columns)
    if hidden > 0 or len(table.rows) > MAX_TABLE_ROWS:
        view.caption = f"{len(table.rows)} rows × {len(table.columns)} columns"
    return view


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1 else f"{value:,.2f}"
    return escape("" if value is None else str(value))


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
