"""Outputs as OpenBB Workspace artifacts: tables, and charts the Workspace draws natively.

Each chart panel becomes one chart artifact over the panel's columns: line (also area and
band), bar, scatter and pie map one to one. A candlestick chart, which the Workspace cannot draw
(its charts are line, bar, scatter, pie and donut), comes as the drawn PNG with all its indicator
panels in an html artifact, beside a table of its prices and indicators. Overlay panels
(moving averages, MACD histogram) join the panel they overlay; forecast bands and reference
levels (RSI 30/70) are drawn as extra lines.
"""

from __future__ import annotations

import base64
import math
import re
from html import escape
from typing import Any, Literal

from openbb_ai import chart, table
from openbb_ai.models import ClientArtifact, MessageArtifactSSE

from datapilot.core.outputs import ChartOutput, ChartSpec, Panel, TableOutput


class ArtifactNamer:
    """Artifact names must be unique within a chat: repeat titles in an answer get a counter,
    and answers after the first carry their turn number (the same question may come again)."""

    def __init__(self, turn: int = 1) -> None:
        self._seen: dict[str, int] = {}
        self._suffix = f" — turn {turn}" if turn > 1 else ""

    def __call__(self, title: str) -> str:
        count = self._seen.get(title, 0) + 1
        self._seen[title] = count
        name = title if count == 1 else f"{title} ({count})"
        return name + self._suffix


_LONG_TEXT = 80  # characters: a cell longer than this reads better wrapped than in a grid


def table_artifact(output: TableOutput, name: ArtifactNamer) -> MessageArtifactSSE:
    """A table output as a table artifact; units go in the description. A table of links or
    long text (news, filings) becomes an html artifact, so links are clickable and text wraps;
    a table that is only paragraphs of text (no links, no numbers) becomes a text artifact."""
    units = ", ".join(f"{column}: {unit}" for column, unit in output.units.items())
    description = f"Units: {units}" if units else output.title
    if _is_prose(output):
        # Paragraphs (a company profile, notes) read as text, not as a grid of one column.
        artifact = ClientArtifact(
            type="text", name=name(output.title), description=description, content=_prose(output)
        )
        return MessageArtifactSSE(data=artifact)
    if _is_rich(output):
        artifact = ClientArtifact(
            type="html",
            name=name(output.title),
            description=description,
            content=_html_table(output),
        )
        return MessageArtifactSSE(data=artifact)
    return table(
        data=_rows_as_records(output.columns, output.rows, output.columns),
        name=name(output.title),
        description=description,
    )


def _is_rich(output: TableOutput) -> bool:
    return any(
        isinstance(cell, str) and (_URL.match(cell) or len(cell) > _LONG_TEXT)
        for row in output.rows
        for cell in row
    )


_URL = re.compile(r"^https?://\S+$")
_PROSE_COLUMNS = 2  # a label and its text at most; wider tables stay grids


def _is_prose(output: TableOutput) -> bool:
    """Only text, no links, at most a label and a text column, and some of it long."""
    cells = [cell for row in output.rows for cell in row if cell is not None]
    return (
        0 < len(output.columns) <= _PROSE_COLUMNS
        and bool(cells)
        and all(isinstance(cell, str) and not _URL.match(cell) for cell in cells)
        and any(len(cell) > _LONG_TEXT for cell in cells)
    )


def _prose(output: TableOutput) -> str:
    """One paragraph per row: its label, then its text."""
    paragraphs = []
    for row in output.rows:
        parts = [str(cell) for cell in row if cell]
        if len(parts) == 2 and len(parts[0]) <= _LONG_TEXT:
            paragraphs.append(f"{parts[0]}: {parts[1]}")
        else:
            paragraphs.append(" ".join(parts))
    return "\n\n".join(paragraphs)


def _html_table(output: TableOutput) -> str:
    """The table as escaped HTML, links clickable."""
    head = "".join(f"<th>{escape(str(column))}</th>" for column in output.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_html_cell(cell)}</td>" for cell in row) + "</tr>"
        for row in output.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_cell(cell: Any) -> str:
    if cell is None or (isinstance(cell, float) and not math.isfinite(cell)):
        return ""
    text = escape(str(cell))
    if isinstance(cell, str) and _URL.match(cell):
        return f'<a href="{text}" target="_blank" rel="noopener noreferrer">{text}</a>'
    return text


def is_candlestick(output: ChartOutput) -> bool:
    return bool(output.spec.panels) and output.spec.panels[0].mark == "candlestick"


