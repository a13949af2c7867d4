"""Tool calls written as text, for models and servers without function calling.

A server that refuses `tools` gets them described in the prompt with the form to call them in
(`with_tools_described`); a small model served without a tool-aware chat template writes its
calls as text anyway. `read_calls` reads such text where its form is unambiguous: `<tool_call>`
tags (the Hermes, Qwen and SmolLM2 form), or a reply that is nothing but one JSON call (or a
list of them), bare or in one code fence. Each call must name an offered tool and give its
arguments as an object; anything else that looks like a call is `attempted` but not read, and
the caller answers without tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from datapilot.core.model_messages import (
    ModelMessage,
    ModelResponse,
    SystemPrompt,
    ToolCall,
    ToolReturn,
    UserPrompt,
)

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FENCED = re.compile(r"\A```[\w-]*\s*\n?(.*?)\s*```\Z", re.DOTALL)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
# How a reply that may be a call begins: its text is held back until it is read whole.
CALL_OPENINGS = ("<tool_call", "```", "{", "[")

TOOLS_PROMPT = """\
You can call tools. To call one, reply with nothing but
<tool_call>{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}</tool_call>
and you will be given its result. Answer in plain text when you need no tool.
Tools:
{tools}"""


@dataclass(frozen=True)
class TextCalls:
    """What a reply's text holds: the calls read from it, or why a call-like text was not."""

    calls: tuple[ToolCall, ...] = ()
    attempted: bool = False
    problem: str = ""


def may_be_call(text: str) -> bool:
    """Whether text that starts like this may turn out to be a tool call written as text."""
    head = text.lstrip()[:10]
    return any(head.startswith(opening) or opening.startswith(head) for opening in CALL_OPENINGS)


def read_calls(text: str, names: Collection[str]) -> TextCalls:
    """The tool calls written in `text` (see the module docstring); `names` are the tools
    offered. Plain text is `TextCalls()`: neither calls nor an attempt."""
    stripped = text.strip()
    if "<tool_call>" in stripped:
        payloads = _TAGGED.findall(stripped)
    elif fenced := _FENCED.match(stripped):
        payloads = [fenced.group(1)]
    elif stripped[:1] in ("{", "["):
        payloads = [stripped]
    else:
        return TextCalls()
    tagged = "<tool_call>" in stripped
    calls: list[ToolCall] = []
    for payload in payloads:
        try:
            value = json.loads(payload)
        except ValueError:
            if tagged:
                return TextCalls(attempted=True, problem="a <tool_call> that is not valid JSON")
            return TextCalls()  # prose or code that happens to start with a bracket
        items = value if isinstance(value, list) else [value]
        if not tagged and not all(_names_a_tool(item) for item in items):
            return TextCalls()  # JSON that is not a call (an answer given as JSON)
        for item in items:
            call = _call(item, names, len(calls))
            if isinstance(call, str):
                return TextCalls(attempted=True, problem=call)
            calls.append(call)
    if not calls:
        return TextCalls(attempted=True, problem="an empty tool call")
    return TextCalls(calls=tuple(calls), attempted=True)


def _names_a_tool(item: Any) -> bool:
    return isinstance(item, dict) and any(key in item for key in _NAME_KEYS)


def _call(item: Any, names: Collection[str], number: int) -> ToolCall | str:
    """One call read from its JSON, or what is wrong with it."""
    if not isinstance(item, dict):
        return "a tool call that is not a JSON object"
    function = item.get("function")
    if isinstance(function, dict):  # OpenAI's own shape, written out as text
        item = function
    name = next((item[key] for key in _NAME_KEYS if isinstance(item.get(key), str)), None)
    if name is None:
        return "a tool call without a tool name"
    if name not in names:
        return f"a call of {name!r}, which is not one of the tools offered"
    arguments: Any = next((item[key] for key in _ARGUMENT_KEYS if key in item), {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return f"arguments of {name!r} that are not valid JSON"
    if not isinstance(arguments, dict):
        return f"arguments of {name!r} that are not a JSON object"
    return ToolCall(id=f"call_text_{number}", name=name, arguments=json.dumps(arguments))


def with_tools_described(
    messages: Sequence[ModelMessage], tools: list[dict[str, Any]]
) -> list[ModelMessage]:
    """`messages` for an endpoint without `tools`: the tools described in the system prompt,
    earlier calls and their results written as text in the same form."""
    listed = "\n".join(_describe(tool) for tool in tools)
    described = TOOLS_PROMPT.format(tools=listed)
    shown: list[ModelMessage] = []
    for message in messages:
        if isinstance(message, ModelResponse) and message.tool_calls:
            written = "\n".join(_written(call) for call in message.tool_calls)
            shown.append(ModelResponse(text=f"{message.text}\n{written}".strip()))
        elif isinstance(message, ToolReturn):
            shown.append(
                UserPrompt(content=f"<tool_response>\n{message.content}\n</tool_response>")
            )
        else:
            shown.append(message)
    if shown and isinstance(shown[0], SystemPrompt):
        # Some chat templates take one system message, and only first.
        return [SystemPrompt(text=f"{shown[0].text}\n\n{described}"), *shown[1:]]
    return [SystemPrompt(text=described), *shown]


def _describe(tool: dict[str, Any]) -> str:
    function = tool.get("function", tool)
    parameters = json.dumps(function.get("parameters") or {}, separators=(",", ":"))
    return f"- {function.get('name')}: {function.get('description', '')} Arguments: {parameters}"


def _written(call: ToolCall) -> str:
    try:
        arguments = json.loads(call.arguments or "{}")
    except ValueError:  # a model's malformed arguments, shown back as they were
        arguments = call.arguments
    return "<tool_call>" + json.dumps({"name": call.name, "arguments": arguments}) + "</tool_call>"
