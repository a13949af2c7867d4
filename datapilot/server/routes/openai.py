"""The OpenAI-compatible face: `GET /v1/models[/{id}]`, `POST /v1/chat/completions` and
`POST /v1/embeddings`.

`model` names one of the caller's assistants (by id or name), or `datapilot`, the plain data
workflow. The conversation is the request's own (stateless, like OpenAI's API); tokens go to
the caller's usage. Tools the server runs never appear as `tool_calls`: their steps travel in
the `datapilot` field of chunks, which plain clients ignore. A client's own `tools` are offered
to the model too, and a call of one ends the reply with `finish_reason: tool_calls`. Every
request parameter is honoured or refused naming it (`openai_request`); the reply's text is the
answer with its charts as PNG links and its tables in Markdown, and an answer's notice travels
in the `datapilot` field, never in the text (`openai_reply`).

Every error of this face is in OpenAI's shape, `{"error": {message, type, param, code}}`
(`OpenAIRoute`): a malformed request is a 400 with `param` naming the field, as are the
server's limits (`code` says which); the platform's refusals keep their status.

The assistant's imported tools are bound here as in its chats. A call that needs the user's
confirmation (a consequential operation) cannot wait for a click in a stateless request, and
the client cannot run a server's tool, so it is not returned as a `tool_call`: it does not run,
and the model is told it needs confirmation in a Datapilot chat (or the tool trusted).
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException

from datapilot.assistants import repo
from datapilot.assistants.models import AssistantInfo, Tenant
from datapilot.assistants.normalise import NormalisationError
from datapilot.assistants.repo import Assistants, Usage, bound_refusal
from datapilot.core.events import Done, Failed, OutputEvent, StatusEvent, TextDelta
from datapilot.model_client import count_chat, count_tokens
from datapilot.server.deps import SettingsDep, StoreDep, TenantDep
from datapilot.server.errors import (
    NotFound,
    OpenAIErrorBody,
    Refused,
    ValidationProblem,
    api_error,
    openai_body,
    unreadable_body_problem,
    validation_problem,
)
from datapilot.server.openai_reply import Refusal, Reply, finish_reason, offline_refusal
from datapilot.server.openai_request import CompletionRequest, history_from_openai
from datapilot.server.publish import base_url
from datapilot.server.store_calls import off_loop
from datapilot.store import Store

if TYPE_CHECKING:  # the assistants' runtime loads with the first completion
    from datapilot.assistants.runtime import Turn

WORKFLOW_MODEL = "datapilot"
EXTRA = "datapilot"  # the namespaced field of steps and artifacts


def _error(status: int, message: str, code: str, param: str | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content=openai_body(status, message, code, param))


def _invalid(problem: ValidationProblem) -> JSONResponse:
    """A malformed request's 400: the first problem's field is `param`, its type `code`."""
    first = problem.detail[0] if problem.detail else None
    code = first.type if first else "invalid_request"
    return _error(400, problem.message, code, first.field if first else None)


def openai_error(error: Exception) -> JSONResponse | None:
    """This face's answer to a request error, in OpenAI's shape: a malformed request (a body
    that is not UTF-8 included) a 400, an `ApiError` or domain error its status. None for the
    rest, which keep the app's answers: refusals at the door, the body limit, failures."""
    if isinstance(error, RequestValidationError):
        return _invalid(validation_problem(error))
    if isinstance(error, Refusal):
        return _error(400, f"{error.param}: {error.message}", "unsupported_value", error.param)
    if isinstance(error, HTTPException):
        unreadable = unreadable_body_problem(error)
        return None if unreadable is None else _invalid(unreadable)
    problem = api_error(error)
    if problem is None:
        return None
    return _error(problem.status, problem.message, problem.code)


