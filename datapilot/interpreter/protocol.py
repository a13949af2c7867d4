"""The interpreter's stateless protocol: an LMC message list in, LMC chunks out.

What the last message asks for:

- code (`assistant` or `user`, `type: code`, in a language of `languages.SUPPORTED`): a
  `computer/confirmation/execution` chunk naming the code, then the stream ends — unless
  auto-run is allowed (`may_auto_run`), when it runs. Another language is refused at once.
- `{"role": "user", "type": "command", "content": "run"}`: runs the last code message before it,
  if no computer output follows that code already.
- a user message: with a model configured (`model`), the model writes code and reads its output
  (`interpreter.model`); else answered by the front end's `answer` (the data workflow).
- computer output the client appended itself (it ran the code, Open Interpreter style): that
  code is never run again; with a model, the model reads the output as data and goes on;
  without one there is nothing to do.
- after an approved run of the assistant's code, the model (if any) reads the output and goes on.

Auto-run is decided by the caller of `respond` from the server setting and the key's scope
only; nothing in the messages can switch it on (unknown keys such as `auto_run` are refused).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.messages import LmcChunk
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.languages import LanguageError, canonical, execute
from datapilot.interpreter.results import model_text

if TYPE_CHECKING:
    from datapilot.model_client import LLMConfig


class LmcMessage(BaseModel):
    """One message of the list, as Open Interpreter 0.2 defines it (plus `command`)."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "computer"]
    type: Literal["message", "code", "image", "console", "file", "confirmation", "command"]
    format: str | None = None
    content: Any = None
    recipient: Literal["user", "assistant"] | None = None


class InterpreterRequest(BaseModel):
    """The body of `POST /api/v1/interpreter`, when it is an object rather than a bare list."""

    model_config = ConfigDict(extra="forbid")

    messages: list[LmcMessage] = Field(min_length=1)
    session: str = Field(
        default="default",
        max_length=100,
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="Kernels keep their variables per session (and per caller).",
    )


class ProtocolError(ValueError):
    """A message list the interpreter cannot act on; the message says what to send."""


def pending_code(messages: list[LmcMessage]) -> tuple[str, str, bool]:
    """The code the list is about, its language, and whether it is approved to run."""
    code, language, approved, _ = pending(messages)
    return code, language, approved


def pending(messages: list[LmcMessage]) -> tuple[str, str, bool, LmcMessage]:
    """`pending_code` and the code message itself."""
    last = messages[-1]
    if last.type == "command":
        if last.role != "user" or str(last.content).strip().lower() != "run":
            raise ProtocolError(
                'the only command is {"role":"user","type":"command","content":"run"}'
            )
        for index in range(len(messages) - 2, -1, -1):
            message = messages[index]
            if message.type == "code" and message.role in ("user", "assistant"):
                after = messages[index + 1 : -1]
                if any(m.role == "computer" and m.type != "confirmation" for m in after):
                    raise ProtocolError(
                        f"the code of message {index} has run already; send new code to run"
                    )
                language = (message.format or "python").lower()
                return _code(message, index), language, True, message
        raise ProtocolError("`run` approves the last code message before it, and there is none")
    if last.type == "code" and last.role in ("user", "assistant"):
        return _code(last, len(messages) - 1), (last.format or "python").lower(), False, last
    raise ProtocolError("nothing to run")


def _code(message: LmcMessage, index: int) -> str:
    if not isinstance(message.content, str) or not message.content.strip():
        raise ProtocolError(f"message {index} is code without text; send the code as `content`")
    return message.content


def confirmation(code: str, language: str) -> LmcChunk:
    return LmcChunk(
        role="computer",
        type="confirmation",
        format="execution",
        content={"type": "code", "format": language, "content": code},
    )


async def respond(
    messages: list[LmcMessage],
    *,
    kernel: Callable[[], Awaitable[SandboxKernel]],
    auto_run: bool,
    answer: Callable[[str], AsyncIterator[LmcChunk]] | None = None,
    model: LLMConfig | None = None,
) -> AsyncIterator[LmcChunk]:
    """The chunks answering `messages`, ending with `server/status complete`."""
    from datapilot.interpreter.model import converse

    last = messages[-1]

    def converse_over(history: list[LmcMessage]) -> AsyncIterator[LmcChunk]:
        assert model is not None
        return converse(
            history, config=model, kernel=kernel, auto_run=auto_run, confirm=confirmation
        )

    try:
        if last.role == "user" and last.type == "message" and model is not None:
            async for chunk in converse_over(messages):
                yield chunk
        elif last.role == "user" and last.type == "message":
            if answer is None:
                raise ProtocolError("send code to run; questions need the data workflow")
            async for chunk in answer(str(last.content or "")):
                if chunk.role == "server" and chunk.type == "status" and chunk.format is None:
                    continue  # its `complete`: the stream's own comes last (a notice goes on)
                yield chunk
        elif last.role == "computer" and last.type != "confirmation":
            # The client ran the code itself and sends its output: the model goes on from it.
            if model is not None:
                async for chunk in converse_over(messages):
                    yield chunk
        else:
            code, fmt, approved, message = pending(messages)
            language = canonical(fmt)
            if not approved:
                yield confirmation(code, language)
            if approved or auto_run:
                ran: list[dict[str, Any]] = []
                async for chunk in execute(kernel, code, language):
                    ran.append(chunk.model_dump(exclude_none=True))
                    yield chunk
                if model is not None and message.role == "assistant":
                    # The model reads what its code printed and goes on.
                    output = LmcMessage(
                        role="computer", type="console", format="output", content=model_text(ran)
                    )
                    async for chunk in converse_over([*messages, output]):
                        yield chunk
    except (ProtocolError, LanguageError) as error:
        yield LmcChunk(role="server", type="error", content=str(error))
    except Exception as error:  # a kernel that cannot start: said in the stream, never a 500
        yield LmcChunk(role="server", type="error", content=f"{type(error).__name__}: {error}")
    yield LmcChunk(role="server", type="status", content="complete")


_FIELDS = {"role", "type", "format"}


def rebuild(chunks: list[LmcChunk]) -> list[LmcMessage]:
    """The messages a chunk stream adds to the list (Open Interpreter's client logic): a
    `start` opens a message, deltas append to it, `end` closes it; a chunk outside a block is a
    whole message. Server chunks and `active_line` marks are not messages; tables are not LMC
    message types, so they are left out too."""
    messages: list[LmcMessage] = []
    current: LmcMessage | None = None
    for chunk in chunks:
        if chunk.role == "server" or chunk.format == "active_line" or chunk.type == "table":
            continue
        if chunk.start:
            current = LmcMessage.model_validate(chunk.model_dump(include=_FIELDS))
            messages.append(current)
        elif chunk.end:
            current = None
        elif current is not None:
            if isinstance(chunk.content, str):
                current.content = (current.content or "") + chunk.content
            else:
                current.content = chunk.content
        else:
            messages.append(
                LmcMessage.model_validate(chunk.model_dump(include=_FIELDS | {"content"}))
            )
    return messages
