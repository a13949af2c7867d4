"""Events become well-formed Open Interpreter LMC chunks: balanced blocks, images, tables."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from datetime import date

import numpy as np
import pytest

from datapilot.core.answer import Answer
from datapilot.core.events import Done, Event, Failed, OutputEvent, StatusEvent, TextDelta
from datapilot.core.outputs import ChartOutput, ChartSpec, Panel, TableOutput
from datapilot.render.cache import render_cache
from datapilot.render.lmc import LmcChunk, lmc_chunks

CHART = ChartOutput(
    chart_type="line",
    title="Close",
    spec=ChartSpec(
        x="date",
        columns=["date", "close"],
        rows=[["2019-01-02", 157.9], ["2019-01-03", 142.2], ["2019-01-04", 148.3]],
        panels=[Panel(mark="line", y=["close"])],
    ),
)
TABLE = TableOutput(title="Closes", columns=["date", "close"], rows=CHART.spec.rows)
ANSWER = Answer(query="q", today=date(2019, 12, 31), status="ok", summary="It fell, then rose.")


async def _events(items: list[Event]) -> AsyncIterator[Event]:
    for item in items:
        yield item


async def _chunks(items: list[Event], images: bool = True) -> list[LmcChunk]:
    return [chunk async for chunk in lmc_chunks(_events(items), images=images)]


def _values(array: dict | list) -> list:
    """Plotly 6 writes numeric arrays as base64 typed arrays."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return array


def _assert_balanced(chunks: list[LmcChunk]) -> None:
    open_block = None
    for chunk in chunks:
        key = (chunk.role, chunk.type, chunk.format)
        if chunk.start:
            assert open_block is None, f"{key} opened inside {open_block}"
            open_block = key
        elif chunk.end:
            assert open_block == key
            open_block = None
        elif open_block is not None:
            assert key == open_block, f"{key} interleaved with {open_block}"
    assert open_block is None


async def test_a_full_answer() -> None:
    chunks = await _chunks(
        [
            StatusEvent(message="Reading the question…"),
            OutputEvent(output=CHART),
            OutputEvent(output=TABLE),
            TextDelta(text="It fell, "),
            TextDelta(text="then rose."),
            Done(answer=ANSWER),
        ]
    )
    _assert_balanced(chunks)
    assert chunks[-1].model_dump(exclude_none=True) == {
        "role": "server",
        "type": "status",
        "content": "complete",
    }
    assert chunks[0].type == "console" and "Reading" in chunks[0].content

    (image,) = [c for c in chunks if c.type == "image"]
    assert image.format == "base64.png"
    assert base64.b64decode(image.content).startswith(b"\x89PNG\r\n\x1a\n")
    (figure,) = [c for c in chunks if c.format == "plotly.json"]
    (trace,) = figure.content["data"]
    assert _values(trace["y"]) == [row[1] for row in CHART.spec.rows]

    (table,) = [c for c in chunks if c.type == "table"]
    assert table.content["rows"] == TABLE.rows

    message = "".join(c.content for c in chunks if c.type == "message" and c.content)
    assert message == ANSWER.summary
    (answer,) = [c for c in chunks if c.type == "answer"]
    assert Answer.model_validate(answer.content) == ANSWER


async def test_no_images_when_turned_off_and_the_answer_text_when_nothing_streamed() -> None:
    chunks = await _chunks([OutputEvent(output=CHART), Done(answer=ANSWER)], images=False)
    _assert_balanced(chunks)
    assert not [c for c in chunks if c.type == "image"]
    assert [c.content for c in chunks if c.type == "message" and c.content] == [ANSWER.summary]


async def test_a_failure_is_reported_then_the_stream_completes() -> None:
    failed = ANSWER.model_copy(update={"status": "error", "summary": "", "message": "boom"})
    chunks = await _chunks(
        [TextDelta(text="Partial."), Failed(status="error", message="boom"), Done(answer=failed)]
    )
    _assert_balanced(chunks)
    (error,) = [c for c in chunks if c.type == "error"]
    assert (error.role, error.content) == ("server", "boom")
    message = "".join(c.content for c in chunks if c.type == "message" and c.content)
    assert message == "Partial.\n\nSorry, I could not finish: boom"
    assert chunks[-1].content == "complete"


async def test_a_chart_that_cannot_be_drawn_is_said_and_the_rest_still_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_png(chart: ChartOutput, path: object) -> None:
        raise RuntimeError("no display")

    monkeypatch.setattr("datapilot.render.charts.to_png", no_png)
    render_cache().clear()  # an earlier test drew this chart: drawn charts are cached
    chunks = await _chunks(
        [OutputEvent(output=CHART), OutputEvent(output=TABLE), Done(answer=ANSWER)]
    )
    _assert_balanced(chunks)
    assert not [c for c in chunks if c.type == "image"]
    notes = [c.content for c in chunks if c.type == "console"]
    assert notes == ["The chart 'Close' could not be drawn as PNG: no display\n"]
    (figure,) = [c for c in chunks if c.format == "plotly.json"]
    assert _values(figure.content["data"][0]["y"]) == [row[1] for row in CHART.spec.rows]
    assert [c.type for c in chunks if c.type in ("table", "answer", "status")] == [
        "table",
        "answer",
        "status",
    ]
