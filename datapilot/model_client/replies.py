"""Reading replies off the wire: streamed tool calls put together, calls written as text, and
the tokens a reply cost."""

from __future__ import annotations

from typing import Any

from datapilot.core.model_messages import ToolCall, WireMessage
from datapilot.model_client.errors import UnreadableToolCalls
from datapilot.model_client.tokens import count_chat, count_tokens
from datapilot.model_client.toolcalls import read_calls
from datapilot.model_client.usage import CallUsage


def tool_names(tools: list[dict[str, Any]] | None) -> set[str]:
    return {str((tool.get("function") or tool).get("name")) for tool in tools or []}


def written_calls(text: str, names: set[str], *, strict: bool) -> tuple[ToolCall, ...]:
    """The calls a reply wrote as text; with `strict`, a reply that tried to and could not be
    read is `UnreadableToolCalls` (its text was held back: nothing of it reached the user)."""
    read = read_calls(text, names)
    if strict and read.attempted and not read.calls:
        raise UnreadableToolCalls(f"the model wrote {read.problem} as its reply")
    return read.calls


class CallAssembly:
    """Tool calls put together from their streamed pieces (by index; arguments in parts)."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}

    def add(self, delta: Any) -> None:
        call = self._calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
        call["id"] = delta.id or call["id"]
        if delta.function is not None:
            call["name"] += delta.function.name or ""
            call["arguments"] += delta.function.arguments or ""

    def requests(self) -> list[ToolCall]:
        return [
            ToolCall(
                id=call["id"] or f"call_{index}",
                name=call["name"],
                arguments=call["arguments"] or "{}",
            )
            for index, call in sorted(self._calls.items())
        ]


def stream_usage(usage: CallUsage, chunk: Any) -> None:
    """The tokens a stream's last chunk reports, when the endpoint sends them."""
    if chunk.usage is not None:
        usage.prompt_tokens = chunk.usage.prompt_tokens or usage.prompt_tokens
        usage.completion_tokens = chunk.usage.completion_tokens or 0


def count_usage(
    usage: CallUsage, response: Any, messages: list[WireMessage], reply: list[str]
) -> None:
    """The tokens the endpoint reported, else counted here (`reply`: the reply's text pieces)."""
    if response.usage is not None:
        usage.prompt_tokens = response.usage.prompt_tokens or 0
        usage.completion_tokens = response.usage.completion_tokens or 0
    else:
        usage.prompt_tokens = count_chat(messages)
        usage.completion_tokens = sum(count_tokens(piece) for piece in reply)
