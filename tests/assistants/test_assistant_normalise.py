"""Normalising a chat's history into OpenAI chat messages: one test per rule."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import (
    DEFAULT_PROMPT,
    TOOL_FAILED,
    HistoryMessage,
    NormalisationError,
    Prompts,
    normalise,
)
from datapilot.core.model_messages import to_openai

WHEN = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)


def sent(history: Sequence[HistoryMessage], **options: Any) -> list[dict[str, Any]]:
    """The normalised history as the model client sends it: OpenAI's wire dicts."""
    return to_openai(normalise(history, **options))


def human(text: str, **extra: object) -> HistoryMessage:
    return HistoryMessage(role="human", content=text, **extra)  # type: ignore[arg-type]


def call(call_id: str, name: str = "ask_data") -> HistoryMessage:
    return HistoryMessage(
        role="tool_call", tool_call=ToolCallRecord(id=call_id, name=name, arguments="{}")
    )


def result(call_id: str, text: str = "42") -> HistoryMessage:
    return HistoryMessage(role="tool", content=text, tool_call_id=call_id)


def test_system_prompts_merge_in_order() -> None:
    history = [
        HistoryMessage(role="system", content="LEADING"),
        HistoryMessage(role="system_hidden", content="HIDDEN LEADING"),
        human("hi"),
    ]
    prompts = Prompts(assistant="ASSISTANT", chat="CHAT")
    system = sent(history, prompts=prompts, stamps=False)[0]
    assert system["role"] == "system"
    text = system["content"]
    order = [
        text.index(part) for part in (DEFAULT_PROMPT, "ASSISTANT", "CHAT", "LEADING", "HIDDEN")
    ]
    assert order == sorted(order)
    assert [m["role"] for m in sent(history, prompts=prompts)] == ["system", "user"]


def test_default_prompt_can_be_disabled() -> None:
    prompts = Prompts(assistant="ONLY ME", disable_default=True)
    system = sent([human("hi")], prompts=prompts)[0]["content"]
    assert system == "ONLY ME"


def test_system_override_replaces_the_prompt_for_this_call() -> None:
    history = [human("hi"), HistoryMessage(role="system_override", content="OVERRIDE")]
    messages = sent(history, prompts=Prompts(assistant="ASSISTANT"))
    assert messages[0] == {"role": "system", "content": "OVERRIDE"}
    assert all("OVERRIDE" not in str(m["content"]) for m in messages[1:])


def test_human_messages_are_stamped_with_their_time() -> None:
    messages = sent([human("what now?", created_at=WHEN)])
    assert messages[-1]["content"] == "[Sent at 2026-11-23 09:30 UTC]\nwhat now?"


def test_a_reply_of_another_assistant_is_noted() -> None:
    history = [
        human("q1"),
        HistoryMessage(role="assistant", content="from A", assistant_id="a1"),
        HistoryMessage(role="assistant", content="from B", assistant_id="b2"),
        human("q2"),
    ]
    messages = sent(history, assistant_id="b2", names={"a1": "Analyst"}, stamps=False)
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert "another assistant, Analyst" in replies[0] and replies[0].endswith("from A")
    assert replies[1] == "from B"


def test_runs_of_blank_lines_collapse() -> None:
    messages = sent([human("a\n\n\n\n  \nb")], stamps=False)
    assert messages[-1]["content"] == "a\n\nb"


def test_a_call_without_result_gets_a_failed_result() -> None:
    history = [human("q"), call("c1"), human("and?")]
    messages = sent(history, stamps=False)
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assert messages[3] == {"role": "tool", "tool_call_id": "c1", "content": TOOL_FAILED}


def test_a_call_left_open_at_the_end_is_closed() -> None:
    messages = sent([human("q"), call("c1")], stamps=False)
    assert messages[-1]["tool_call_id"] == "c1" and messages[-1]["content"] == TOOL_FAILED


def test_a_result_with_the_wrong_id_closes_the_open_call_as_failed() -> None:
    messages = sent([human("q"), call("c1"), result("zzz", "stray")], stamps=False)
    assert messages[-1] == {"role": "tool", "tool_call_id": "c1", "content": TOOL_FAILED}
    assert all(m.get("content") != "stray" for m in messages)


def test_parallel_calls_share_one_assistant_message_and_keep_results() -> None:
    history = [human("q"), call("c1"), call("c2"), result("c2", "two"), result("c1", "one")]
    messages = sent(history, stamps=False)
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["c1", "c2"]
    assert [(m["tool_call_id"], m["content"]) for m in messages[3:]] == [
        ("c2", "two"),
        ("c1", "one"),
    ]


def test_knowledge_comes_as_a_data_block_in_the_question() -> None:
    history = [human("q"), HistoryMessage(role="knowledge", content="Apple split 4:1 in 2020")]
    messages = sent(history, stamps=False)
    assert len(messages) == 2
    system, question = messages
    assert "Apple split 4:1 in 2020" not in system["content"]
    assert "not instructions" in system["content"]
    assert question["content"].startswith("<retrieved_passages>")
    assert "[1] Apple split 4:1 in 2020\n</retrieved_passages>\n\nq" in question["content"]


def test_an_image_becomes_an_image_part_of_the_next_human_message() -> None:
    url = "data:image/png;base64,iVBORw0KGgo="
    history = [HistoryMessage(role="file", image_url=url), human("what is this chart?")]
    content = sent(history, stamps=False)[-1]["content"]
    assert content == [
        {"type": "text", "text": "what is this chart?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]


def test_no_human_message_is_an_error() -> None:
    with pytest.raises(NormalisationError, match="no message from the user"):
        sent([HistoryMessage(role="assistant", content="hello")])
