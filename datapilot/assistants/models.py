"""The platform's typed boundary: what clients send and what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from datapilot.core.messages import Role

# Roles a client may write; the runtime itself writes tool_call, tool, file and knowledge.
ClientRole = Literal["human", "human_later", "human_hidden", "system", "system_hidden", "assistant"]
DEFAULT_TOOLS: tuple[str, ...] = ("ask_data",)
T = TypeVar("T")


def _not_null(value: Any) -> Any:
    if value is None:
        raise ValueError("cannot be null; leave the field out to keep its value")
    return value


class _NullRefused:
    """The field's JSON schema without its `null` option: the API refuses null there."""

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        kept = [option for option in json_schema.get("anyOf", ()) if option != {"type": "null"}]
        if len(kept) == 1:
            del json_schema["anyOf"]
            json_schema.update(kept[0])
        return json_schema


# A patch field that cannot be null: `null` is a 422, never written to its NOT NULL column. None
# is only its default, "left out": patches are applied with `model_dump(exclude_unset=True)`.
Change = Annotated[T | None, BeforeValidator(_not_null), _NullRefused()]


class Tenant(BaseModel):
    """Whose rows a request may touch: a user's, or a guest's of a public assistant."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = None
    guest_id: str | None = None
    key_id: str | None = Field(default=None, description="The API key used, for the usage ledger.")
    assistant_id: str | None = Field(
        default=None, description="The only assistant a key bound to one may use."
    )
    scopes: frozenset[str] | None = Field(
        default=None, description="The key's scopes (None without a key): `run` allows auto-run."
    )

    def model_post_init(self, __context: Any) -> None:
        if (self.user_id is None) == (self.guest_id is None):
            raise ValueError("a tenant is exactly one of a user or a guest")


class AssistantIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    prompt: str = Field(default="", description="The assistant's system prompt.")
    model: str | None = Field(default=None, description="Default: the server's model.")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    public: bool = False
    disable_default_prompt: bool = False
    disable_memory: bool = False
    enable_memory_for_api: bool = False
    tools: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TOOLS),
        description="Tool names it may call (see GET /api/v1/tools); default: the data workflow.",
    )
    library_id: str | None = Field(
        default=None, description="A knowledge library (id or name) it answers from and cites."
    )
    interpreter_auto_run: bool = Field(
        default=False,
        description="Run its `python` tool's code without asking — only where the server "
        "(DATAPILOT_INTERPRETER_AUTO_RUN) and the caller's key (`run` scope) allow it too.",
    )
    interpreter_guests: bool = Field(
        default=False,
        description="Guests of this public assistant may run its `python` tool's code (each "
        "run on their confirmation); off: guests never get the tool.",
    )


class AssistantPatch(BaseModel):
    """The fields to change; those left out keep their values."""

    model_config = ConfigDict(extra="forbid")

    name: Change[str] = Field(default=None, min_length=1, max_length=200)
    description: Change[str] = Field(default=None)
    prompt: Change[str] = Field(default=None)
    model: str | None = Field(default=None, description="null: the server's model.")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    public: Change[bool] = Field(default=None)
    disable_default_prompt: Change[bool] = Field(default=None)
    disable_memory: Change[bool] = Field(default=None)
    enable_memory_for_api: Change[bool] = Field(default=None)
    tools: list[str] | None = None
    library_id: str | None = Field(
        default=None, description="A knowledge library (id or name); null unbinds it."
    )
    interpreter_auto_run: bool | None = None
    interpreter_guests: bool | None = None


class AssistantInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    description: str
    prompt: str
    model: str | None
    temperature: float | None
    public: bool
    disable_default_prompt: bool
    disable_memory: bool
    enable_memory_for_api: bool
    tools: list[str] = Field(default_factory=list)
    library_id: str | None = None
    interpreter_auto_run: bool = False
    interpreter_guests: bool = False
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    created_at: datetime
    updated_at: datetime


class ToolInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    source: str
    description: str


class ChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=200)
    assistant_id: str | None = Field(
        default=None, min_length=1, description="The assistant that answers (id or name)."
    )
    prompt: str | None = Field(default=None, description="A system prompt for this chat only.")


class ChatPatch(BaseModel):
    """The fields to change; those left out keep their values."""

    model_config = ConfigDict(extra="forbid")

    name: Change[str] = Field(default=None, max_length=200)
    assistant_id: str | None = Field(
        default=None, min_length=1, description="The assistant that answers; null: none."
    )
    prompt: str | None = Field(default=None, description="null: the assistant's prompt.")


class ChatInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    assistant_id: str | None
    prompt: str | None
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime


class ToolCallRecord(BaseModel):
    """A model's request to run a tool, as stored on a `tool_call` message."""

    id: str
    name: str
    arguments: str = "{}"
    confirmation: str | None = Field(
        default=None, description="Set when the call waited for the user's go-ahead: why."
    )


class MessageInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    chat_id: str
    role: Role
    content: str
    assistant_id: str | None
    tool_call: ToolCallRecord | None = None
    tool_call_id: str | None = None
    file_id: str | None = None
    hidden: bool
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    created_at: datetime


class ScenePromptIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1, max_length=200)
    prompt: str = Field(min_length=1)
    assistant_id: str | None = None


class ScenePromptInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    label: str
    prompt: str
    assistant_id: str | None
    created_at: datetime


class UsageTotals(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0


class UsageReport(BaseModel):
    """The caller's tokens: in all, per assistant and per API key."""

    total: UsageTotals
    by_assistant: dict[str, UsageTotals] = Field(default_factory=dict)
    by_key: dict[str, UsageTotals] = Field(default_factory=dict)
