"""Chat messages: one `Message` type and one role set, each front end's roles translated into it.

Datapilot's roles are the assistant platform's (after Amber), the richest of the protocols it
speaks; OpenBB Workspace's (`human`/`ai`/`tool`) and OpenAI chat's
(`system`/`developer`/`user`/`assistant`/`tool`) translate at the edges with the functions below,
so nothing between the edges depends on one protocol's words.

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


def from_openbb(role: str) -> Role:
    """An OpenBB Workspace role (`human`, `ai`, `tool`) as Datapilot's."""
    return _lookup(_FROM_OPENBB, role, "OpenBB")


def from_openai(role: str) -> Role:
    """An OpenAI chat role (`system`, `developer`, `user`, `assistant`, `tool`) as Datapilot's."""
    return _lookup(_FROM_OPENAI, role, "OpenAI")


def _lookup(table: dict[str, Role], role: str, protocol: str) -> Role:
    try:
        return table[role]
    except KeyError:
        known = ", ".join(table)
        raise ValueError(f"{role!r} is not an {protocol} role (one of {known})") from None


# --- LMC streaming chunks ------------------------------------------------------------------------

LmcRole = Literal["assistant", "computer", "server"]
LmcType = Literal[
    "message", "code", "console", "image", "table", "answer", "status", "error", "confirmation"
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
