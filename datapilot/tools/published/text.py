"""Tables and answers as text, for hosts that read only a tool result's `content` (most MCP
hosts do): a Markdown table at full precision, capped past a number of rows with a note saying
where the rest is. The same rows are in `structuredContent`, whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.data.display import counted
from datapilot.data.phrases_zh import CHART_ZH
from datapilot.data.text import is_chinese
from datapilot.render.markdown import cell_text, escape_cell, table_headers


def markdown_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    max_rows: int,
    units: Mapping[str, str] | None = None,
    headers: Sequence[str] | None = None,
    zh: bool = False,
) -> str:
    """`title`, then the table in Markdown; past `max_rows` the first and last halves, with a line
    naming how many rows were left out (a time series' start and its latest values both count).
    With `headers` (display names with their units) they head the columns instead of `columns`
    and a line of `units`; `zh` says the counts in Chinese."""
    count = f"{len(rows):,} 行" if zh else counted(len(rows), "row")
    lines = [f"**{escape_cell(title)}** ({count})" if title else count]
    if units and not headers:
        lines.append("Units: " + ", ".join(f"{column}: {unit}" for column, unit in units.items()))
    named = headers if headers and len(headers) == len(columns) else columns
    lines.append("| " + " | ".join(escape_cell(str(column)) for column in named) + " |")
    lines.append("|" + "---|" * len(columns))
    if len(rows) <= max_rows:
        shown: list[Sequence[Any] | None] = list(rows)
    else:
        head = max_rows // 2
        shown = [*rows[:head], None, *rows[len(rows) - (max_rows - head) :]]
    left_out = len(rows) - min(len(rows), max_rows)
    for row in shown:
        if row is None:
            english = f"… {counted(left_out, 'row')} left out here"
            note = f"… 此处略去 {left_out:,} 行" if zh else english
            lines.append("| " + " | ".join([note, *([""] * (len(columns) - 1))]) + " |")
        else:
            lines.append("| " + " | ".join(cell_text(cell) for cell in row) + " |")
    if left_out and zh:
        lines.append(
            f"（共 {len(rows):,} 行，此处未列出 {left_out:,} 行；`structuredContent` 含全部行。）"
        )
    elif left_out:
        lines.append(
            f"({left_out:,} of {len(rows):,} rows are not shown here; structuredContent has "
            "every row, or ask for a shorter window.)"
        )
    return "\n".join(lines)


# An answer's status, as the text content says it to a Chinese question.
STATUS_ZH = {"ok": "已回答", "no_data": "没有数据", "out_of_scope": "超出范围", "error": "出错"}


def ask_text(answer: Answer, max_rows: int) -> str:
    """The answer for a model that reads only text: its words, every table at full precision
    (the tool's structured tables, cell for cell), the charts by title, notes and sources; in
    the question's language, each column by its display name."""
    zh = is_chinese(answer.query)
    lines = [
        f"状态：{STATUS_ZH.get(answer.status, answer.status)}" if zh else f"status: {answer.status}"
    ]
    intent = answer.intent
    if intent is not None and (intent.start or intent.end):
        if zh:
            lines.append(f"时间窗口：{intent.start or '最早'} 至 {intent.end or '最新'}")
        else:
            lines.append(f"window: {intent.start} to {intent.end}")
    if answer.summary or answer.message:
        lines.append(answer.summary or answer.message or "")
    for table in (output for output in answer.outputs if isinstance(output, TableOutput)):
        shown = markdown_table(
            table.title,
            table.columns,
            table.rows,
            max_rows=max_rows,
            units=table.units,
            headers=table_headers(table),
            zh=zh,
        )
        lines += ["", shown]
    for output in answer.outputs:
        if isinstance(output, ChartOutput) and zh:
            lines.append(f"图表“{output.title}”（{CHART_ZH.get(output.chart_type, '图')}）：见下图")
        elif isinstance(output, ChartOutput):
            lines.append(f"chart {output.title!r} ({output.chart_type}): the image below")
        elif isinstance(output, TextOutput):
            lines.append(output.text)
    notes = answer.unsaid_notes()
    if notes:
        lines.append(("备注：" if zh else "notes: ") + " ".join(notes))
    if answer.sources:
        lines.append(("数据来源：" if zh else "sources: ") + ", ".join(answer.sources))
    return "\n".join(lines)
