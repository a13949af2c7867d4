"""Datapilot published as a plugin over HTTP, every document generated from the one registry of
published operations (`datapilot.tools.published`):

- `GET /.well-known/ai-plugin.json`: the manifest (Qianfan / OpenAI plugin shape);
- `GET /openapi.yaml`, `GET /openapi.json`: the plugin's OpenAPI spec (the whole API's document
  is at `/api/openapi.json`);
- `POST /run` (`{"query"}` → answer, chart PNG URLs, tables, status) and `POST /run/NAME` for
  the direct data operations (run by `server.publish`);
- `GET /.well-known/mcp.json`: where the MCP endpoint is and its tools; `/mcp` itself is
  mounted by `mcp_http`.

The documents are public; `/run…` and `/mcp` need a key with the chat scope once keys exist.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import yaml
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel

from datapilot import __version__
from datapilot.server.auth import AUTH_RESPONSES
from datapilot.server.deps import CHAT, SettingsDep
from datapilot.server.errors import VALIDATION_RESPONSES
from datapilot.server.publish import (
    Problem,
    base_url,
    operation_context,
    run_operation,
    worker_offload,
)
from datapilot.tools.published import faces
from datapilot.tools.published.operations import OPERATIONS, Operation

documents = APIRouter(tags=["Published plugin"])


async def _keys_required(request: Request) -> bool:
    return await request.app.state.key_gate.keys_required()


@documents.get("/.well-known/ai-plugin.json", summary="The plugin manifest (ai-plugin.json)")
async def plugin_manifest(request: Request, settings: SettingsDep) -> dict[str, Any]:
    return faces.manifest(
        base_url(request),
        keys_required=await _keys_required(request),
        contact_email=settings.plugin_contact_email,
        legal_url=settings.plugin_legal_url,
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
    router = APIRouter(tags=["Published plugin"], dependencies=CHAT)
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
