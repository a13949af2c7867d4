"""The documents generated from the published operations: the ai-plugin.json manifest (the
Qianfan / OpenAI plugin shape), the OpenAPI 3.1 spec of `POST /run` and the direct data
operations, and the MCP tool list. Each takes the server's base URL; none is written by hand."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

from datapilot import __version__
from datapilot.tools.published.operations import OPERATIONS, Operation

NAME_FOR_MODEL = "Datapilot"
NAME_FOR_HUMAN = "Datapilot"
# Plugin hosts show at most 100 characters of `description_for_human`.
DESCRIPTION_FOR_HUMAN = (
    "Ask about stocks, indices and macro data in English or Chinese: charts, tables, a summary."
)
DESCRIPTION = (
    "A data copilot for finance: ask about stocks, indices and macro series in English or "
    "Chinese and get charts, tables and a summary grounded in the numbers."
)
_MAX_REF_DEPTH = 32


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema with every local `$ref` inlined and no `$defs` (many providers
    reject references); nested models are acyclic here, a cycle is an error."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any, depth: int) -> Any:
        if depth > _MAX_REF_DEPTH:
            raise ValueError(f"{model.__name__}: schema references nest too deeply (a cycle?)")
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = copy.deepcopy(definitions[ref.removeprefix("#/$defs/")])
                extra = {key: value for key, value in node.items() if key != "$ref"}
                return inline({**target, **extra}, depth + 1)
            return {key: inline(value, depth) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item, depth) for item in node]
        return node

    inlined = inline(schema, 0)
    assert isinstance(inlined, dict)
    return inlined


def input_schema(op: Operation) -> dict[str, Any]:
    return schema_of(op.input)


def output_schema(op: Operation) -> dict[str, Any]:
    return schema_of(op.output)


def description_for_model(operations: tuple[Operation, ...] = OPERATIONS) -> str:
    """When and how a model should use the plugin, naming every operation."""
    lines = [
        "Use Datapilot for questions about market and economic data: stock, ETF and index "
        "prices, returns, volatility, drawdowns, K-lines with indicators, macro series, "
        "comparisons and forecasts, asked in English or Chinese. Operations:"
    ]
    lines += [f"- {op.name} ({op.path}): {op.description}" for op in operations]
    return "\n".join(lines)


def manifest(
    base_url: str, *, keys_required: bool, contact_email: str = "", legal_url: str = "/legal"
) -> dict[str, Any]:
    """`/.well-known/ai-plugin.json`. With keys in use each caller brings their own key
    (`user_http`, bearer); without, the server answers only on its own machine (`none`).
    `legal_url` is a path on this server or a full URL."""
    base = base_url.rstrip("/")
    if not legal_url.startswith(("https://", "http://")):
        legal_url = f"{base}/{legal_url.lstrip('/')}"
    auth: dict[str, Any] = (
        {"type": "user_http", "authorization_type": "bearer"} if keys_required else {"type": "none"}
    )
    return {
        "schema_version": "v1",
        "name_for_human": NAME_FOR_HUMAN,
        "name_for_model": NAME_FOR_MODEL,
        "description": DESCRIPTION,
        "description_for_human": DESCRIPTION_FOR_HUMAN,
        "description_for_model": description_for_model(),
        "auth": auth,
        "api": {
            "type": "openapi",
            "url": f"{base}/openapi.yaml",
            "is_user_authenticated": keys_required,
        },
        "logo_url": f"{base}/assets/logo.png",
        "contact_email": contact_email,
        "legal_info_url": legal_url,
    }


_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "What went wrong and what to do."},
        "code": {"type": "string"},
    },
    "required": ["message"],
}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": copy.deepcopy(_ERROR_SCHEMA)}},
    }


def openapi_spec(base_url: str, *, keys_required: bool) -> dict[str, Any]:
    """The plugin's OpenAPI 3.1 document: `POST /run` and one `POST` per direct operation."""
    paths: dict[str, Any] = {}
    for op in OPERATIONS:
        paths[op.path] = {
            "post": {
                "operationId": op.name,
                "summary": op.summary,
                "description": op.description,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": input_schema(op)}},
                },
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {"application/json": {"schema": output_schema(op)}},
                    },
                    "401": _error("No API key, or an unknown or revoked one."),
                    "403": _error("The key lacks the chat scope."),
                    "422": _error("Invalid arguments, or the data asked for does not exist."),
                    "503": _error("One or more services are unavailable; try again later."),
                    "504": _error("The request took too long and was stopped."),
                },
            }
        }
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": NAME_FOR_HUMAN,
            "description": description_for_model(),
            "version": __version__,
        },
        "servers": [{"url": base_url.rstrip("/")}],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
    if keys_required:
        spec["security"] = [{"bearer": []}]
    return spec


def mcp_tools() -> list[dict[str, Any]]:
    """The MCP tools as `tools/list` describes them (name, description, schemas)."""
    return [
        {
            "name": op.name,
            "title": op.summary,
            "description": op.description,
            "inputSchema": input_schema(op),
            "outputSchema": output_schema(op),
        }
        for op in OPERATIONS
    ]


def mcp_discovery(base_url: str, *, keys_required: bool) -> dict[str, Any]:
    """`/.well-known/mcp.json`: where the MCP endpoint is, how to authenticate, its tools."""
    # The version `initialize` agrees to (the SDK's newest handshake), not the newest the SDK
    # knows of: a client starting with the advertised version gets it back.
    from mcp.types.version import LATEST_HANDSHAKE_VERSION

    return {
        "name": NAME_FOR_MODEL,
        "version": __version__,
        "description": DESCRIPTION,
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "transport": {"type": "streamable-http", "url": f"{base_url.rstrip('/')}/mcp"},
        "authentication": {"type": "bearer", "required": keys_required},
        "tools": mcp_tools(),
    }
