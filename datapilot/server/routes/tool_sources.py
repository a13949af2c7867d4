"""Imported tools over REST under `/api/v1/tools`: add, list, show and remove sources (OpenAPI
documents, ai-plugin.json manifests, MCP servers over HTTP), call one tool, and trust one.

Every route acts for the caller's tenant; reading a source's document goes through the SSRF-safe
client before the store transaction opens. Secrets are accepted, stored encrypted, never shown.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.outputs import Output
from datapilot.net import OutboundHTTPError, OutboundPolicy
from datapilot.server.deps import CHAT, MANAGE, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES, BadRequest, Refused, UpstreamFailed
from datapilot.server.store_calls import OwnedCalls, off_loop
from datapilot.tools.sources import SourceIn, SourceInfo, Sources, ToolSummary, read_source

T = TypeVar("T")
router = APIRouter(prefix="/api/v1/tools", tags=["Imported tools"], responses=VALIDATION_RESPONSES)
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


SourceCalls = OwnedCalls[Sources]


async def source_calls_of(
    tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> SourceCalls:
    """The caller's tool sources (a user's: a guest has none)."""
    if tenant.user_id is None:
        raise Refused("imported tools belong to users; use an API key of yours")
    return SourceCalls(Sources, tenant.user_id, settings, in_store)


SourcesDep = Annotated[SourceCalls, Depends(source_calls_of)]


@router.post(
    "/sources",
    response_model=SourceInfo,
    status_code=201,
    dependencies=MANAGE,
    responses=ERRORS,
    summary="Import an OpenAPI document, an ai-plugin.json manifest or an MCP server",
)
async def add_source(body: SourceIn, sources: SourcesDep, settings: SettingsDep) -> SourceInfo:
    if body.command is not None:
        raise BadRequest(
            "an MCP server over stdio can only be added from the terminal (datapilot tools add)"
        )
    policy = OutboundPolicy.from_settings(settings)
    name, description, spec, problems = await off_loop(lambda: read_source(body, policy))
    return await sources(lambda x: x.save(body, name, description, spec, problems))


@router.get("/sources", response_model=list[SourceInfo], dependencies=CHAT)
async def list_sources(sources: SourcesDep) -> Any:
    return await sources(lambda x: x.list())


@router.get("/sources/{ref}", response_model=SourceInfo, dependencies=CHAT, responses=ERRORS)
async def get_source(ref: str, sources: SourcesDep) -> Any:
    return await sources(lambda x: x.get(ref))


@router.delete(
    "/sources/{ref}",
    status_code=204,
    response_model=None,
    dependencies=MANAGE,
    responses=ERRORS,
)
async def delete_source(ref: str, sources: SourcesDep) -> Response:
    await sources(lambda x: x.delete(ref))
    return Response(status_code=204)


@router.post(
    "/{name}/call",
    response_model=CallOut,
    dependencies=CHAT,
    responses=ERRORS,
    summary="Call an imported tool (your request is the confirmation)",
)
async def call_tool(name: str, body: CallIn, sources: SourcesDep) -> CallOut:
    tool = await sources(lambda x: x.tool(name, body.token), write=False)
    try:
        output = await tool.call(body.arguments)
    except OutboundHTTPError as error:  # the tool's server said no: the answer names the tool
        raise UpstreamFailed(f"{tool.name}: {error.message}") from None
    return CallOut(tool=tool.name, text=output.text, outputs=output.outputs)


@router.post(
    "/{name}/trust",
    response_model=ToolSummary,
    dependencies=MANAGE,
    responses=ERRORS,
    summary="Let a consequential tool run in chats without asking (trusted: false undoes it)",
)
async def trust_tool(name: str, sources: SourcesDep, body: TrustIn | None = None) -> Any:
    trusted = body.trusted if body is not None else True
    return await sources(lambda x: x.trust(name, trusted))
