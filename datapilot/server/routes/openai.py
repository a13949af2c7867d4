"""The OpenAI-compatible face: `GET /v1/models` and `POST /v1/chat/completions`.

`model` names one of the caller's assistants (by id or name), or `datapilot`, the plain data
workflow. The conversation is the request's own (stateless, like OpenAI's API); tokens go to
the caller's usage. Tools the server runs never appear as `tool_calls`: their steps travel in
the `datapilot` field of chunks, which plain clients ignore. A client's own `tools` are offered
to the model too, and a call of one ends the reply with `finish_reason: tool_calls`.

A malformed request is a 400 in OpenAI's error shape, `{"error": {message, type, param, code}}`
with `param` naming the field, as are the server's limits (`code` says which).

The assistant's imported tools are bound here as in its chats. A call that needs the user's
confirmation (a consequential operation) cannot wait for a click in a stateless request, and
the client cannot run a server's tool, so it is not returned as a `tool_call`: it does not run,
and the model is told it needs confirmation in a Datapilot chat (or the tool trusted).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Depends, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)
from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException

from datapilot.assistants.context_store import read_inputs, remember
from datapilot.assistants.memory import memory_on
from datapilot.assistants.memory_vectors import with_vectors
from datapilot.assistants.models import AssistantInfo, Tenant, ToolCallRecord
from datapilot.assistants.normalise import HistoryMessage, NormalisationError
from datapilot.assistants.repo import Assistants, Forbidden, NotFound, Usage, bound_refusal
from datapilot.assistants.runtime import Turn
from datapilot.assistants.service import assistant_tools, request_for, setup_turn
from datapilot.core.events import Done, Failed, OutputEvent, StatusEvent, TextDelta
from datapilot.core.messages import from_openai
from datapilot.llm import count_chat, count_tokens
from datapilot.server.errors import ValidationProblem, unreadable_body_problem, validation_problem
from datapilot.server.limits import as_error, check_conversation, check_question, request_settings
from datapilot.server.routes.platform import tenant_of
from datapilot.settings import Settings
from datapilot.store import Store

WORKFLOW_MODEL = "datapilot"
EXTRA = "datapilot"  # the namespaced field of steps and artifacts


class OpenAIError(BaseModel):
    message: str
    type: str = "invalid_request_error"
    param: str | None = Field(default=None, description="The field at fault, as a dotted path.")
    code: str | None = None


class OpenAIErrorBody(BaseModel):
    """The body of this face's errors, in OpenAI's shape (which its SDKs read)."""

    error: OpenAIError


def _error(status: int, message: str, code: str, param: str | None = None) -> JSONResponse:
    body = OpenAIErrorBody(error=OpenAIError(message=message, code=code, param=param))
    return JSONResponse(status_code=status, content=body.model_dump())


def _invalid(problem: ValidationProblem) -> JSONResponse:
    """A malformed request's 400: the first problem's field is `param`, its type `code`."""
    first = problem.detail[0] if problem.detail else None
    code = first.type if first else "invalid_request"
    return _error(400, problem.message, code, first.field if first else None)


class OpenAIRoute(APIRoute):
    """A route of this face: a malformed request is a 400 in OpenAI's shape, not the native
    API's 422."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as error:
                return _invalid(validation_problem(error))
            except HTTPException as error:
                unreadable = unreadable_body_problem(error)
                if unreadable is None:
                    raise
                return _invalid(unreadable)

        return route


router = APIRouter(prefix="/v1", tags=["OpenAI-compatible"], route_class=OpenAIRoute)


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "datapilot"
    name: str = ""


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class StreamOptions(BaseModel):
    include_usage: bool = False


# The request's shapes, as far as Datapilot reads them: a wrong shape is a 400 naming the field,
# never an error deep in the turn. Fields Datapilot does not read are allowed and ignored.


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


class ChatMessage(BaseModel):
    """One message of the conversation."""

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
    messages: list[ChatMessage] = Field(min_length=1)
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


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": OpenAIErrorBody, "description": "The request is malformed; `param` says where."},
    404: {"model": OpenAIErrorBody, "description": "No such model for this key."},
    "4XX": {"model": OpenAIErrorBody, "description": "Another request error, in the same shape."},
}


@router.get("/models", response_model=ModelList, summary="Your assistants as models")
async def models(request: Request, tenant: Tenant = Depends(tenant_of)) -> ModelList:
    store: Store = request.app.state.store

    def work() -> list[AssistantInfo]:
        with store.session() as session:
            return Assistants(session, tenant).list()

    # A key bound to an assistant sees that one only, not even the plain workflow.
    cards = (
        [ModelCard(id=WORKFLOW_MODEL, name="Datapilot data workflow")]
        if tenant.assistant_id is None
        else []
    )
    cards += [
        ModelCard(id=a.id, name=a.name, created=int(a.created_at.timestamp()))
        for a in await anyio.to_thread.run_sync(work)
    ]
    return ModelList(data=cards)


def history_from_openai(messages: list[ChatMessage]) -> list[HistoryMessage]:
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


