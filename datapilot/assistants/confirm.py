"""Tool calls waiting for the user's go-ahead in a chat.

A model's call of a tool whose `confirmation(arguments)` gave a reason is stored as a
`tool_call` message carrying that reason and no result: the turn ended there. The user's
`{"command": "run"}` runs it (optionally with edited arguments) and the model goes on;
`{"command": "cancel"}`, or any newer human message, closes it as declined.
"""

from __future__ import annotations

import json
from typing import Any

from datapilot.assistants.conversations import Messages, StoredMessageIn
from datapilot.assistants.models import MessageInfo, ToolCallRecord

DECLINED = "The user declined to run {name}; it did not run. Do not call it again unless asked."


def pending_calls(messages: list[MessageInfo]) -> list[MessageInfo]:
    """The `tool_call` messages that wait for confirmation: asked, and without a result."""
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}
    return [
        m
        for m in messages
        if m.role == "tool_call"
        and m.tool_call is not None
        and m.tool_call.confirmation is not None
        and m.tool_call.id not in answered
    ]


def declined(pending: list[MessageInfo]) -> list[StoredMessageIn]:
    """A `tool` result closing each pending call as declined."""
    return [
        StoredMessageIn(
            role="tool",
            content=DECLINED.format(name=m.tool_call.name),
            assistant_id=m.assistant_id,
            tool_call_id=m.tool_call.id,
        )
        for m in pending
        if m.tool_call is not None
    ]


def decline(messages: Messages, chat_id: str, pending: list[MessageInfo]) -> list[MessageInfo]:
    """Close each pending call as declined; returns what was stored."""
    return messages.add_many(chat_id, declined(pending))


def confirmed(pending: list[MessageInfo], arguments: dict[str, Any] | None) -> list[ToolCallRecord]:
    """The calls to run; edited `arguments` replace those of the (first) pending call."""
    records = [m.tool_call for m in pending if m.tool_call is not None]
    if arguments is not None and records:
        edited = json.dumps(arguments, ensure_ascii=False)
        records[0] = records[0].model_copy(update={"arguments": edited})
    return records
