"""Pipeline events as Open Interpreter 0.2 LMC streaming chunks.

Every chunk is a flat `{role, type, format?, content?, start?, end?}` object. Streamed blocks
(messages, code) open with `start`, carry `content` deltas and close with `end`; atomic outputs
(console lines, images, tables) are single chunks. Mapping:

| event            | chunks                                                                 |
|------------------|------------------------------------------------------------------------|
| status           | `computer/console/output` — one line of progress                        |
| intent, plan     | `assistant/code/json` block — the intent or plan as JSON                |
| call finished    | `computer/console/output` — `✓ description (12 ms)` and its facts        |
| chart            | `computer/image/base64.png` (unless images are off), then               |
|                  | `computer/code/plotly.json` — the Plotly figure `{data, layout}`        |
| table            | `computer/table/json` — `{title, columns, rows, units}`                 |
| text, summary    | `assistant/message` block with the text as deltas                       |
| confirmation     | `computer/confirmation/tool` — `{tool, arguments, message, call_id}`: the  |
|                  | call waits for `{"command": "run"}` or `{"command": "cancel"}`          |
| failure          | `server/error` with the reason, then an `assistant/message` saying it    |
| done             | `assistant/code/python` block — the script reproducing the answer (when  |
|                  | a plan ran), then `server/answer/json` — the whole Answer, then         |
|                  | `server/status/notice` — the Answer's notice, when it has one — and     |
|                  | `server/status` `complete`                                              |
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from datapilot.core.answer import Answer
from datapilot.core.events import (
    ConfirmationEvent,
    Done,
    Event,
    Failed,
    IntentEvent,
    NeedsClientData,
    OutputEvent,
    PlanEvent,
    StatusEvent,
    StepFinished,
    TextDelta,
)
from datapilot.core.messages import LmcChunk, LmcRole, LmcType
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.results import CallRecord
from datapilot.render.cache import cached, chart_key, render_cache
from datapilot.render.prose import Prose

log = logging.getLogger(__name__)
_png_lock = threading.Lock()
PNG_RENDERER = "png"  # `to_png` at its default size and resolution


class Blocks:
    """Tracks the open streamed block so that blocks never interleave."""

    def __init__(self) -> None:
        self.open: tuple[LmcRole, LmcType, str | None] | None = None

    def delta(self, role: LmcRole, kind: LmcType, text: str, fmt: str | None = None) -> list[Any]:
        chunks = []
        if self.open != (role, kind, fmt):
            chunks.extend(self.close())
            chunks.append(LmcChunk(role=role, type=kind, format=fmt, start=True))
            self.open = (role, kind, fmt)
        chunks.append(LmcChunk(role=role, type=kind, format=fmt, content=text))
        return chunks

    def block(self, role: LmcRole, kind: LmcType, text: str, fmt: str | None = None) -> list[Any]:
        return [*self.delta(role, kind, text, fmt), *self.close()]

    def single(self, chunk: LmcChunk) -> list[LmcChunk]:
        return [*self.close(), chunk]

    def close(self) -> list[LmcChunk]:
        if self.open is None:
            return []
        role, kind, fmt = self.open
        self.open = None
        return [LmcChunk(role=role, type=kind, format=fmt, end=True)]


async def lmc_chunks(
    events: AsyncIterator[Event], *, images: bool = True
) -> AsyncIterator[LmcChunk]:
    """Render one question's events as LMC chunks, ending with `server/status complete`."""
    blocks = Blocks()
    prose = Prose()
    async for event in events:
        chunks: list[LmcChunk] = []
        match event:
            case StatusEvent(message=message):
                chunks = blocks.single(_console(message))
            case IntentEvent(intent=intent):
                chunks = blocks.block("assistant", "code", intent.model_dump_json(), "json")
            case PlanEvent(plan=plan):
                chunks = blocks.block("assistant", "code", plan.model_dump_json(), "json")
            case StepFinished(record=record):
                chunks = blocks.single(_console(_call_line(record)))
            case OutputEvent(output=TextOutput(text=text)):
                chunks = blocks.delta("assistant", "message", prose.paragraph(text))
            case OutputEvent(output=TableOutput() as table):
                content = table.model_dump(include={"title", "columns", "rows", "units"})
                chunks = blocks.single(
                    LmcChunk(role="computer", type="table", format="json", content=content)
                )
            case OutputEvent(output=ChartOutput() as chart):
                chunks = blocks.close() + await _chart_chunks(chart, images)
            case TextDelta(text=text):
                chunks = blocks.delta("assistant", "message", prose.delta(text))
            case NeedsClientData():
                text = prose.paragraph(
                    "This question is about dashboard widgets; send their data in "
                    "`tables` and ask again."
                )
                chunks = blocks.delta("assistant", "message", text)
            case ConfirmationEvent() as asked:
                content = asked.model_dump(include={"tool", "arguments", "message", "call_id"})
                chunks = blocks.single(
                    LmcChunk(role="computer", type="confirmation", format="tool", content=content)
                )
            case Failed(message=message):
                chunks = blocks.single(LmcChunk(role="server", type="error", content=message))
                chunks += blocks.delta("assistant", "message", prose.apology(message))
            case Done(answer=answer):
                for chunk in _closing(blocks, answer, prose):
                    yield chunk
                return
        for chunk in chunks:
            yield chunk


