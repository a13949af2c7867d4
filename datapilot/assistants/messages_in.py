"""What a client sends to a chat (`MessageIn`) and which of its roles are answered: the
request's shape alone, so the routes that take a message load the chats' machinery
(`service`: the runtime, the engine, the embeddings client) only when one arrives."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from datapilot.assistants.models import ClientRole

ANSWERED_ROLES = ("human", "human_hidden")


class MessageIn(BaseModel):
    """A message a client adds to a chat."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(default="", max_length=20000)
    role: ClientRole = Field(
        default="human",
        description="human (answered), human_later (stored only), human_hidden (answered, not "
        "shown), system, system_hidden, assistant (stored only).",
    )
    assistant: str | None = Field(
        default=None,
        description="Who answers, by id or name (default: an @mention, else the chat's).",
    )
    today: date | None = Field(default=None, description="Resolve relative windows against it.")
    stream: bool = Field(default=True, description="Stream the reply as LMC chunks.")
    command: Literal["run", "cancel"] | None = Field(
        default=None,
        description="Answer a tool call waiting for confirmation: run it (and the model goes "
        "on) or cancel it (closed as declined). No content is needed.",
    )
    arguments: dict[str, Any] | None = Field(
        default=None, description="With `run`: the call's arguments, edited."
    )

    @model_validator(mode="after")
    def _content_or_command(self) -> MessageIn:
        if self.command is None and not self.content:
            raise ValueError("content must not be empty (or send a command: run or cancel)")
        if self.command is None and self.arguments is not None:
            raise ValueError("arguments go with the run command only")
        return self
