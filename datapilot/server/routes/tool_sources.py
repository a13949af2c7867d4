"""Imported tools over REST under `/api/v1/tools`: add, list, show and remove sources (OpenAPI
documents, ai-plugin.json manifests, MCP servers over HTTP), call one tool, and trust one.

Every route acts for the caller's tenant; reading a source's document goes through the SSRF-safe
client before the store transaction opens. Secrets are accepted, stored encrypted, never shown.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from datapilot.assistants.models import Tenant
from datapilot.core.outputs import Output
from datapilot.net import OutboundPolicy
from datapilot.server.auth import require_scope
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.routes.platform import off_loop, tenant_of
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.tools.sources import (
    SourceError,
    SourceIn,
    SourceInfo,
    SourceNotFound,
    Sources,
    ToolSummary,
    read_source,
)

router = APIRouter(prefix="/api/v1/tools", tags=["Imported tools"], responses=VALIDATION_RESPONSES)
chat_scope = [Depends(require_scope("chat"))]
manage_scope = [Depends(require_scope("manage"))]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The source or the arguments cannot be used; `detail` says why."},
    404: {"description": "No such source or tool for this caller."},
    502: {"description": "The tool's server could not be reached or refused the call."},
}


class CallIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    arguments: dict[str, Any] = Field(default_factory=dict)
    token: str | None = Field(
        default=None, description="Your own token, for a tool with user_http auth; not stored."
    )


class CallOut(BaseModel):
    tool: str
    text: str = Field(description="The result as the tool returned it (JSON text or text).")
    outputs: list[Output] = Field(default_factory=list, description="Tables of tabular results.")


class TrustIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trusted: bool = True


async def _in_store(request: Request, write: bool, work: Any) -> Any:
    store: Store = request.app.state.store
    settings: Settings = request.app.state.settings

    def run() -> Any:
        with store.session(write=write) as session:
            return work(session, settings)

    try:
        return await off_loop(run)
    except SourceNotFound as error:
        raise HTTPException(404, str(error)) from None
    except (SourceError, ValueError) as error:
        raise HTTPException(400, str(error)) from None


def _owner(tenant: Tenant) -> str:
    if tenant.user_id is None:
        raise HTTPException(403, "imported tools belong to users; use an API key of yours")
    return tenant.user_id


@router.post(
    "/sources",
    response_model=SourceInfo,
    status_code=201,
    dependencies=manage_scope,
    responses=ERRORS,
    summary="Import an OpenAPI document, an ai-plugin.json manifest or an MCP server",
)
async def add_source(
    body: SourceIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> SourceInfo:
    owner = _owner(tenant)
    if body.command is not None:
        raise HTTPException(
            400,
            "an MCP server over stdio can only be added from the terminal (datapilot tools add)",
        )
    try:
        policy = OutboundPolicy.from_settings(request.app.state.settings)
        name, description, spec, problems = await off_loop(lambda: read_source(body, policy))
    except SourceError as error:
        raise HTTPException(400, str(error)) from None
    return await _in_store(
        request,
        True,
        lambda s, settings: Sources(s, owner, settings).save(
            body, name, description, spec, problems
        ),
    )


@router.get("/sources", response_model=list[SourceInfo], dependencies=chat_scope)
async def list_sources(request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    owner = _owner(tenant)
    return await _in_store(request, False, lambda s, settings: Sources(s, owner, settings).list())


@router.get("/sources/{ref}", response_model=SourceInfo, dependencies=chat_scope, responses=ERRORS)
async def get_source(ref: str, request: Request, tenant: Tenant = Depends(tenant_of)) -> Any:
    owner = _owner(tenant)
    return await _in_store(request, False, lambda s, settings: Sources(s, owner, settings).get(ref))


@router.delete(
    "/sources/{ref}",
    status_code=204,
    response_model=None,
    dependencies=manage_scope,
    responses=ERRORS,
)
async def delete_source(
    ref: str, request: Request, tenant: Tenant = Depends(tenant_of)
) -> Response:
    owner = _owner(tenant)
    await _in_store(request, True, lambda s, settings: Sources(s, owner, settings).delete(ref))
    return Response(status_code=204)


@router.post(
    "/{name}/call",
    response_model=CallOut,
    dependencies=chat_scope,
    responses=ERRORS,
    summary="Call an imported tool (your request is the confirmation)",
)
async def call_tool(
    name: str, body: CallIn, request: Request, tenant: Tenant = Depends(tenant_of)
) -> CallOut:
    from datapilot.net import OutboundError, OutboundHTTPError
    from datapilot.tools.imported import ArgumentsError
    from datapilot.tools.mcp_client import MCPError
    from datapilot.tools.secrets import SecretsError

    owner = _owner(tenant)
    tool = await _in_store(
        request, False, lambda s, settings: Sources(s, owner, settings).tool(name, body.token)
    )
    try:
        output = await tool.call(body.arguments)
    except (ArgumentsError, SecretsError) as error:
        raise HTTPException(400, str(error)) from None
    except OutboundHTTPError as error:
        raise HTTPException(502, f"{tool.name}: {error.message}") from None
    except OutboundError as error:
        raise HTTPException(502, error.message) from None
    except MCPError as error:
        raise HTTPException(502, str(error)) from None
    return CallOut(tool=tool.name, text=output.text, outputs=output.outputs)


@router.post(
    "/{name}/trust",
    response_model=ToolSummary,
    dependencies=manage_scope,
    responses=ERRORS,
    summary="Let a consequential tool run in chats without asking (trusted: false undoes it)",
)
async def trust_tool(
    name: str, request: Request, body: TrustIn | None = None, tenant: Tenant = Depends(tenant_of)
) -> Any:
    owner = _owner(tenant)
    trusted = body.trusted if body is not None else True
    return await _in_store(
        request, True, lambda s, settings: Sources(s, owner, settings).trust(name, trusted)
    )