def _closing(blocks: Blocks, answer: Answer, prose: Prose) -> list[LmcChunk]:
    chunks: list[LmcChunk] = []
    text = prose.unwritten(answer)
    if text:
        chunks += blocks.delta("assistant", "message", text)
    if answer.code:
        chunks += blocks.block("assistant", "code", answer.code, "python")
    chunks += blocks.close()
    if answer.citations:  # a knowledge library's passages: file, page, offsets, text
        cited = [citation.model_dump(mode="json") for citation in answer.citations]
        chunks.append(LmcChunk(role="assistant", type="message", format="citations", content=cited))
    chunks.append(
        LmcChunk(
            role="server", type="answer", format="json", content=answer.model_dump(mode="json")
        )
    )
    if answer.notice:  # how the answer was made, beside it (a page shows it as a quiet badge)
        chunks.append(
            LmcChunk(role="server", type="status", format="notice", content=answer.notice)
        )
    chunks.append(LmcChunk(role="server", type="status", content="complete"))
    return chunks


async def _chart_chunks(chart: ChartOutput, images: bool) -> list[LmcChunk]:
    chunks = []
    if images:
        chunks.append(await _rendered(chart, _png_chunk, "PNG", "could not be drawn as PNG"))
    chunks.append(await _rendered(chart, _plotly_chunk, "Plotly", "could not be built"))
    return chunks


async def _rendered(
    chart: ChartOutput, render: Callable[[ChartOutput], LmcChunk], renderer: str, failure: str
) -> LmcChunk:
    """`render(chart)` off the event loop; when it fails, a console line saying why."""
    try:
        return await asyncio.to_thread(render, chart)
    except Exception as error:
        log.exception("%s rendering failed for %r", renderer, chart.title)
        return _console(f"The chart {chart.title!r} {failure}: {error}")


def _png_chunk(chart: ChartOutput) -> LmcChunk:
    return LmcChunk(role="computer", type="image", format="base64.png", content=png_base64(chart))


def png_base64(chart: ChartOutput) -> str:
    """The chart as a PNG in base64, drawn once (one at a time) and kept in the render cache;
    blocking: call it off the event loop."""
    return cached(PNG_RENDERER, chart, _png_base64)


def _png_base64(chart: ChartOutput) -> str:
    from datapilot.render.charts import to_png

    # mplfinance draws through pyplot, which is not thread-safe: one PNG at a time. A request
    # that waited here for the same chart finds it drawn.
    with _png_lock:
        drawn = render_cache().get(chart_key(PNG_RENDERER, chart))
        if drawn is not None:
            return drawn
        with tempfile.TemporaryDirectory(prefix="datapilot-png-") as folder:
            path = Path(folder) / "chart.png"
            to_png(chart, path)
            return base64.b64encode(path.read_bytes()).decode("ascii")


def _plotly_chunk(chart: ChartOutput) -> LmcChunk:
    figure = json.loads(cached("plotly", chart, _plotly_json))
    return LmcChunk(role="computer", type="code", format="plotly.json", content=figure)


def _plotly_json(chart: ChartOutput) -> str:
    from datapilot.render.charts import to_plotly

    return json.dumps(to_plotly(chart))


def _console(text: str) -> LmcChunk:
    return LmcChunk(role="computer", type="console", format="output", content=f"{text}\n")


def _call_line(record: CallRecord) -> str:
    label = record.description or record.interface
    mark = "✓" if record.status == "ok" else "✗"
    line = f"{mark} {label} ({record.elapsed_ms:.0f} ms)"
    if record.status != "ok":
        return f"{line}: {record.error or record.status}"
    facts = "; ".join(f"{fact.label} = {fact.value}" for fact in record.facts[:6])
    return f"{line} — {facts}" if facts else line
