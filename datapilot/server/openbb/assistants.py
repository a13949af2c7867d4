"""Each assistant as its own OpenBB Workspace agent: `/assistants/{id}/agents.json` and
`/assistants/{id}/v1/query`, on the same stateless protocol as the built-in agent (the
Workspace resends the whole conversation; nothing is stored but the tokens used)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy import select
from sse_starlette import EventSourceResponse

from datapilot.server.deps import SettingsDep, StoreDep, TenantDep
from datapilot.server.errors import NotFound
from datapilot.server.openbb.agent import AgentDescriptor, AgentEndpoints, agent_descriptor
from datapilot.server.openbb.request import WorkspaceQuery
from datapilot.server.openbb.routes import _SSE_RESPONSE, _wire
from datapilot.store.models import Assistant

if TYPE_CHECKING:  # an assistant's turn loads with its first query, not with the server
    from datapilot.assistants.models import AssistantInfo, Tenant
    from datapilot.assistants.runtime import Turn
    from datapilot.assistants.turn_state import TurnSetup
    from datapilot.core.events import Event
    from datapilot.store import Store

router = APIRouter(prefix="/assistants/{assistant_id}", tags=["OpenBB Workspace"])


@router.get(
    "/agents.json",
    response_model=dict[str, AgentDescriptor],
    response_model_exclude_none=True,
    summary="One assistant as an OpenBB Workspace agent",
)
async def assistant_agents_json(
    assistant_id: str, request: Request, settings: SettingsDep, store: StoreDep
) -> dict[str, AgentDescriptor]:
    """Public like every agent descriptor; a private assistant's name and description stay
    private (the Workspace learns them only through the key-guarded query)."""

    def public_info() -> tuple[str, str] | None:
        with store.session() as session:
            row = session.get(Assistant, assistant_id)
            if row is None:
                return None
            return (row.name, row.description) if row.public else ("Datapilot assistant", "")

    found = await anyio.to_thread.run_sync(public_info)
    if found is None:
        raise NotFound(f"no assistant {assistant_id!r}")
    base = str(request.base_url).rstrip("/")
    descriptor = agent_descriptor(base, settings).model_copy(
        update={
            "name": found[0],
            "description": found[1] or "A Datapilot assistant with its own prompt and tools.",
            "endpoints": AgentEndpoints(query=f"{base}/assistants/{assistant_id}/v1/query"),
        }
    )
    return {f"datapilot-{assistant_id}": descriptor}


@router.post(
    "/v1/query",
    response_class=EventSourceResponse,
    responses=_SSE_RESPONSE,
    summary="Answer a Workspace conversation as this assistant",
)
async def assistant_query(
    assistant_id: str,
    body: WorkspaceQuery,
    tenant: TenantDep,
    settings: SettingsDep,
    store: StoreDep,
) -> EventSourceResponse:
    from datapilot.assistants.normalise import HistoryMessage
    from datapilot.assistants.repo import Assistants
    from datapilot.assistants.runtime import Turn
    from datapilot.assistants.service import assistant_tools, setup_turn, with_knowledge
    from datapilot.core.events import Done, StatusEvent
    from datapilot.engine.context import RequestContext
    from datapilot.server.openbb.context import QueryInputError, prepare_query
    from datapilot.server.openbb.documents import keep_documents
    from datapilot.server.openbb.stream import openbb_sse
    from datapilot.server.runner import guarded_events

    try:
        prepared = prepare_query(body, settings, tenant.user_id)
    except QueryInputError as error:
        location = ("body", *error.field.split("."))
        raise RequestValidationError(
            [{"type": "value_error", "loc": location, "msg": error.message, "input": None}]
        ) from error
    history = [
        HistoryMessage(role=turn.to_message().role, content=turn.content)
        for turn in prepared.context.history
    ]
    history.append(HistoryMessage(role="human", content=prepared.question))

    def prepare() -> tuple[AssistantInfo, str | None, TurnSetup]:
        with store.session() as session:
            assistant = Assistants(session, tenant).get(assistant_id)
            owner = session.scalar(select(Assistant.owner_id).where(Assistant.id == assistant.id))
        question = prepared.context.model_copy(
            update={"llm_model": prepared.context.llm_model or assistant.model}
        )
        context = RequestContext.for_request(question, settings)
        context, tools = assistant_tools(store, tenant, settings, context, assistant)
        setup = setup_turn(context, assistant, history, tools)
        setup.can_ask = False  # the Workspace's protocol has no confirmation: see routes.openai
        return assistant, owner, setup

    assistant, owner, setup = await anyio.to_thread.run_sync(prepare)
    notes: list[str] = []
    if assistant.library_id and owner:
        if owner == tenant.user_id:  # only the library's owner adds to it
            notes = await keep_documents(
                store, settings, owner, assistant.library_id, prepared.documents
            )
        await anyio.to_thread.run_sync(
            with_knowledge,
            store,
            settings,
            owner,
            assistant.library_id,
            history,
            prepared.question,
            setup,
        )
    turn = Turn(setup)

    async def source(*_: Any) -> AsyncIterator[Event]:
        for note in notes:
            yield StatusEvent(message=note)
        async for event in turn.events():
            if isinstance(event, Done) and turn.result.calls:
                await anyio.to_thread.run_sync(_charge, store, tenant, assistant, turn)
            yield event

    events = guarded_events(prepared.question, prepared.context, settings, source)
    return EventSourceResponse(_wire(openbb_sse(events, prepared)))


def _charge(store: Store, tenant: Tenant, assistant: AssistantInfo, turn: Turn) -> None:
    from datapilot.assistants.repo import Usage

    result = turn.result
    with store.session(write=True) as session:
        Usage(session, tenant).record(
            model=result.model or "",
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            assistant_id=assistant.id,
        )
