"""One `Tool` protocol for everything an assistant can call, and one way to call it.

A tool has a name, a description and JSON-schema parameters (as OpenAI function calling sends
them), and an async `call` that returns a `ToolOutput`: text for the model and artifacts
(tables, charts) for the user. `run_tool` parses the model's arguments, bounds the call with a
timeout and caps the text the model gets back; artifacts pass through untouched. It never
raises: a failure is a `ToolResult` saying what went wrong, so a model can recover.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from datapilot.core.answer import Answer
from datapilot.core.outputs import Output

log = logging.getLogger(__name__)

# A model reads a tool's text on every later round: a few thousand characters is plenty.
DEFAULT_CAP_CHARS = 6000
DEFAULT_TIMEOUT_S = 60.0


class ToolOutput(BaseModel):
    """What a tool produced: text for the model, artifacts for the user."""

    text: str
    outputs: list[Output] = Field(default_factory=list)
    answer: Answer | None = Field(default=None, description="The data workflow's whole answer.")
    # An interface's frame itself, for the answers that chart it; never sent or stored.
    frame: Any = Field(default=None, exclude=True, repr=False)


class ToolResult(BaseModel):
    """One call's outcome as the runtime records it."""

    name: str
    call_id: str = ""
    ok: bool
    text: str = Field(description="For the model: capped and summarised.")
    outputs: list[Output] = Field(default_factory=list, description="For the user, untouched.")
    answer: Answer | None = None
    elapsed_ms: float = 0.0
    frame: Any = Field(default=None, exclude=True, repr=False)


@runtime_checkable
class Tool(Protocol):
    """Anything an assistant can call."""

    # Read-only: a dataclass field or a property both do.
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    @property
    def source(self) -> str:
        """workflow | interface | openapi | mcp | interpreter (the store's tool sources)."""
        ...

    async def call(self, arguments: dict[str, Any]) -> ToolOutput: ...


def function_schema(tool: Tool) -> dict[str, Any]:
    """The tool as an OpenAI `tools` entry."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def cap_text(text: str, limit: int = DEFAULT_CAP_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"{text[:limit].rstrip()}\n[… {cut} more characters left out]"


async def run_tool(
    tool: Tool,
    arguments: str | dict[str, Any],
    *,
    call_id: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cap_chars: int = DEFAULT_CAP_CHARS,
) -> ToolResult:
    """Call `tool` with the model's arguments (JSON text or a dict) under a timeout."""
    started = time.perf_counter()

    def failed(message: str) -> ToolResult:
        elapsed = (time.perf_counter() - started) * 1000
        return ToolResult(
            name=tool.name, call_id=call_id, ok=False, text=message, elapsed_ms=elapsed
        )

    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as error:
            return failed(
                f"The arguments for {tool.name} were not valid JSON ({error.msg}); "
                f"call it again with a JSON object matching its parameters."
            )
    else:
        parsed = arguments
    if not isinstance(parsed, dict):
        return failed(f"The arguments for {tool.name} must be a JSON object, not {parsed!r}.")
    try:
        async with asyncio.timeout(timeout_s):
            output = await tool.call(parsed)
    except TimeoutError:
        return failed(f"{tool.name} did not finish within {timeout_s:g} s and was stopped.")
    except Exception as error:  # a tool's failure is the model's information, not a crash
        return failed(f"{tool.name} failed: {type(error).__name__}: {error}")
    return ToolResult(
        name=tool.name,
        call_id=call_id,
        ok=True,
        text=cap_text(output.text, cap_chars),
        outputs=output.outputs,
        answer=output.answer,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        frame=output.frame,
    )


def call_arguments(text: str) -> dict[str, Any] | None:
    """A call's arguments as written (JSON; empty is none), or None when they are no object."""
    try:
        parsed = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def confirmation(tool: Tool | None, arguments: str) -> str | None:
    """Why the user must confirm this call first, or None (tools without `confirmation` run)."""
    ask = getattr(tool, "confirmation", None)
    if tool is None or not callable(ask):
        return None
    parsed = call_arguments(arguments)
    if parsed is None:
        return None  # the call fails without running and the model hears why: nothing to ask
    try:
        message = ask(parsed)
    except Exception:  # a tool that cannot say asks anyway: never run unconfirmed by mistake
        log.warning("confirmation() of %s failed; asking the user", tool.name, exc_info=True)
        return f"Run {tool.name}?"
    return str(message) if message is not None else None
