"""Scene prompts under `/api/v1/scene-prompts`: the situations an assistant recognises, each
with the instructions it then follows (a turn picks one; see `assistants.scenes`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from datapilot.assistants.models import ScenePromptIn, ScenePromptInfo
from datapilot.assistants.repo import ScenePrompts
from datapilot.server.deps import CHAT, MANAGE, InStoreDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


@router.post(
    "/scene-prompts",
    response_model=ScenePromptInfo,
    status_code=201,
    dependencies=MANAGE,
    responses=ROW_ERRORS,
)
async def create_scene_prompt(body: ScenePromptIn, tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: ScenePrompts(s, tenant).create(body))


@router.get("/scene-prompts", response_model=list[ScenePromptInfo], dependencies=CHAT)
async def list_scene_prompts(
    tenant: TenantDep, in_store: InStoreDep, assistant_id: str | None = None
) -> Any:
    return await in_store(lambda s: ScenePrompts(s, tenant).list(assistant_id))


@router.delete(
    "/scene-prompts/{prompt_id}",
    status_code=204,
    response_model=None,
    dependencies=MANAGE,
    responses=ROW_ERRORS,
)
async def delete_scene_prompt(prompt_id: str, tenant: TenantDep, in_store: InStoreDep) -> Response:
    await in_store(lambda s: ScenePrompts(s, tenant).delete(prompt_id))
    return Response(status_code=204)
