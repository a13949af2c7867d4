"""`GET /api/v1/tools`: the tools an assistant may bind, the built-ins and the caller's
imported ones (importing them is `tool_sources`)."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import select
from sqlalchemy.orm import Session

from datapilot.assistants.models import ToolInfo
from datapilot.server.deps import CHAT, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.store.models import Tool as ToolRow

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


@router.get("/tools", response_model=list[ToolInfo], dependencies=CHAT, summary="Tools")
async def list_tools(
    tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> list[ToolInfo]:
    from datapilot.assistants.service import tool_ids  # the tools' machinery, when listed

    def work(session: Session) -> list[ToolInfo]:
        tool_ids(session, settings)  # records the built-ins on first use
        mine = ToolRow.owner_id.is_(None)
        if tenant.user_id is not None:  # and the tools this user imported
            rows = session.scalars(
                select(ToolRow).where(mine | (ToolRow.owner_id == tenant.user_id))
            )
        else:
            rows = session.scalars(select(ToolRow).where(mine))
        return [ToolInfo.model_validate(row) for row in rows]

    return await in_store(work)
