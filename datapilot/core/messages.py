"""Chat messages: one `Message` type and one role set, translated to and from each front end's.

Datapilot's roles are the assistant platform's (after Amber), the richest of the protocols it
speaks; OpenBB Workspace (`human`/`ai`/`tool`), OpenAI chat (`system`/`user`/`assistant`/`tool`)
and Open Interpreter's LMC (`user`/`assistant`/`computer`) translate at the edges with the
functions below, so nothing between the edges depends on one protocol's words.

`LmcChunk` is the one streaming chunk of the native API (LMC, with Datapilot's `server` role for
the final answer, status and errors).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal[
    "human",  # the user; answered
    "human_later",  # stored, not answered (a note for later turns)
    "human_hidden",  # sent by a client on the user's behalf, never shown
    "system",
    "system_hidden",  # a system prompt not shown to the user
    "system_override",  # replaces the system prompt for one call; never stored
    "assistant",
    "tool_call",  # the assistant asks for a tool
    "tool",  # a tool's result
    "file",  # a file the user attached
    "knowledge",  # passages retrieved for the question
]
ROLES: tuple[Role, ...] = Role.__args__  # type: ignore[attr-defined]

OpenBBRole = Literal["human", "ai", "tool"]
OpenAIRole = Literal["system", "user", "assistant", "tool"]
LmcMessageRole = Literal["user", "assistant", "computer"]


class Message(BaseModel):
    """One message of a chat, in Datapilot's roles."""

    role: Role
    content: str = ""
    assistant: str | None = Field(
        default=None, description="The assistant that wrote it (or is addressed), by id or name."
    )
    tool_call_id: str | None = Field(
        default=None, description="Pairs a `tool_call` with its `tool` result."
    )
    created_at: datetime | None = None

    @property
    def shown(self) -> bool:
        """Whether a chat view shows this message to the user."""
        return self.role not in ("human_hidden", "system_hidden", "system_override", "knowledge")


_FROM_OPENBB: dict[str, Role] = {"human": "human", "ai": "assistant", "tool": "tool"}
_FROM_OPENAI: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "human",
    "assistant": "assistant",
    "tool": "tool",
}
_FROM_LMC: dict[str, Role] = {"user": "human", "assistant": "assistant", "computer": "tool"}
_TO_OPENAI: dict[Role, OpenAIRole] = {
    "human": "user",
    "human_later": "user",
    "human_hidden": "user",
    "system": "system",
    "system_hidden": "system",
    "system_override": "system",
    "assistant": "assistant",
    "tool_call": "assistant",
    "tool": "tool",
    "file": "user",
    "knowledge": "system",
}


def from_openbb(role: str) -> Role:
    """An OpenBB Workspace role (`human`, `ai`, `tool`) as Datapilot's."""
    return _lookup(_FROM_OPENBB, role, "OpenBB")


def to_openbb(role: Role) -> OpenBBRole:
    """Datapilot's role as OpenBB's: what the user wrote is `human`, tools are `tool`, the
    rest was said by the agent (`ai`)."""
    if role in ("human", "human_later", "human_hidden", "file"):
        return "human"
    return "tool" if role == "tool" else "ai"


def from_openai(role: str) -> Role:
    """An OpenAI chat role (`system`, `developer`, `user`, `assistant`, `tool`) as Datapilot's."""
    return _lookup(_FROM_OPENAI, role, "OpenAI")


def to_openai(role: Role) -> OpenAIRole:
    """Datapilot's role as the OpenAI chat role it is sent with."""
    return _TO_OPENAI[role]


def from_lmc(role: str) -> Role:
    """An LMC role (`user`, `assistant`, `computer`) as Datapilot's; the computer's output is a
    tool result."""
    return _lookup(_FROM_LMC, role, "LMC")


def to_lmc(role: Role) -> LmcMessageRole:
    """Datapilot's role as LMC's: tool results are the computer's."""
    if role in ("human", "human_later", "human_hidden", "file"):
        return "user"
    return "computer" if role == "tool" else "assistant"


def _lookup(table: dict[str, Role], role: str, protocol: str) -> Role:
    try:
        return table[role]
    except KeyError:
        known = ", ".join(table)
        raise ValueError(f"{role!r} is not an {protocol} role (one of {known})") from None


# --- LMC streaming chunks ------------------------------------------------------------------------

LmcRole = Literal["assistant", "computer", "server"]
LmcType = Literal[
    "message", "code", "console", "image", "table", "confirmation", "answer", "status", "error"
]


class LmcChunk(BaseModel):
    """One LMC streaming chunk; unset fields are left out on the wire."""

    role: LmcRole
    type: LmcType
    format: str | None = None
    content: Any = None
    start: bool | None = None
    end: bool | None = None

    def wire(self) -> str:
        return self.model_dump_json(exclude_none=True)