def candlestick_artifacts(
    output: ChartOutput, png: bytes, name: ArtifactNamer
) -> list[MessageArtifactSSE]:
    """The drawn candlestick (`png`, every panel) as an html artifact, then the OHLC table."""
    spec = output.spec
    title = escape(output.title)
    source = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    image = ClientArtifact(
        type="html",
        name=name(output.title),
        description=_description(spec, spec.panels[0], output),
        content=f'<img src="{source}" alt="{title}" style="max-width:100%;height:auto">',
    )
    columns = [column for column in spec.columns if column != spec.x]
    prices = table(
        data=_records(spec, columns),
        name=name(f"{output.title} — data"),
        description=_description(spec, spec.panels[0], output),
    )
    return [MessageArtifactSSE(data=image), prices]


def chart_artifacts(output: ChartOutput, name: ArtifactNamer) -> list[MessageArtifactSSE]:
    """A chart output as one or more artifacts the Workspace can draw; a pie with a hole as a
    donut."""
    spec = output.spec
    artifacts: list[MessageArtifactSSE] = []
    for index, (panel, overlays) in enumerate(spec.panel_groups()):
        title = output.title if index == 0 else f"{output.title} — {_panel_label(panel)}"
        extra = [column for overlay in overlays for column in overlay.y]
        if index == 0:
            extra += [column for pair in spec.bands for column in pair]
        levels = [*panel.levels, *(level for overlay in overlays for level in overlay.levels)]
        artifacts.extend(_panel_artifacts(spec, panel, title, extra, levels, name, output))
    return artifacts


def _panel_artifacts(
    spec: ChartSpec,
    panel: Panel,
    title: str,
    extra: list[str],
    levels: list[float],
    name: ArtifactNamer,
    output: ChartOutput,
) -> list[MessageArtifactSSE]:
    present = set(spec.columns)
    y = [c for c in dict.fromkeys([*panel.y, *extra]) if c in present and c != spec.x]
    if not y:
        return []
    description = _description(spec, panel, output)
    if panel.mark == "candlestick":
        close = "close" if "close" in panel.y else panel.y[-1]
        lines = [close, *(column for column in y if column not in panel.y)]
        return [
            table(data=_records(spec, y), name=name(title), description=description),
            chart(
                type="line",
                data=_with_levels(_records(spec, lines), levels),
                x_key=spec.x,
                y_keys=[*lines, *_level_keys(levels)],
                name=name(f"{title} — {close}"),
                description=description,
            ),
        ]
    if panel.mark == "pie":
        return [
            chart(
                type="donut" if spec.hole > 0 else "pie",
                data=_records(spec, y[:1]),
                angle_key=y[0],
                callout_label_key=spec.x,
                name=name(title),
                description=description,
            )
        ]
    kinds: dict[str, Literal["line", "bar", "scatter"]] = {"bar": "bar", "scatter": "scatter"}
    kind = kinds.get(panel.mark, "line")
    return [
        chart(
            type=kind,
            data=_with_levels(_records(spec, y), levels),
            x_key=spec.x,
            y_keys=[*y, *_level_keys(levels)],
            name=name(title),
            description=description,
        )
    ]


def _level_keys(levels: list[float]) -> list[str]:
    return [f"level {level:g}" for level in levels]


def _with_levels(records: list[dict[str, Any]], levels: list[float]) -> list[dict[str, Any]]:
    """Reference levels drawn as constant series, the only way a Workspace chart can."""
    if levels:
        constants = dict(zip(_level_keys(levels), levels, strict=True))
        for record in records:
            record.update(constants)
    return records


def _panel_label(panel: Panel) -> str:
    return panel.title or ", ".join(panel.y)


def _description(spec: ChartSpec, panel: Panel, output: ChartOutput) -> str:
    parts = [panel.title or output.title]
    if panel.unit:
        parts.append(f"unit: {panel.unit}")
    if spec.fit is not None and panel.mark == "scatter":
        fit = spec.fit
        parts.append(f"fit: y = {fit.slope:.4g}·x + {fit.intercept:.4g} (R² = {fit.r2:.3f})")
    return "; ".join(parts)


def _records(spec: ChartSpec, columns: list[str]) -> list[dict[str, Any]]:
    """Rows as records holding the x column and `columns` only."""
    return _rows_as_records(spec.columns, spec.rows, [spec.x, *columns])


def _rows_as_records(
    columns: list[str], rows: list[list[Any]], keep: list[str]
) -> list[dict[str, Any]]:
    positions = [(column, columns.index(column)) for column in dict.fromkeys(keep)]
    return [{column: _json_value(row[i]) for column, i in positions} for row in rows]


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
