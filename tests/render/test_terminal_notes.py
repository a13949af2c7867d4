"""The terminal says each thing once: a moved window is the summary's first sentence, not again
as a note after it; a library's passage is the summary, not also a panel before it; a refusal's
message is not said again under its summary."""

from __future__ import annotations

import io
from datetime import date
from typing import Any

import pytest
from rich.console import Console
from support.asking import run

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, OutputEvent
from datapilot.core.outputs import TextOutput
from datapilot.render.terminal import render
from datapilot.tools.published.text import ask_text
from datapilot.tools.workflow import describe_answer


@pytest.mark.parametrize(
    ("question", "moved"),
    [
        ("S&P 500 over the past year", "The bundled data ends on"),
        ("标普500近一年的走势", "内置数据截至"),
    ],
)
async def test_a_moved_window_is_said_once(data: Any, question: str, moved: str) -> None:
    context = QuestionContext(today=date(2025, 6, 30), brain="offline")
    console = Console(file=io.StringIO(), width=400, record=True, color_system=None)
    answer = await render(run(question, context), console, draw_charts=False)
    assert any(note.startswith(moved) for note in answer.notes)  # still in the answer's notes
    assert console.export_text().count(moved) == 1


@pytest.mark.parametrize(
    ("question", "moved"),
    [
        ("S&P 500 over the past year", "The bundled data ends on"),
        ("标普500近一年的走势", "内置数据截至"),
    ],
)
async def test_a_moved_window_is_said_once_in_the_text_of_mcp_and_of_a_tool_result(
    data: Any, question: str, moved: str
) -> None:
    context = QuestionContext(today=date(2025, 6, 30), brain="offline")
    answer = next(
        e.answer for e in [e async for e in run(question, context)] if isinstance(e, Done)
    )
    assert ask_text(answer, max_rows=40).count(moved) == 1  # MCP's `ask`
    assert describe_answer(answer).count(moved) == 1  # what an assistant's model reads


PASSAGE = "> The hedge ratio for the bond book is 0.42, set in March. (notes.md)"


async def _events(*events: Event) -> Any:
    for event in events:
        yield event


@pytest.mark.parametrize(
    ("status", "message", "summary"),
    [
        ("ok", None, f"The passage of notes.md that answers this most closely:\n\n{PASSAGE}"),
        (
            "no_data",
            "The documents in the library 'desk' do not mention this.",
            "The documents in the library 'desk' do not mention this.\n\nThe closest passages "
            f"in it (they do not answer the question):\n\n{PASSAGE}",
        ),
    ],
)
async def test_a_library_answer_says_its_passages_once(
    status: str, message: str | None, summary: str
) -> None:
    answer = Answer(
        query="What is the hedge ratio?",
        today=date(2024, 6, 30),
        status=status,  # type: ignore[arg-type]
        summary=summary,
        message=message,
    )
    console = Console(file=io.StringIO(), width=200, record=True, color_system=None)
    await render(
        _events(OutputEvent(output=TextOutput(text=summary)), Done(answer=answer)), console
    )
    shown = console.export_text()
    assert shown.count("The hedge ratio for the bond book is 0.42") == 1, shown
    if message:
        assert shown.count(message) == 1 and "no data" in shown  # titled by its status
