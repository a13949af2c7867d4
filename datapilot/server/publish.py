"""Running the published operations (`datapilot.tools.published`) for HTTP callers: on the
server's bounded worker pool, their charts drawn as PNGs served at `/charts/NAME.png`, their
refusals and failures in the plugin's shapes (422 like every 422 of the API; 503, 504 with a
`Problem`). The routes that publish them are `routes.publish`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from datapilot.server.chart_files import save_png
from datapilot.server.errors import FieldProblem, ValidationProblem
from datapilot.server.workers import offloaded, worker_pool
from datapilot.settings import Settings
from datapilot.tools.published.charts import png_bytes
from datapilot.tools.published.invoke import Offload, invoke
from datapilot.tools.published.operations import (
    Operation,
    OperationContext,
    OperationError,
    Outcome,
)

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


def base_url(request: Request) -> str:
    """The URL clients reached this server at (proxy headers applied by the server)."""
    return str(request.base_url).rstrip("/")


def worker_offload(settings: Settings) -> Offload:
    """Run an operation on the server's bounded worker pool (never on the event loop)."""

    async def offload(work: Callable[[], Awaitable[Outcome]]) -> Outcome:
        async def one() -> AsyncIterator[Outcome]:
            yield await work()

        pool = worker_pool(settings.worker_threads)
        async with contextlib.aclosing(offloaded(one, pool)) as stream:
            async for outcome in stream:
                return outcome
        raise RuntimeError("the operation ended without a result")

    return offload


def operation_context(app: FastAPI) -> OperationContext:
    """The app's one context for published operations (data opened on first use)."""
    context: OperationContext | None = getattr(app.state, "operations", None)
    if context is None:
        context = app.state.operations = OperationContext(app.state.settings)
    return context


async def run_operation(op: Operation, arguments: BaseModel, request: Request) -> Any:
    """Run `op` for an HTTP caller (with the caller's own tools): charts become PNG URLs of
    this server."""
    from datapilot.server.deps import tenant_of
    from datapilot.tools.offline import user_tools

    settings: Settings = request.app.state.settings
    user = (await tenant_of(request)).user_id or ""
    tools = functools.partial(user_tools, request.app.state.store, settings, user)
    context = dataclasses.replace(
        operation_context(request.app), asker_tools=tools, data_owner=user or None
    )
    try:
        outcome = await invoke(op, arguments, context, worker_offload(settings))
    except OperationError as error:
        return _refusal(error)
    except Exception as error:  # Qianfan's convention: 503, one or more services unavailable
        log.exception("the published operation %s failed", op.name)
        message = f"{op.name} failed: {type(error).__name__}: {error}; try again later."
        body = Problem(message=message, code="unavailable")
        return JSONResponse(status_code=503, content=body.model_dump())
    if not outcome.charts or "images" not in type(outcome.result).model_fields:
        return outcome.result
    urls: list[str] = []
    notes: list[str] = list(getattr(outcome.result, "notes", []))
    for chart in outcome.charts:
        try:
            png = await asyncio.to_thread(png_bytes, chart)
            name = await asyncio.to_thread(save_png, settings.data_dir, png)
        except Exception as error:
            log.exception("drawing %r failed", chart.title)
            from datapilot.render.charts import undrawn

            notes.append(undrawn(chart, error))
            continue
        urls.append(f"{base_url(request)}/charts/{name}.png")
    return outcome.result.model_copy(update={"images": urls, "notes": notes})


class Problem(BaseModel):
    """The body of a 503 or 504 answer of a published operation."""

    message: str = Field(description="What went wrong and what to do, for people.")
    code: str = Field(description="unavailable | timeout")


def _refusal(error: OperationError) -> JSONResponse:
    """422 in the shape of every 422 of the API (the arguments as a whole are the field); 504."""
    if error.kind == "timeout":
        body: BaseModel = Problem(message=error.message, code="timeout")
        return JSONResponse(status_code=504, content=body.model_dump())
    problem = FieldProblem(loc=["body"], field="body", msg=error.message, type=error.kind)
    body = ValidationProblem(message=error.message, detail=[problem])
    return JSONResponse(status_code=422, content=body.model_dump())
