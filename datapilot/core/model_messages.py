"""What is said to a model and what it says back: one typed vocabulary, after pydantic-ai's
`ModelRequest`/`ModelResponse` parts.

Everything from normalising a chat through the tool loop to the model client speaks these
types; only the model client turns them into OpenAI's wire dicts, with `to_openai`, at its
edge. Each message here is exactly one wire message, in order, so what goes over the wire is
the same as when the dicts were built by hand.

- `SystemPrompt`: instructions (the merged system prompt, or a note further down);
- `UserPrompt`: the user's text, or text and images (`TextPart`, `ImagePart`);
- `ModelResponse`: what the model answered: its text and the `ToolCall`s it asked for (the
  tokens it cost and why it stopped, when it comes from a call);
- `ToolReturn`: a tool's result, answering one `ToolCall` by its id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

WireMessage = dict[str, Any]
"""One message in OpenAI's chat format: what goes over the wire, nothing more."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class TextPart(_Frozen):
    """Text within a user's message that also holds images."""

    kind: Literal["text"] = "text"
    text: str


class ImagePart(_Frozen):
    """An image the user attached, by URL (a data URL for uploaded files)."""

    kind: Literal["image"] = "image"
    url: str


class SystemPrompt(_Frozen):
    kind: Literal["system"] = "system"
    text: str


class UserPrompt(_Frozen):
    """The user's message: plain text, or parts (text and images)."""

    kind: Literal["user"] = "user"
    content: str | tuple[TextPart | ImagePart, ...]

    def with_block(self, block: str) -> UserPrompt:
        """This message with `block` (e.g. retrieved passages) ahead of its text."""
        if isinstance(self.content, str):
            return UserPrompt(content=f"{block}\n\n{self.content}")
        return UserPrompt(content=(TextPart(text=block), *self.content))


class ToolCall(_Frozen):
    """A function call the model asked for (arguments as the JSON text it wrote)."""

    id: str
    name: str
    arguments: str = "{}"


class ModelResponse(_Frozen):
    """The model's reply: its text and tool calls; from a call, also why it stopped and the
    tokens of that one call (in a request's history they are left at their defaults)."""

    kind: Literal["response"] = "response"
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ToolReturn(_Frozen):
    """A tool's result, answering the call `tool_call_id`."""

    kind: Literal["tool"] = "tool"
    tool_call_id: str
    content: str


ModelMessage = SystemPrompt | UserPrompt | ModelResponse | ToolReturn


def _call(call: ToolCall) -> WireMessage:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def _part(part: TextPart | ImagePart) -> WireMessage:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    return {"type": "image_url", "image_url": {"url": part.url}}


def to_openai_message(message: ModelMessage | WireMessage) -> WireMessage:
    """One message as OpenAI's chat dict (a dict passes through: the callers that still build
    their wire messages by hand)."""
    if isinstance(message, dict):
        return message
    if isinstance(message, SystemPrompt):
        return {"role": "system", "content": message.text}
    if isinstance(message, UserPrompt):
        content = message.content
        if isinstance(content, str):
            return {"role": "user", "content": content}
        return {"role": "user", "content": [_part(part) for part in content]}
    if isinstance(message, ToolReturn):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.tool_calls:
        return {
            "role": "assistant",
            "content": message.text or None,
            "tool_calls": [_call(call) for call in message.tool_calls],
        }
    return {"role": "assistant", "content": message.text}


def to_openai(messages: Iterable[ModelMessage | WireMessage]) -> list[WireMessage]:
    """The messages as OpenAI's chat format, the only place they become wire dicts."""
    return [to_openai_message(message) for message in messages]
