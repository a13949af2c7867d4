"""The interpreter's language-model path, Open Interpreter style.

With a model configured, a question is answered by the model writing code: through OpenAI
function calling (the `python` function) or as a fenced ```python block in its reply. Its prose
streams as `assistant/message`, its code as `assistant/code/python`, then a `confirmation` chunk
names the code and the stream ends. When the client approves (`run`), the output goes back to
the model, which continues — within `MAX_ROUNDS` model calls per request. Where auto-run is
allowed, the code runs at once and the model goes on in the same stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from datapilot.core.messages import LmcChunk
from datapilot.core.model_messages import (
    ModelMessage,
    ModelResponse,
    SystemPrompt,
    ToolCall,
    ToolReturn,
    UserPrompt,
)
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.results import model_text
from datapilot.interpreter.sessions import arun
from datapilot.model_client import LLMClient, LLMConfig, LLMError
from datapilot.render.lmc import Blocks

MAX_ROUNDS = 5
FENCE = "```"
RUNNABLE = frozenset({"python", "py", "python3"})
SYSTEM = (
    "You are a data analyst with a sandboxed Python kernel. To compute, call the `python` "
    "function with the code (or write one ```python block). pandas as pd, numpy and matplotlib "
    "are installed; `dp.prices(ids, start, end)`, `dp.series(ids)` and `dp.interfaces.<name>(...)` "
    "read the data; there is no network. The user approves each run and you then read its "
    "output. Print what you need to see; answer in plain words once you have the numbers."
)
PYTHON_FUNCTION: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "python",
        "description": "Run Python code in the sandboxed kernel; returns what it printed.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Python code to run."}},
            "required": ["code"],
        },
    },
}
NOT_RUN = "The user did not run this code."
OUT_OF_ROUNDS = "The model used every round of this request; send `run` or a new message to go on."


@dataclass
class FenceSplitter:
    """Splits streamed reply text into prose and fenced code, as LMC blocks. A fence split
    across pieces is held back until it is whole; code in languages that do not run here stays
    in the prose, fences included."""

    blocks: Blocks = field(default_factory=Blocks)
    code: list[str] = field(default_factory=list)  # the runnable blocks, in order
    _buffer: str = ""
    _state: str = "text"  # text | lang | code | other (a non-runnable fenced block)
    _current: list[str] = field(default_factory=list)

    def feed(self, text: str, *, final: bool = False) -> list[LmcChunk]:
        self._buffer += text
        chunks: list[LmcChunk] = []
        while True:
            if self._state == "lang":
                newline = self._buffer.find("\n")
                if newline < 0:
                    if not final:
                        break
                    newline = len(self._buffer)
                language = self._buffer[:newline].strip().lower()
                self._buffer = self._buffer[newline + 1 :]
                if language in RUNNABLE:
                    self._state, self._current = "code", []
                else:
                    self._state = "other"
                    chunks += self.blocks.delta("assistant", "message", f"{FENCE}{language}\n")
                continue
            at = self._buffer.find(FENCE)
            if at < 0:
                keep = 0 if final else len(FENCE) - 1  # a fence may be arriving
                emit, self._buffer = (
                    self._buffer[: len(self._buffer) - keep],
                    self._buffer[len(self._buffer) - keep :],
                )
                chunks += self._emit(emit)
                if final:
                    chunks += self._close_code()
                break
            chunks += self._emit(self._buffer[:at])
            self._buffer = self._buffer[at + len(FENCE) :]
            if self._state == "text":
                self._state = "lang"
            elif self._state == "code":
                chunks += self._close_code()
                self._state = "text"
            else:  # the end of a non-runnable block: back to prose
                chunks += self.blocks.delta("assistant", "message", FENCE)
                self._state = "text"
        if final:
            chunks += self.blocks.close()
        return chunks

    def _emit(self, text: str) -> list[LmcChunk]:
        if not text:
            return []
        if self._state == "code":
            self._current.append(text)
            return self.blocks.delta("assistant", "code", text, "python")
        return self.blocks.delta("assistant", "message", text)

    def _close_code(self) -> list[LmcChunk]:
        if self._state != "code":
            return []
        self.code.append("".join(self._current))
        self._current = []
        self._state = "text"
        return self.blocks.close()


def _call_id(index: int) -> str:
    return f"call_{index}"


def model_messages(messages: list[Any], system: str = SYSTEM) -> list[ModelMessage]:
    """The LMC history as model messages: the assistant's code as `python` calls with their
    outputs as results (code nobody ran says so), the user's own code and its output as text."""
    out: list[ModelMessage] = [SystemPrompt(text=system)]
    open_call: str | None = None
    results: list[str] = []

    def close() -> None:
        nonlocal open_call
        if open_call is not None:
            text = "\n".join(results).strip() or NOT_RUN
            out.append(ToolReturn(tool_call_id=open_call, content=text))
            open_call = None
            results.clear()

    def said(role: str, text: str) -> ModelMessage:
        return ModelResponse(text=text) if role == "assistant" else UserPrompt(content=text)

    for index, message in enumerate(messages):
        role, kind, content = message.role, message.type, message.content
        if role == "computer":
            if kind in ("console", "image", "code", "table") and (open_call or kind == "console"):
                text = model_text([message.model_dump(exclude_none=True)])
                if open_call is not None:
                    results.append(text)
                elif text:
                    out.append(UserPrompt(content=f"Output of my code:\n{text}"))
            continue
        if role == "user" and kind == "command":
            continue
        close()
        if role == "assistant" and kind == "code":
            open_call = _call_id(index)
            call = ToolCall(
                id=open_call, name="python", arguments=json.dumps({"code": str(content or "")})
            )
            last = out[-1]
            if isinstance(last, ModelResponse) and not last.tool_calls:  # its prose, then code
                out[-1] = ModelResponse(text=last.text, tool_calls=(call,))
            else:
                out.append(ModelResponse(tool_calls=(call,)))
        elif role == "user" and kind == "code":
            fmt = message.format or "python"
            out.append(UserPrompt(content=f"{FENCE}{fmt}\n{content}\n{FENCE}"))
        elif kind == "message" and isinstance(content, str) and content.strip():
            out.append(said(role, content))
        elif kind in ("image", "file"):
            out.append(said(role, f"[{kind} sent by the {role}]"))
    close()
    return out