@router.post(
    "/chat/completions",
    summary="Chat with an assistant (OpenAI chat completions)",
    response_model=None,
    responses=_ERRORS,
)
async def chat_completions(
    body: CompletionRequest, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Any:
    settings: Settings = request.app.state.settings
    store: Store = request.app.state.store
    history = history_from_openai(body.messages)
    client_tools = [tool.model_dump(exclude_none=True) for tool in body.tools or []]

    def prepare() -> tuple[AssistantInfo | None, Turn]:
        assistant = None
        if body.model == WORKFLOW_MODEL and tenant.assistant_id is not None:
            raise bound_refusal(tenant, f"the model {WORKFLOW_MODEL!r}")
        if body.model != WORKFLOW_MODEL:
            with store.session() as session:
                assistant = Assistants(session, tenant).get(body.model)
        request_context = request_for(settings, model=assistant.model if assistant else None)
        request_context, tools = assistant_tools(
            store, tenant, settings, request_context, assistant
        )
        setup = setup_turn(request_context, assistant, history, tools, client_tools=client_tools)
        # A stateless request cannot wait for a click: a call that needs the user's
        # confirmation does not run, and the model hears that it needs a chat.
        setup.can_ask = False
        if body.temperature is not None:
            setup.temperature = body.temperature
        if assistant is not None and memory_on(assistant, tenant, api=True):
            # The assistant enables memory for API calls: it reads and grows the user's memory.
            question = next((m.content for m in reversed(history) if m.role == "human"), "")
            with store.session(write=True) as session:
                setup.context = read_inputs(
                    session,
                    tenant,
                    settings,
                    chat_id=None,
                    assistant=assistant,
                    question=question,
                    history=history,
                    api=True,
                )
            with_vectors(store, tenant, settings, setup.context, question)
        return assistant, Turn(setup)

    try:
        assistant, turn = await anyio.to_thread.run_sync(prepare)
    except NotFound:
        message = f"no model {body.model!r}: use an assistant id from GET /v1/models, or datapilot"
        return _error(404, message, "model_not_found")
    except Forbidden as error:
        return _error(403, str(error), "model_not_allowed")
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        chunks = _chunks(turn, body, completion_id, created, include_usage, store, tenant)
        return EventSourceResponse(chunks)
    steps: list[dict[str, Any]] = []
    text: list[str] = []
    try:
        async for event in turn.events():
            step = _step(event)
            if step is not None:
                steps.append(step)
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, Failed):
                text.append(event.message)
    except NormalisationError as error:
        return _error(400, str(error), "invalid_messages")
    usage = await _charge(turn, body, store, tenant, assistant.id if assistant else None)
    reply: dict[str, Any] = {"role": "assistant", "content": "".join(text).strip() or None}
    if turn.result.client_calls:
        reply["tool_calls"] = _tool_calls(turn)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": body.model,
        "choices": [{"index": 0, "message": reply, "finish_reason": _finish(turn)}],
        "usage": usage,
        EXTRA: {"steps": steps},
    }


def _finish(turn: Turn) -> str:
    return "tool_calls" if turn.result.client_calls else "stop"


def _tool_calls(turn: Turn) -> list[dict[str, Any]]:
    return [
        {
            "index": number,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for number, call in enumerate(turn.result.client_calls)
    ]


def _step(event: Any) -> dict[str, Any] | None:
    """A server-side step as the namespaced extra field carries it."""
    if isinstance(event, StatusEvent):
        return {"type": "status", "message": event.message}
    if isinstance(event, OutputEvent):
        return {"type": "output", "output": event.output.model_dump(mode="json")}
    if isinstance(event, Failed):
        return {"type": "failed", "message": event.message}
    return None


async def _charge(
    turn: Turn,
    body: CompletionRequest,
    store: Store,
    tenant: Tenant,
    assistant_id: str | None,
) -> dict[str, int]:
    """The reply's usage: the model's calls as reported; without a model, counted offline."""
    result = turn.result
    if result.calls:
        prompt, completion = result.prompt_tokens, result.completion_tokens

        def record() -> None:
            with store.session(write=True) as session:
                Usage(session, tenant).record(
                    model=result.model or "",
                    prompt_tokens=prompt,
                    completion_tokens=completion,
                    assistant_id=assistant_id,
                )
                remember(session, tenant, result, assistant_id=assistant_id)

        await anyio.to_thread.run_sync(record)
    else:
        prompt = count_chat(message.model_dump() for message in body.messages)
        completion = count_tokens(result.text)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


async def _chunks(
    turn: Turn,
    body: CompletionRequest,
    completion_id: str,
    created: int,
    include_usage: bool,
    store: Store,
    tenant: Tenant,
) -> AsyncIterator[dict[str, str]]:
    assistant_id = turn.setup.assistant_id

    def chunk(
        delta: dict[str, Any] | None, finish: str | None = None, **extra: Any
    ) -> dict[str, str]:
        data: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": body.model,
            "choices": []
            if delta is None
            else [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return {"data": json.dumps(data, default=str)}

    yield chunk({"role": "assistant", "content": ""})
    try:
        async for event in turn.events():
            step = _step(event)
            if step is not None:
                yield chunk({}, None, **{EXTRA: step})
            if isinstance(event, TextDelta) and event.text:
                yield chunk({"content": event.text})
            elif isinstance(event, Failed):
                yield chunk({"content": event.message})
            elif isinstance(event, Done):
                break
    except NormalisationError as error:
        failed = {"type": "failed", "message": str(error)}
        yield chunk({"content": str(error)}, None, **{EXTRA: failed})
    if turn.result.client_calls:
        yield chunk({"tool_calls": _tool_calls(turn)})
    yield chunk({}, _finish(turn))
    usage = await _charge(turn, body, store, tenant, assistant_id)
    if include_usage:
        yield chunk(None, usage=usage)
    yield {"data": "[DONE]"}