class OpenAIRoute(APIRoute):
    """A route of this face: its errors go through `openai_error` (the face's one handler),
    not the native API's."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as error:
                answer = openai_error(error)
                if answer is None:
                    raise
                return answer

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


# The door's refusals on this face, in its shape (`auth` answers them so under /v1).
AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": OpenAIErrorBody, "description": "No API key, or an unknown or revoked one."},
    403: {"model": OpenAIErrorBody, "description": "The key lacks the scope this route needs."},
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": OpenAIErrorBody, "description": "The request is malformed; `param` says where."},
    404: {"model": OpenAIErrorBody, "description": "No such model for this key."},
    "4XX": {"model": OpenAIErrorBody, "description": "Another request error, in the same shape."},
}


@router.get("/models", response_model=ModelList, summary="Your assistants as models")
async def models(tenant: TenantDep, store: StoreDep) -> ModelList:
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
        for a in await off_loop(work)
    ]
    return ModelList(data=cards)


@router.get(
    "/models/{model}", response_model=ModelCard, summary="One of your models", responses=_ERRORS
)
async def model(model: str, tenant: TenantDep, store: StoreDep) -> ModelCard:
    for card in (await models(tenant, store)).data:
        if card.id == model:
            return card
    message = f"no model {model!r}: GET /v1/models lists yours"
    raise NotFound(message, code="model_not_found")


class EmbeddingsRequest(BaseModel):
    model: str = Field(description="The configured model (DATAPILOT_EMBEDDINGS_MODEL).")
    input: str | list[str] = Field(description="A text or a list of texts.")
    encoding_format: Literal["float", "base64"] = Field(
        default="float", description="`base64`: little-endian float32s (the SDKs' default)."
    )
    user: str | None = None


@router.post("/embeddings", summary="Embeddings, from the configured endpoint", responses=_ERRORS)
async def embeddings(body: EmbeddingsRequest, tenant: TenantDep, settings: SettingsDep) -> Any:
    """The configured embeddings endpoint's vectors (unit length, as OpenAI's); a 404 saying how
    to configure one when there is none."""
    from datapilot.knowledge.embeddings import embed, embeddings_configured  # httpx, numpy

    if not embeddings_configured(settings):
        message = (
            "No embeddings endpoint is configured on this server: set "
            "DATAPILOT_EMBEDDINGS_BASE_URL (an OpenAI-compatible /v1) and "
            "DATAPILOT_EMBEDDINGS_MODEL, then restart it"
        )
        raise NotFound(message, code="embeddings_not_configured")
    if body.model != settings.embeddings_model:
        message = (
            f"no embeddings model {body.model!r}: this server's is {settings.embeddings_model!r}"
        )
        raise NotFound(message, code="model_not_found")
    texts = [body.input] if isinstance(body.input, str) else body.input
    vectors = await off_loop(lambda: embed(settings, texts))
    tokens = sum(count_tokens(text) for text in texts)
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": index, "embedding": _encoded(vector, body)}
            for index, vector in enumerate(vectors)
        ],
        "model": body.model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _encoded(vector: Any, body: EmbeddingsRequest) -> list[float] | str:
    if body.encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode()
    return [float(x) for x in vector]


@router.post(
    "/chat/completions",
    summary="Chat with an assistant (OpenAI chat completions)",
    response_model=None,
    responses=_ERRORS,
)
async def chat_completions(
    body: CompletionRequest,
    request: Request,
    tenant: TenantDep,
    settings: SettingsDep,
    store: StoreDep,
) -> Any:
    history = history_from_openai(body.messages)
    client_tools = [tool.model_dump(exclude_none=True) for tool in body.tools or []]
    # The assistants' machinery (the runtime, the engine, the embeddings client), loaded by
    # the first completion rather than by the server's start.
    from datapilot.assistants.context_store import read_inputs
    from datapilot.assistants.files import attached_tables
    from datapilot.assistants.memory import memory_on
    from datapilot.assistants.memory_vectors import with_vectors
    from datapilot.assistants.runtime import Turn
    from datapilot.assistants.service import (
        assistant_tools,
        imported_tools,
        request_for,
        setup_turn,
    )

    def prepare() -> tuple[AssistantInfo | None, Turn]:
        assistant = None
        if body.model == WORKFLOW_MODEL and tenant.assistant_id is not None:
            raise bound_refusal(tenant, f"the model {WORKFLOW_MODEL!r}")
        if body.model != WORKFLOW_MODEL:
            with store.session() as session:
                assistant = Assistants(session, tenant).get(body.model)
        request_context = request_for(
            settings,
            model=assistant.model if assistant else None,
            owner=tenant.user_id,
            tables=attached_tables(history),
        )
        request_context, tools = assistant_tools(
            store, tenant, settings, request_context, assistant
        )
        setup = setup_turn(request_context, assistant, history, tools, client_tools=client_tools)
        if setup.llm is None and setup.model is None:
            # Without a model, what only a model could honour is refused before anything runs.
            refusal = offline_refusal(body)
            if refusal is not None:
                raise refusal
            if assistant is None and tenant.user_id is not None:
                # The plain workflow tries the caller's imported tools on what its data cannot
                # answer, as `ask` does over MCP and in the terminal.
                with store.session() as session:
                    setup.tools = {**imported_tools(session, tenant, settings), **setup.tools}
        else:
            setup.options = body.model_options()
            setup.max_tokens = body.token_limit
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
        assistant, turn = await off_loop(prepare)
    except repo.NotFound:  # in this face's words: the model
        message = f"no model {body.model!r}: use an assistant id from GET /v1/models, or datapilot"
        raise NotFound(message, code="model_not_found") from None
    except repo.Forbidden as error:
        raise Refused(str(error), code="model_not_allowed") from None
    reply = Reply(turn, body, settings.data_dir, base_url(request))
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    if body.stream:
        if body.n > 1:
            raise Refusal("n", "n > 1 is answered with stream: false only; or send n requests")
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        chunks = _chunks(reply, completion_id, created, include_usage, store, tenant)
        return EventSourceResponse(chunks)
    # With a model, n > 1 is n turns of the same conversation, each a choice (and each charged).
    replies = [reply]
    for _ in range(body.n - 1):
        _, another = await off_loop(prepare)
        replies.append(Reply(another, body, settings.data_dir, base_url(request)))
    answered = await asyncio.gather(*(_answer(one) for one in replies))
    choices, usage = [], {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    for index, (one, (_, content, finish)) in enumerate(zip(replies, answered, strict=True)):
        spent = await _charge(
            one.turn, body, content, store, tenant, assistant.id if assistant else None
        )
        usage = {name: usage[name] + spent[name] for name in usage}
        said: dict[str, Any] = {"role": "assistant", "content": content or None}
        if one.turn.result.client_calls:
            said["tool_calls"] = _tool_calls(one.turn)
        choices.append({"index": index, "message": said, "finish_reason": finish})
    extra: dict[str, Any] = {"steps": answered[0][0]}
    if reply.notice:
        extra["notice"] = reply.notice
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": body.model,
        "choices": choices,
        "usage": usage,
        EXTRA: extra,
    }


async def _answer(reply: Reply) -> tuple[list[dict[str, Any]], str, str]:
    """Run one turn whole: its steps, the reply's content and its finish reason. A history
    that cannot be sent to the model fails here: a 400 `invalid_messages`."""
    steps: list[dict[str, Any]] = []
    text: list[str] = []
    async for event in reply.turn.events():
        step = _step(event)
        if step is not None:
            steps.append(step)
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, Failed):
            text.append(event.message)
    content, finish = await reply.content("".join(text))
    return steps, content, finish


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
    content: str,
    store: Store,
    tenant: Tenant,
    assistant_id: str | None,
) -> dict[str, int]:
    """The reply's usage: the model's calls as reported; without a model, counted offline."""
    result = turn.result
    if result.calls:
        prompt, completion = result.prompt_tokens, result.completion_tokens

        def record() -> None:
            from datapilot.assistants.context_store import remember  # loaded with the turn

            with store.session(write=True) as session:
                Usage(session, tenant).record(
                    model=result.model or "",
                    prompt_tokens=prompt,
                    completion_tokens=completion,
                    assistant_id=assistant_id,
                )
                remember(session, tenant, result, assistant_id=assistant_id)

        await off_loop(record)
    else:
        prompt = count_chat(message.model_dump() for message in body.messages)
        completion = count_tokens(content)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


async def _chunks(
    reply: Reply,
    completion_id: str,
    created: int,
    include_usage: bool,
    store: Store,
    tenant: Tenant,
) -> AsyncIterator[dict[str, str]]:
    turn, body = reply.turn, reply.body
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
    sent: list[str] = []  # the text, whole (sent as it came, or held back to cut or format)
    try:
        async for event in turn.events():
            step = _step(event)
            if step is not None:
                yield chunk({}, None, **{EXTRA: step})
            piece = (
                event.text
                if isinstance(event, TextDelta)
                else event.message
                if isinstance(event, Failed)
                else ""
            )
            if piece:
                sent.append(piece)
                if not reply.buffered:
                    yield chunk({"content": piece})
            elif isinstance(event, Done):
                break
    except NormalisationError as error:
        failed = {"type": "failed", "message": str(error)}
        yield chunk({"content": str(error)}, None, **{EXTRA: failed})
    finish = finish_reason(turn)
    if reply.buffered:
        try:
            content, finish = await reply.content("".join(sent))
        except Refusal as refusal:  # a schema the Answer cannot fill: OpenAI's error event
            message = f"{refusal.param}: {refusal.message}"
            yield {
                "data": json.dumps(openai_body(400, message, "unsupported_value", refusal.param))
            }
            return
        sent = [content]
        yield chunk({"content": content})
    else:
        unwritten = reply.unwritten("".join(sent))
        if unwritten:
            sent.append(unwritten)
            yield chunk({"content": unwritten})
        tail = await reply.tail()
        if tail:  # the charts' links and the tables, a paragraph after the text
            piece = f"\n\n{tail}" if "".join(sent).strip() else tail
            sent.append(piece)
            yield chunk({"content": piece})
    if turn.result.client_calls:
        yield chunk({"tool_calls": _tool_calls(turn)})
    if reply.notice:
        yield chunk({}, None, **{EXTRA: {"type": "notice", "message": reply.notice}})
    yield chunk({}, finish)
    usage = await _charge(turn, body, "".join(sent), store, tenant, assistant_id)
    if include_usage:
        yield chunk(None, usage=usage)
    yield {"data": "[DONE]"}
