"""What a client is told when code cannot run: a language nobody runs, shell at a level that
cannot fence a program in, javascript on a server without Node.js — and a list whose code the
client already ran. None of these start or use a kernel (one that was asked for fails the test)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from datapilot.core.messages import LmcChunk
from datapilot.interpreter import languages
from datapilot.interpreter.protocol import LmcMessage, respond

RUN = LmcMessage(role="user", type="command", content="run")


def code(language: str, text: str) -> LmcMessage:
    return LmcMessage(role="user", type="code", format=language, content=text)


async def chunks_of(messages: list[LmcMessage], level: str = "namespace") -> list[dict[str, Any]]:
    """The stream answering `messages`, with a kernel stand-in that fails any run."""

    class NoRun(SimpleNamespace):
        def run(self, *_: Any, **__: Any) -> Any:
            raise AssertionError("code ran")

    async def kernel() -> Any:
        return NoRun(level=level)

    return [
        c.model_dump(exclude_none=True)
        async for c in respond(messages, kernel=kernel, auto_run=True)
    ]


@pytest.mark.parametrize("language", ["r", "applescript", "powershell", "react"])
async def test_another_language_is_refused_naming_those_that_run(language: str) -> None:
    chunks = await chunks_of([code(language, "x"), RUN])
    assert [c["type"] for c in chunks] == ["error", "status"]
    assert f"{language!r}" in chunks[0]["content"]
    assert all(name in chunks[0]["content"] for name in languages.SUPPORTED)


async def test_shell_at_the_audit_level_is_refused_with_the_way_out() -> None:
    chunks = await chunks_of([code("shell", "id"), RUN], level="audit")
    assert [c["type"] for c in chunks] == ["error", "status"]
    said = chunks[0]["content"]
    assert "namespace" in said and "audit" in said and "bubblewrap" in said


async def test_javascript_without_node_names_what_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = ("/nonexistent/node",)
    monkeypatch.setitem(languages._PROGRAMS, "javascript", ("Node.js", missing))
    chunks = await chunks_of([code("javascript", "console.log(1)"), RUN])
    said = chunks[0]["content"]
    assert chunks[0]["type"] == "error" and "Node.js" in said and "/nonexistent/node" in said


async def test_code_the_client_ran_is_not_run_again_offline() -> None:
    output = LmcMessage(role="computer", type="console", format="output", content="7 files\n")
    # Its output sent back: nothing to do without a model.
    assert await chunks_of([code("shell", "ls | wc -l"), output]) == [
        {"role": "server", "type": "status", "content": "complete"}
    ]
    refused = await chunks_of([code("shell", "ls | wc -l"), output, RUN])
    assert refused[0]["type"] == "error" and "has run already" in refused[0]["content"]

    # A user message after it is answered as usual (here by a stand-in for the data workflow).
    async def answer(question: str) -> Any:
        yield LmcChunk(role="assistant", type="message", content=f"answered: {question}")

    asked = LmcMessage(role="user", type="message", content="and the sizes?")
    history = [code("shell", "ls | wc -l"), output, asked]
    chunks = [c async for c in respond(history, kernel=None, auto_run=False, answer=answer)]  # type: ignore[arg-type]
    assert [c.content for c in chunks] == ["answered: and the sizes?", "complete"]


async def test_a_questions_answer_keeps_its_notice_and_completes_once() -> None:
    said = [
        LmcChunk(role="assistant", type="message", content="No model here."),
        LmcChunk(role="server", type="status", format="notice", content="offline reader"),
        LmcChunk(role="server", type="status", content="complete"),
    ]

    async def answer(question: str) -> Any:
        for chunk in said:
            yield chunk

    question = LmcMessage(role="user", type="message", content="hello")
    chunks = [c async for c in respond([question], kernel=None, auto_run=False, answer=answer)]  # type: ignore[arg-type]
    assert chunks == said
