"""Loopback API servers for the import tests: the Qianfan sample plugins (served from
tests/fixtures/plugins with PORT replaced by the real port), a research API with `$ref` cycles,
`allOf`, path/query/body parameters and bearer auth, and a Swagger 2 document of the same API."""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from support import paths

PLUGINS = paths.FIXTURES / "plugins"
TOKEN = "research-token-123"
PRICES = [
    {"date": "2022-12-01", "close": 101.5, "volume": 1200},
    {"date": "2022-12-02", "close": 103.0, "volume": 900},
    {"date": "2022-12-05", "close": 99.25, "volume": 1500},
    {"date": "2022-12-06", "close": 100.75, "volume": 1100},
]

RESEARCH_SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Research API", "version": "1"},
    "servers": [{"url": "/api"}],
    "paths": {
        "/prices/{symbol}": {
            "get": {
                "operationId": "getPrices",
                "summary": "Daily closes of one symbol",
                "parameters": [
                    {
                        "name": "symbol",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                    {"$ref": "#/components/parameters/Desk"},
                ],
                "responses": {"200": {"description": "rows"}},
            }
        },
        "/notes": {
            "post": {
                "summary": "File a research note",
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/NewNote"}}
                    }
                },
                "responses": {"200": {"description": "stored"}},
            }
        },
        "/notes/{note_id}": {
            "delete": {
                "operationId": "deleteNote",
                "x-openai-isConsequential": False,
                "parameters": [
                    {
                        "name": "note_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "responses": {"204": {"description": "gone"}},
            }
        },
    },
    "components": {
        "parameters": {
            "Desk": {"name": "X-Desk", "in": "header", "schema": {"type": "string"}},
        },
        "schemas": {
            "Base": {
                "type": "object",
                "properties": {"title": {"type": "string"}},
                "required": ["title"],
            },
            "Topic": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "parent": {"$ref": "#/components/schemas/Topic"},  # a cycle
                },
            },
            "NewNote": {
                "allOf": [
                    {"$ref": "#/components/schemas/Base"},
                    {
                        "type": "object",
                        "properties": {
                            "body": {"type": "string"},
                            "topic": {"$ref": "#/components/schemas/Topic"},
                            "rating": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
                        },
                        "required": ["body"],
                    },
                ]
            },
        },
    },
}


def swagger_spec() -> dict[str, Any]:
    """The price operation as a Swagger 2 document (host filled in per request)."""
    return {
        "swagger": "2.0",
        "info": {"title": "Research API v2", "version": "1"},
        "basePath": "/api",
        "schemes": ["http"],
        "paths": {
            "/prices/{symbol}": {
                "get": {
                    "operationId": "getPrices",
                    "parameters": [
                        {"name": "symbol", "in": "path", "required": True, "type": "string"},
                        {"name": "limit", "in": "query", "type": "integer"},
                    ],
                    "responses": {"200": {"description": "rows"}},
                }
            },
            "/notes": {
                "post": {
                    "operationId": "addNote",
                    "parameters": [
                        {
                            "name": "note",
                            "in": "body",
                            "required": True,
                            "schema": {"$ref": "#/definitions/Note"},
                        }
                    ],
                    "responses": {"200": {"description": "stored"}},
                }
            },
        },
        "definitions": {
            "Note": {
                "type": "object",
                "required": ["title"],
                "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            }
        },
    }


def plugin_app() -> FastAPI:
    app = FastAPI()
    app.state.todos = []
    app.state.notes = []
    app.state.seen = []  # (method, path, headers, body) of every API call

    @app.get("/plugins/{folder}/{name}")
    def plugin_file(folder: str, name: str, request: Request) -> PlainTextResponse:
        path = PLUGINS / folder / name
        if not path.is_file() or PLUGINS not in path.resolve().parents:
            raise HTTPException(404)
        text = path.read_text(encoding="utf-8").replace("PORT", str(request.url.port))
        # The manifests point at /openapi.yaml; here each folder has its own.
        text = text.replace("/openapi.yaml", f"/plugins/{folder}/openapi.yaml")
        kind = "application/json" if name.endswith(".json") else "application/yaml"
        return PlainTextResponse(text, media_type=kind)

    @app.post("/run")
    async def run(request: Request) -> JSONResponse:
        body = await request.json()
        app.state.seen.append(("POST", "/run", dict(request.headers), body))
        if "example_param" in body:  # the long-text plugin
            return JSONResponse(f"摘要: {body['example_param']}")
        action = body.get("操作")
        if action == "插入":
            app.state.todos.append(body.get("事项", ""))
        elif action == "删除" and app.state.todos:
            app.state.todos.pop(int(body.get("顺序", "1")) - 1)
        items = "; ".join(f"{i + 1}. {t}" for i, t in enumerate(app.state.todos)) or "无待办事项"
        return JSONResponse({"result": items})

    @app.get("/research/openapi.json")
    def research_spec() -> dict[str, Any]:
        return RESEARCH_SPEC

    @app.get("/research/ai-plugin.json")
    def research_manifest() -> dict[str, Any]:
        return {
            "schema_version": "v1",
            "name_for_human": "Research",
            "name_for_model": "Research",
            "description": "Our desk's research API.",
            "auth": {"type": "service_http", "authorization_type": "bearer"},
            "api": {"type": "openapi", "url": "/research/openapi.json"},
        }

    @app.get("/research/swagger.json")
    def research_swagger(request: Request) -> dict[str, Any]:
        spec = copy.deepcopy(swagger_spec())
        spec["host"] = f"127.0.0.1:{request.url.port}"
        return spec

    def authorised(request: Request) -> None:
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            raise HTTPException(401, "missing or wrong bearer token")

    @app.get("/api/prices/{symbol}")
    def prices(symbol: str, request: Request, limit: int | None = None) -> dict[str, Any]:
        authorised(request)
        app.state.seen.append(("GET", f"/api/prices/{symbol}", dict(request.headers), None))
        rows = PRICES[:limit] if limit else PRICES
        return {"symbol": symbol, "rows": rows}

    @app.post("/api/notes")
    async def notes(request: Request) -> dict[str, Any]:
        authorised(request)
        body = await request.json()
        app.state.seen.append(("POST", "/api/notes", dict(request.headers), body))
        app.state.notes.append(body)
        return {"stored": len(app.state.notes)}

    @app.delete("/api/notes/{note_id}")
    def delete_note(note_id: int, request: Request) -> dict[str, Any]:
        authorised(request)
        return {"deleted": note_id}

    return app
