"""Watches over HTTP, under `/api/v1/watches`: create one from a sentence (201 with what was
understood, and the webhook's signing secret once, as `secret`; `dry_run` only reads it), list,
read, pause or resume (PATCH), delete, its history (`/events`), and backtest a sentence over
history. Another user's watch answers 404 like one that does not exist; a sentence with words not
read answers 422 naming them (`words`); a guest or a key bound to an assistant cannot have
watches (403)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.watches import WatchChannels, WatchEvent
from datapilot.server.deps import CHAT, InStoreDep, SettingsDep, TenantDep
from datapilot.server.errors import VALIDATION_RESPONSES, BadRequest, Refused
from datapilot.server.store_calls import OwnedCalls, off_loop
from datapilot.store.watches import Watches
from datapilot.watches.errors import WatchRefused

router = APIRouter(prefix="/api/v1/watches", tags=["Watches"], responses=VALIDATION_RESPONSES)
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The request cannot be done as asked; `detail` says why."},
    403: {"description": "A guest, a key bound to an assistant, or DATAPILOT_MAX_WATCHES."},
    404: {"description": "No such watch for this caller."},
    422: {"description": "Words of the sentence not read: `words` names them."},
}


class WatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=2000, description="The sentence.")
    channels: WatchChannels = Field(default_factory=WatchChannels)
    dry_run: bool = Field(
        default=False,
        description="Only read the sentence: 200 with what was understood (and `described`, "
        "its lines in the sentence's language); nothing is saved.",
    )


class WatchPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["active", "paused"]


class BacktestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=2000)
    start: date
    end: date


WatchCalls = OwnedCalls[Watches]


async def watch_calls_of(
    tenant: TenantDep, settings: SettingsDep, in_store: InStoreDep
) -> WatchCalls:
    """The caller's watches: a user's; a guest or a key bound to an assistant has none."""
    if tenant.user_id is None:
        raise Refused("guests cannot have watches; ask the owner for an API key")
    if tenant.assistant_id is not None:
        raise Refused(
            f"this API key is bound to the assistant {tenant.assistant_id!r}; watches need a "
            "key bound to no assistant"
        )
    return WatchCalls(Watches, tenant.user_id, settings, in_store)


WatchesDep = Annotated[WatchCalls, Depends(watch_calls_of)]


def resync(request: Request) -> None:
    """This server's scheduler (when its lifespan runs one) takes the change at once; other
    replicas within DATAPILOT_WATCH_SYNC_S."""
    scheduler = getattr(request.app.state, "watches", None)
    if scheduler is not None:
        scheduler.resync()


def refusal(refused: WatchRefused) -> JSONResponse:
    """422 in the API's validation shape, with the words not read."""
    message = str(refused)
    problem = {"loc": ["body", "text"], "field": "text", "msg": message, "type": "unread_words"}
    body = {"message": message, "code": "unread_words", "words": refused.words, "detail": [problem]}
    return JSONResponse(status_code=422, content=body)


@router.post("", status_code=201, dependencies=CHAT, responses=ERRORS)
async def create_watch(body: WatchIn, watches: WatchesDep, request: Request) -> Any:
    """Read the sentence, save the watch, return it (with `secret` once, for a webhook); with
    `dry_run`, only what it was understood as (200, nothing saved)."""
    from datapilot.watches.service import understand, watch_view

    try:
        spec = await off_loop(lambda: understand(body.text, watches.settings, watches.owner))
    except WatchRefused as refused:
        return refusal(refused)
    if body.dry_run:
        from datapilot.watches.backtest import understood
        from datapilot.watches.described import lines

        return JSONResponse(status_code=200, content={**understood(spec), "described": lines(spec)})
    new = await watches(lambda x: x.create(spec, body.channels))
    resync(request)
    shown = watch_view(new.watch)
    if new.secret is not None:
        shown["secret"] = new.secret
    return JSONResponse(status_code=201, content=shown)


@router.get("", dependencies=CHAT, responses=ERRORS, summary="Your watches")
async def list_watches(watches: WatchesDep) -> Any:
    from datapilot.watches.service import watch_view

    return [watch_view(w) for w in await watches(lambda x: x.list())]


@router.post("/backtest", dependencies=CHAT, responses=ERRORS)
async def backtest_watch(body: BacktestIn, watches: WatchesDep) -> Any:
    """Every day in start..end an alert would have fired, with the value."""
    from datapilot.watches.service import backtest_sentence

    def run() -> Any:
        return backtest_sentence(body.text, watches.settings, watches.owner, body.start, body.end)

    try:
        result = await off_loop(run)
    except WatchRefused as refused:
        return refusal(refused)
    except ValueError as error:
        raise BadRequest(str(error)) from error
    return result.model_dump(mode="json", include={"watch", "fired", "no_data"})


@router.get("/{watch_id}", dependencies=CHAT, responses=ERRORS, summary="One watch")
async def get_watch(watch_id: str, watches: WatchesDep) -> Any:
    from datapilot.watches.service import watch_view

    return watch_view(await watches(lambda x: x.get(watch_id)))


@router.patch("/{watch_id}", dependencies=CHAT, responses=ERRORS, summary="Pause or resume")
async def patch_watch(
    watch_id: str, body: WatchPatch, watches: WatchesDep, request: Request
) -> Any:
    from datapilot.watches.service import watch_view

    changed = await watches(lambda x: x.set_status(watch_id, body.status))
    resync(request)
    return watch_view(changed)


@router.delete(
    "/{watch_id}", status_code=204, response_model=None, dependencies=CHAT, responses=ERRORS
)
async def delete_watch(watch_id: str, watches: WatchesDep, request: Request) -> Response:
    await watches(lambda x: x.delete(watch_id))
    resync(request)
    return Response(status_code=204)


@router.get(
    "/{watch_id}/events",
    response_model=list[WatchEvent],
    dependencies=CHAT,
    responses=ERRORS,
    summary="A watch's runs, newest first",
)
async def watch_events(watch_id: str, watches: WatchesDep) -> Any:
    return await watches(lambda x: x.events(watch_id))
