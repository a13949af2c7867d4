"""What the OpenAI-compatible face reads of a chat completion request: its shapes (a wrong one
is a 400 naming the field, never an error deep in the turn), every Chat Completions parameter
either honoured or refused naming it (`REFUSED`; a field OpenAI does not know is refused as
OpenAI refuses it), the server's limits checked on the raw messages, and the conversation as the
platform's history."""

from __future__ import annotations

import base64
import binascii
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

from datapilot.assistants.files import spreadsheet_tables
from datapilot.assistants.models import ToolCallRecord
from datapilot.assistants.normalise import HistoryMessage
from datapilot.core.messages import from_openai
from datapilot.data.client_files import is_table_file
from datapilot.server.limits import as_error, check_conversation, check_question, request_settings


class StreamOptions(BaseModel):
    include_usage: bool = False


class ImageUrl(BaseModel):
    model_config = ConfigDict(extra="allow")

    url: str = Field(description="An https or data: URL of the image.")


class FileData(BaseModel):
    """A `file` part's file, sent inline: its name and its bytes as a base64 data URL."""

    model_config = ConfigDict(extra="allow")

    filename: str | None = None
    file_data: str | None = Field(default=None, description="data:<type>;base64,<bytes>")
    file_id: str | None = None

    def data(self) -> bytes:
        encoded = (self.file_data or "").partition("base64,")[2] or self.file_data or ""
        return base64.b64decode(encoded, validate=True)


