"""Datapilot published as a plugin over HTTP, every document generated from the one registry of
published operations (`datapilot.tools.published`):

- `GET /.well-known/ai-plugin.json`: the manifest (Qianfan / OpenAI plugin shape);
- `GET /openapi.yaml`, `GET /openapi.json`: the plugin's OpenAPI spec (the whole API's document
  is at `/api/openapi.json`);
- `POST /run` (`{"query"}` → answer, chart PNG URLs, tables, status) and `POST /run/NAME` for
  the direct data operations;
- `GET /.well-known/mcp.json`: where the MCP endpoint is and its tools; `/mcp` itself is
  mounted by `mcp_http`.

The documents are public; `/run…` and `/mcp` need a key with the chat scope once keys exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import yaml
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field

from datapilot import __version__
from datapilot.server.auth import AUTH_RESPONSES, require_scope
from datapilot.server.chart_files import save_png
from datapilot.server.errors import VALIDATION_RESPONSES, FieldProblem, ValidationProblem
from datapilot.server.workers import offloaded, worker_pool
from datapilot.settings import Settings
from datapilot.tools.published import faces
from datapilot.tools.published.charts import png_bytes
from datapilot.tools.published.invoke import Offload, invoke
from datapilot.tools.published.operations import (
    OPERATIONS,
    Operation,
    OperationContext,
    OperationError,
    Outcome,
)

log = logging.getLogger(__name__)

documents = APIRouter(tags=["Published plugin"])


def base_url(request: Request) -> str:
    """The URL clients reached this server at (proxy headers applied by the server)."""
    return str(request.base_url).rstrip("/")


async def _keys_required(request: Request) -> bool:
    return await request.app.state.key_gate.keys_required()


@documents.get("/.well-known/ai-plugin.json", summary="The plugin manifest (ai-plugin.json)")
async def plugin_manifest(request: Request) -> dict[str, Any]:
    settings: Settings = request.app.state.settings
    return faces.manifest(
        base_url(request),
        keys_required=await _keys_required(request),
        contact_email=settings.plugin_contact_email,
    )


@documents.get("/openapi.json", summary="The plugin's OpenAPI spec (JSON)")
async def plugin_spec_json(request: Request) -> dict[str, Any]:
    return faces.openapi_spec(base_url(request), keys_required=await _keys_required(request))


@documents.get(
    "/openapi.yaml",
    summary="The plugin's OpenAPI spec (YAML)",
    response_class=Response,
    # The YAML text parses to the spec object (clients and fuzzers read it that way).
    responses={
        200: {
            "content": {
                "application/yaml": {
                    "schema": {"type": "object", "description": "An OpenAPI 3.1 document."}
                }
            }
        }
    },
)
async def plugin_spec_yaml(request: Request) -> Response:
    spec = faces.openapi_spec(base_url(request), keys_required=await _keys_required(request))
    text = yaml.safe_dump(spec, allow_unicode=True, sort_keys=False)
    return Response(text, media_type="application/yaml")


@documents.get("/.well-known/mcp.json", summary="The MCP endpoint, its authentication and tools")
async def mcp_discovery(request: Request) -> dict[str, Any]:
    return faces.mcp_discovery(base_url(request), keys_required=await _keys_required(request))


@documents.get("/legal", summary="Terms of the published plugin", response_class=PlainTextResponse)
async def legal() -> str:
    return (
        f"Datapilot {__version__} is open-source software, provided as is, without warranty. "
        "Answers are computed from the data sources each answer names, under those sources' "
        "own terms; they are not investment advice.\n"
    )


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
    """Run `op` for an HTTP caller: charts become PNG URLs of this server."""
    settings: Settings = request.app.state.settings
    context = operation_context(request.app)
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
            notes.append(f"The chart {chart.title!r} could not be drawn: {error}")
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


def _endpoint(op: Operation) -> Callable[..., Awaitable[Any]]:
    async def endpoint(body: BaseModel, request: Request) -> Any:
        return await run_operation(op, body, request)

    # FastAPI reads the body's model from the signature: the operation's own input model.
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=op.input),
            inspect.Parameter(
                "request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request
            ),
        ]
    )
    endpoint.__name__ = f"run_{op.name}"
    return endpoint


def operations_router() -> APIRouter:
    """`POST /run` and `POST /run/NAME`, one route per published operation."""
    router = APIRouter(tags=["Published plugin"], dependencies=[Depends(require_scope("chat"))])
    errors: dict[int | str, dict[str, Any]] = {
        503: {"model": Problem, "description": "One or more services are unavailable."},
        504: {"model": Problem, "description": "The request took too long and was stopped."},
    }
    for op in OPERATIONS:
        router.add_api_route(
            op.path,
            _endpoint(op),
            methods=["POST"],
            response_model=op.output,
            summary=op.summary,
            description=op.description,
            operation_id=f"plugin_{op.name}",
            responses={**AUTH_RESPONSES, **VALIDATION_RESPONSES, **errors},
        )
    return router


def register(app: FastAPI) -> None:
    """Add the published plugin's routes and the MCP endpoint to `app`."""
    from datapilot.server import chart_files, mcp_http

    app.include_router(documents)
    app.include_router(operations_router())
    app.include_router(chart_files.router)
    mcp_http.mount(app, operation_context(app), worker_offload(app.state.settings))
