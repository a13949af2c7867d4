"""The page's inbox of watch events (`/api/v1/watches/inbox`): every report and firing of the
caller's watches, newest first, with the unread count, each report's answer and its charts as
Plotly figures; and marking them read. Another user's events are never listed or marked."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.watches import WatchEvent
from datapilot.server.deps import CHAT, InStoreDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES, NotFound, Refused

router = APIRouter(prefix="/api/v1", tags=["Watches"], responses=VALIDATION_RESPONSES)


class InboxItem(WatchEvent):
    """An event as the inbox shows it: its watch's sentence, a one-line summary in the watch's
    language, and a report's charts as Plotly figures."""

    text: str = Field(description="The watch's sentence.")
    language: str = "en"
    summary: str = ""
    figures: list[dict[str, Any]] = Field(
        default_factory=list, description="A report's charts as Plotly figures."
    )


class Inbox(BaseModel):
    unread: int = Field(description="Unread events of all your watches.")
    events: list[InboxItem]


class MarkRead(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] | None = Field(
        default=None, max_length=1000, description="These events; null: all (of `watch_id`)."
    )
    watch_id: str | None = Field(default=None, description="Only this watch's events.")


class Marked(BaseModel):
    marked: int
    unread: int


def _user(tenant: Any) -> str:
    if tenant.user_id is None:
        raise Refused("guests have no watches")
    user: str = tenant.user_id
    return user


@router.get(
    "/watches/inbox",
    response_model=Inbox,
    dependencies=CHAT,
    summary="Your watches' reports and alerts, newest first, with the unread count",
)
async def inbox(
    tenant: TenantDep,
    in_store: InStoreDep,
    unread: bool = Query(default=False, description="Only unread events."),
    limit: int = Query(default=50, ge=1, le=200),
) -> Inbox:
    from datapilot.store.watches import Watches

    user = _user(tenant)

    def read(session: Any) -> tuple[int, list[WatchEvent], dict[str, Any]]:
        watches = Watches(session, user)
        specs = {info.id: info.spec for info in watches.list()}
        return watches.unread(), watches.inbox(unread_only=unread, limit=limit), specs

    count, events, specs = await in_store(read)
    return Inbox(unread=count, events=[_item(event, specs.get(event.watch_id)) for event in events])


def _item(event: WatchEvent, spec: Any) -> InboxItem:
    from datapilot.core.answer import Answer
    from datapilot.core.outputs import ChartOutput
    from datapilot.render.charts import to_plotly
    from datapilot.watching.messages import summary

    figures = []
    if event.kind == "report" and event.result:
        answer = Answer.model_validate(event.result)
        figures = [to_plotly(o) for o in answer.outputs if isinstance(o, ChartOutput)]
    return InboxItem(
        **event.model_dump(),
        text=spec.text if spec is not None else "",
        language=spec.language if spec is not None else "en",
        summary=summary(spec, event) if spec is not None else "",
        figures=figures,
    )


@router.post(
    "/watches/inbox/read",
    response_model=Marked,
    dependencies=CHAT,
    responses=ROW_ERRORS,
    summary="Mark events read: the ids given, a watch's, or all of yours",
)
async def mark_read(body: MarkRead, tenant: TenantDep, in_store: InStoreDep) -> Marked:
    from datapilot.store.watches import Watches, WatchNotFound

    user = _user(tenant)

    def mark(session: Any) -> Marked:
        watches = Watches(session, user)
        done = watches.mark_read(body.ids, watch_id=body.watch_id)
        return Marked(marked=done, unread=watches.unread())

    try:
        return await in_store(mark)
    except WatchNotFound as error:
        raise NotFound(str(error)) from None
