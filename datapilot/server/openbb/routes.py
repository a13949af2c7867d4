"""The OpenBB Workspace custom agent: discovery, the streaming query endpoint and feedback."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from openbb_ai.models import SSE
from sse_starlette import EventSourceResponse

from datapilot.server.deps import SettingsDep, StoreDep, TenantDep
from datapilot.server.docs import sse_event_schema
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.feedback import (
    Feedback,
    FeedbackStored,
    FeedbackTooLarge,
    store_feedback,
)
from datapilot.server.limits import check_tables
from datapilot.server.openbb.agent import (
    AGENT_ID,
    AgentDescriptor,
    LegacyCopilotDescriptor,
    agent_descriptor,
    legacy_descriptor,
)
from datapilot.server.openbb.request import WorkspaceQuery

if TYPE_CHECKING:  # a query's machinery (widget data, documents, the pipeline) loads with it
    from datapilot.server.openbb.context import PreparedQuery
    from datapilot.settings import Settings
    from datapilot.store import Store
    from datapilot.tools import Tool

router = APIRouter(tags=["OpenBB Workspace"])

_SSE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "Server-sent events of the OpenBB agent protocol: copilotStatusUpdate, "
            "copilotMessageChunk, copilotMessageArtifact, copilotCitationCollection, "
            "copilotPromptSuggestions, or a single copilotFunctionCall (get_widget_data)."
        ),
        # `event` names the kind; `data` is its JSON payload.
        "content": {"text/event-stream": {"schema": sse_event_schema()}},
    },
    **VALIDATION_RESPONSES,
}


@router.get(
    "/agents.json",
    response_model=dict[str, AgentDescriptor],
    response_model_exclude_none=True,
    summary="Agent descriptor for OpenBB Workspace",
)
async def agents_json(request: Request, settings: SettingsDep) -> dict[str, AgentDescriptor]:
    return {AGENT_ID: agent_descriptor(str(request.base_url), settings)}


@router.get(
    "/copilots.json",
    response_model=dict[str, LegacyCopilotDescriptor],
    summary="Copilot descriptor for older OpenBB clients (v1)",
)
async def copilots_json(request: Request) -> dict[str, LegacyCopilotDescriptor]:
    return {AGENT_ID: legacy_descriptor(str(request.base_url))}


@router.post(
    "/v1/query",  # names no assistant: a bound key is refused here (`auth.confine_bound_key`)
    response_class=EventSourceResponse,
    responses=_SSE_RESPONSE,
    summary="Answer a Workspace conversation as a stream of agent events",
)
async def query(
    body: WorkspaceQuery, settings: SettingsDep, tenant: TenantDep, store: StoreDep
) -> EventSourceResponse:
    from datapilot.server.openbb.context import QueryInputError, prepare_query
    from datapilot.server.openbb.documents import document_source
    from datapilot.server.openbb.stream import openbb_sse
    from datapilot.server.runner import guarded_events
    from datapilot.tools.offline import try_user_tools

    try:
        # Off the event loop: widget data and documents may be large to parse.
        prepared = await asyncio.to_thread(prepare_query, body, settings, tenant.user_id)
        for field, message in check_tables(prepared.context.tables, settings, "widgets"):
            raise QueryInputError(field, message)
    except QueryInputError as error:
        location = ("body", *error.field.split("."))
        raise RequestValidationError(
            [{"type": "value_error", "loc": location, "msg": error.message, "input": None}]
        ) from error
    source = document_source(prepared.documents) if prepared.documents else None
    events = guarded_events(prepared.question, prepared.context, settings, source)
    if source is None:
        # What the data cannot answer goes to the caller's own tools, as on the other faces.
        events = try_user_tools(
            events,
            prepared.question,
            functools.partial(_callers_tools, store, settings, tenant.user_id or "", prepared),
            prepared.context.today,
        )
    return EventSourceResponse(_wire(openbb_sse(events, prepared)))


def _callers_tools(
    store: Store, settings: Settings, user: str, prepared: PreparedQuery
) -> dict[str, Tool]:
    from datapilot.engine.context import RequestContext
    from datapilot.tools.offline import user_tools

    request = RequestContext.for_request(prepared.context, settings)
    return user_tools(store, settings, user, request)


@router.post(
    "/v1/feedback",
    response_model=FeedbackStored,
    responses=VALIDATION_RESPONSES,
    summary="Store a user's feedback on an answer",
)
async def feedback(body: Feedback, settings: SettingsDep) -> FeedbackStored:
    try:
        await store_feedback(body, settings)
    except FeedbackTooLarge as error:
        raise RequestValidationError(
            [{"type": "too_large", "loc": ("body",), "msg": str(error), "input": None}]
        ) from error
    return FeedbackStored()


async def _wire(events: AsyncIterator[SSE]) -> AsyncIterator[dict[str, Any]]:
    async for event in events:
        payload = event.model_dump()
        # Naive SSE parsers (the SDK's test parser among them) split lines on "data:". Inside
        # JSON it can only occur in strings, where the escaped colon decodes to the same text.
        payload["data"] = payload["data"].replace("data:", "data\\u003a")
        yield payload