class ContentPart(BaseModel):
    """One part of a message's content: `text`, `image_url`, `file` (a spreadsheet's tables are
    read), or another kind (skipped)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None
    image_url: ImageUrl | None = None
    file: FileData | None = None

    @model_validator(mode="after")
    def _carries_its_kind(self) -> ContentPart:
        if self.type == "text" and self.text is None:
            raise ValueError("a `text` part needs `text`")
        if self.type == "image_url" and self.image_url is None:
            raise ValueError("an `image_url` part needs `image_url: {url}`")
        if self.type == "file":
            if self.file is None or not self.file.file_data:
                raise ValueError(
                    "a `file` part needs `file: {filename, file_data}` with the file's bytes as a "
                    "base64 data URL; this server keeps no uploaded files to name by `file_id`"
                )
            try:
                self.file.data()
            except (binascii.Error, ValueError):
                raise ValueError("`file.file_data` is not valid base64") from None
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


class JsonSchemaFormat(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(BaseModel):
    """`text`, `json_object` (the Answer as JSON without a model) or `json_schema` (filled from
    the Answer without a model, when its fields can fill the schema)."""

    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None

    @model_validator(mode="after")
    def _schema_given(self) -> ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("`json_schema` needs `json_schema: {name, schema}`")
        return self


class NamedFunction(BaseModel):
    name: str


class NamedToolChoice(BaseModel):
    type: Literal["function"] = "function"
    function: NamedFunction


ToolChoice = Literal["none", "auto", "required"] | NamedToolChoice

# Parameters of Chat Completions Datapilot cannot honour, and why: a request that sets one is a
# 400 naming it (a client must not believe it was honoured).
REFUSED: dict[str, str] = {
    "audio": "audio output is not supported: Datapilot answers in text, charts and tables",
    "prediction": "predicted outputs are not supported",
    "web_search_options": "web search is not supported: Datapilot answers from its data",
    "functions": "`functions` is deprecated: send `tools` (and `tool_choice`)",
    "function_call": "`function_call` is deprecated: send `tool_choice`",
    "top_logprobs": "log probabilities are not available from Datapilot",
}


class CompletionRequest(BaseModel):
    """An OpenAI chat completion request: every parameter is honoured, or refused naming it."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="An assistant's id or name, or `datapilot`.")
    messages: list[OpenAIChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[ClientTool] | None = Field(
        default=None, description="Your own tools: their calls come back to you."
    )
    tool_choice: ToolChoice | None = Field(
        default=None,
        description="Forwarded to the model; without one, `required` or a named tool is a 400.",
    )
    parallel_tool_calls: bool | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    seed: int | None = None
    logit_bias: dict[str, int] | None = Field(
        default=None, description="Forwarded to the model; without one, a 400."
    )
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None
    max_tokens: int | None = Field(default=None, ge=1, description="Cuts the reply's text.")
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = Field(
        default=None, description="Up to 4 sequences: the reply's text ends before the first."
    )
    n: int = Field(default=1, ge=1, le=8, description="Replies to make: more than 1 needs a model.")
    response_format: ResponseFormat | None = None
    logprobs: bool | None = Field(default=None, description="Only false: none are available.")
    modalities: list[Literal["text", "audio"]] | None = Field(
        default=None, description="Only text."
    )
    store: bool | None = Field(default=None, description="Only false: completions are not kept.")
    service_tier: str | None = Field(default=None, description="Only auto or default.")
    user: str | None = None
    safety_identifier: str | None = None
    prompt_cache_key: str | None = None
    metadata: dict[str, str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_parameters(cls, data: Any) -> Any:
        """A field OpenAI's API does not know, or one Datapilot cannot honour, is refused with
        the parameter's name (as OpenAI refuses an unknown one), never ignored."""
        if not isinstance(data, dict):
            return data
        errors = []
        for name, value in data.items():
            if name in REFUSED and value is not None:
                errors.append(as_error(name, REFUSED[name], "unsupported_parameter"))
            elif name not in cls.model_fields and name not in REFUSED:
                message = f"Unrecognized request argument supplied: {name}"
                errors.append(as_error(name, message, "unrecognized_parameter"))
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return data

    @model_validator(mode="after")
    def _honourable(self) -> CompletionRequest:
        """Values Datapilot cannot honour: each a 400 naming its parameter."""
        problems: list[tuple[str, str]] = []
        if self.logprobs:
            problems.append(("logprobs", "log probabilities are not available from Datapilot"))
        if self.modalities and "audio" in self.modalities:
            problems.append(("modalities", "only text output is supported"))
        if self.store:
            problems.append(("store", "Datapilot does not keep completions: send store=false"))
        if self.service_tier not in (None, "auto", "default"):
            problems.append(("service_tier", "only `auto` or `default` is supported"))
        stops = self.stop_sequences
        if len(stops) > 4 or any(not stop for stop in stops):
            problems.append(("stop", "stop takes up to 4 non-empty sequences"))
        if self.tool_choice is not None and not isinstance(self.tool_choice, str):
            names = {tool.function.name for tool in self.tools or []}
            if self.tool_choice.function.name not in names:
                problems.append(("tool_choice", "tool_choice names a function not in `tools`"))
        elif self.tool_choice == "required" and not self.tools:
            problems.append(("tool_choice", "tool_choice `required` needs `tools`"))
        if problems:
            errors = [as_error(field, message, "invalid_value") for field, message in problems]
            raise ValidationError.from_exception_data(type(self).__name__, errors)
        return self

    @property
    def stop_sequences(self) -> list[str]:
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

    @property
    def token_limit(self) -> int | None:
        """The client's limit of the reply's tokens (`max_completion_tokens` wins, as OpenAI's)."""
        return self.max_completion_tokens or self.max_tokens

    @property
    def forced_tool(self) -> bool:
        """Whether the client forces a tool call (`required` or a named tool)."""
        return self.tool_choice is not None and self.tool_choice not in ("none", "auto")

    def model_options(self) -> dict[str, Any]:
        """What is forwarded to the model endpoint, as the client sent it (its token limit
        travels separately: the client picks the name the endpoint wants)."""
        fields = (
            "top_p",
            "frequency_penalty",
            "presence_penalty",
            "seed",
            "logit_bias",
            "reasoning_effort",
            "verbosity",
            "stop",
            "parallel_tool_calls",
        )
        options = {name: getattr(self, name) for name in fields if getattr(self, name) is not None}
        if self.tool_choice is not None:
            choice = self.tool_choice
            options["tool_choice"] = choice if isinstance(choice, str) else choice.model_dump()
        if self.response_format is not None:
            options["response_format"] = self.response_format.model_dump(
                by_alias=True, exclude_none=True
            )
        return options

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
                elif part.type == "file" and part.file is not None:
                    name = part.file.filename or "file"
                    data = part.file.data()
                    tables = spreadsheet_tables(name, data) if is_table_file(name) else []
                    history.append(HistoryMessage(role="file", file_name=name, tables=tables))
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