def _code_of(arguments: str) -> str | None:
    """The code of a `python` call, or None when the arguments are not `{"code": "..."}`."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else None
    except json.JSONDecodeError:
        return None
    code = parsed.get("code") if isinstance(parsed, dict) else None
    return code if isinstance(code, str) and code.strip() else None


async def converse(
    messages: list[Any],
    *,
    config: LLMConfig,
    kernel: Callable[[], Awaitable[SandboxKernel]],
    auto_run: bool,
    confirm: Callable[[str], LmcChunk],
    max_rounds: int = MAX_ROUNDS,
) -> AsyncIterator[LmcChunk]:
    """The model's rounds over `messages` (LMC), as chunks; stops at code to confirm unless
    `auto_run`. Model failures end the stream with a `server/error` chunk, never a 500."""
    chat = model_messages(messages)
    client = LLMClient(config)
    try:
        for _ in range(max_rounds):
            splitter = FenceSplitter()
            reply = ModelResponse()
            try:
                async for piece in client.stream_tools(chat, tools=[PYTHON_FUNCTION]):
                    if isinstance(piece, ModelResponse):
                        reply = piece
                    else:
                        for chunk in splitter.feed(piece):
                            yield chunk
            except LLMError as error:
                for chunk in splitter.feed("", final=True):
                    yield chunk
                yield LmcChunk(
                    role="server", type="error", content=f"The model could not answer: {error}"
                )
                return
            for chunk in splitter.feed("", final=True):
                yield chunk
            step = _next_step(reply, splitter.code, chat)
            if isinstance(step, str):  # a malformed call: the model hears why and tries again
                continue
            if step is None:
                return  # prose only: the answer
            call_id, code = step
            if call_id is not None:  # fenced code has streamed already
                for chunk in Blocks().block("assistant", "code", code, "python"):
                    yield chunk
            yield confirm(code)
            if not auto_run:
                return
            ran: list[dict[str, Any]] = []
            async for chunk in arun(await kernel(), code):
                ran.append(chunk.model_dump(exclude_none=True))
                yield chunk
            result = model_text(ran) or "(no output)"
            if call_id is None:
                chat.append(UserPrompt(content=f"Output of the code:\n{result}"))
            else:
                chat.append(ToolReturn(tool_call_id=call_id, content=result))
        yield LmcChunk(role="server", type="error", content=OUT_OF_ROUNDS)
    finally:
        await client.aclose()


def _next_step(
    reply: ModelResponse, fenced: list[str], chat: list[ModelMessage]
) -> tuple[str | None, str] | str | None:
    """What the reply asks for: `(call_id, code)` to confirm (call_id None for fenced code),
    None for a final answer, or a problem text (already told to the model) to retry on."""
    if reply.tool_calls:
        chat.append(ModelResponse(text=reply.text, tool_calls=reply.tool_calls))
        first, problem = reply.tool_calls[0], ""
        code = _code_of(first.arguments) if first.name == "python" else None
        if code is None:
            problem = (
                f"There is no function {first.name!r}; call `python`."
                if first.name != "python"
                else 'The arguments must be JSON `{"code": "<python>"}`; nothing ran.'
            )
        for other in reply.tool_calls[1:] if code is not None else reply.tool_calls:
            note = "One call runs at a time; send it again after this one." if code else problem
            chat.append(ToolReturn(tool_call_id=other.id, content=note))
        return (first.id, code) if code is not None else problem
    chat.append(ModelResponse(text=reply.text))
    if fenced:
        return None, fenced[-1]
    return None
