"""What the OpenAI-compatible face reads of a chat completion request: its shapes (a wrong one
is a 400 naming the field, never an error deep in the turn; fields Datapilot does not read are
allowed and ignored), the server's limits checked on the raw messages, and the conversation as
the platform's history."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)

from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import HistoryMessage
from datapilot.core.messages import from_openai
from datapilot.server.limits import as_error, check_conversation, check_question, request_settings


class StreamOptions(BaseModel):
    include_usage: bool = False


class ImageUrl(BaseModel):
    model_config = ConfigDict(extra="allow")

    url: str = Field(description="An https or data: URL of the image.")


class ContentPart(BaseModel):
    """One part of a message's content: `text`, `image_url`, or another kind (skipped)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None
    image_url: ImageUrl | None = None

    @model_validator(mode="after")
    def _carries_its_kind(self) -> ContentPart:
        if self.type == "text" and self.text is None:
            raise ValueError("a `text` part needs `text`")
        if self.type == "image_url" and self.image_url is None:
            raise ValueError("an `image_url` part needs `image_url: {url}`")
        return self


def _content_kind(value: Any) -> str | None:
    return "text" if isinstance(value, str) else "parts" if isinstance(value, list) else None


# Chosen by the value's JSON type, so a wrong part is reported once, under `content.parts`.
Content = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[ContentPart], Tag("parts")],
    Discriminator(
        _content_kind,
        custom_error_type="content_type",
        custom_error_message="content must be text or a list of parts",
    ),
]


class FunctionCall(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    arguments: str = Field(default="{}", description="The arguments as JSON text.")


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class OpenAIChatMessage(BaseModel):
    """One message of the conversation, as a client of the OpenAI-compatible face sends it."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]  # see `from_openai`
    content: Content | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None


class FunctionSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    parameters: dict[str, Any] | None = Field(default=None, description="A JSON schema.")


class ClientTool(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: Literal["function"] = "function"
    function: FunctionSpec


class CompletionRequest(BaseModel):
    """The parts of an OpenAI chat completion request Datapilot reads; others are ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="An assistant's id or name, or `datapilot`.")
    messages: list[OpenAIChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[ClientTool] | None = Field(
        default=None, description="Your own tools: their calls come back to you."
    )
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)

    @model_validator(mode="before")
    @classmethod
    def _within_limits(cls, data: Any) -> Any:
        """The server's limits, as on every other face, checked on the raw messages before
        they are validated (10,000 bad messages get one short error): their number, each one's
        text (parts included) and the question's, the last user message."""
        messages = _as_text(data.get("messages") if isinstance(data, dict) else None)
        settings = request_settings()
        found = [
            (field, message, "too_many_messages" if field == "messages" else "message_too_long")
            for field, message in check_conversation(messages, settings, "messages")
        ]
        users = [
            index
            for index, message in enumerate(messages)
            if isinstance(message, dict) and message.get("role") == "user"
        ]
        if not found and users:
            problem = check_question(messages[users[-1]]["content"], settings)
            if problem:
                found.append((f"messages.{users[-1]}.content", problem, "question_too_long"))
        if found:
            errors = [as_error(field, message, kind) for field, message, kind in found]
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return data


def _as_text(messages: Any) -> list[Any]:
    """The raw messages with each object's content as text (text parts joined), for the limits;
    nothing unless `messages` is a list (validation says what is wrong then)."""
    if not isinstance(messages, list):
        return []
    return [
        {**message, "content": _text_of(message.get("content"))}
        if isinstance(message, dict)
        else message
        for message in messages
    ]


def _text_of(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    parts = [part.get("text") for part in content if isinstance(part, dict)]
    return "\n".join(text for text in parts if isinstance(text, str))


def history_from_openai(messages: list[OpenAIChatMessage]) -> list[HistoryMessage]:
    """OpenAI chat messages as the platform's history (roles translated, parts split)."""
    history: list[HistoryMessage] = []
    for message in messages:
        role = from_openai(message.role)
        content = message.content
        if isinstance(content, list):
            texts = []
            for part in content:
                if part.type == "text":
                    texts.append(part.text or "")
                elif part.type == "image_url" and part.image_url is not None:
                    history.append(HistoryMessage(role="file", image_url=part.image_url.url))
            content = "\n".join(texts)
        text = content or ""
        if role == "assistant" and message.tool_calls:
            for number, call in enumerate(message.tool_calls):
                record = ToolCallRecord(
                    id=call.id, name=call.function.name, arguments=call.function.arguments or "{}"
                )
                history.append(
                    HistoryMessage(
                        role="tool_call", content=text if number == 0 else "", tool_call=record
                    )
                )
            continue
        history.append(HistoryMessage(role=role, content=text, tool_call_id=message.tool_call_id))
    return history
