"""The terminal says each thing once: a moved window is the summary's first sentence, not again
as a note after it."""

from __future__ import annotations

import io
from datetime import date
from typing import Any

import pytest
from rich.console import Console
from support.asking import run

from datapilot.core.context import QuestionContext
from datapilot.render.terminal import render


@pytest.mark.parametrize(
    ("question", "moved"),
    [("S&P 500 this year", "The bundled data ends on"), ("标普500今年的走势", "内置数据截至")],
)
async def test_a_moved_window_is_said_once(data: Any, question: str, moved: str) -> None:
    context = QuestionContext(today=date(2025, 6, 30), brain="offline")
    console = Console(file=io.StringIO(), width=400, record=True, color_system=None)
    answer = await render(run(question, context), console, draw_charts=False)
    assert any(note.startswith(moved) for note in answer.notes)  # still in the answer's notes
    assert console.export_text().count(moved) == 1
