"""The API's documents: how a server-sent event stream is documented, the bearer scheme the
whole API's OpenAPI document declares, and the `/docs` page (Swagger UI from the installed
`fastapi-offline` package, so it works offline; no CDN)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

DOCS_PATH = "/docs"
BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "An API key (`datapilot keys create`); without keys the server answers "
    "its own machine only.",
}


# Never inside another site's frame: its "Try it out" buttons send the key the page keeps, so a
# framing page could make a user click them unseen (clickjacking).
DOCS_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
}


def sse_event_schema(data_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of one server-sent event (`event`, `data`, `id`, `retry`), as OpenAPI 3.1 reads
    `schema` under `text/event-stream`; `data_schema` describes the JSON text in `data`."""
    data: dict[str, Any] = {"type": "string"}
    if data_schema is not None:
        data |= {"contentMediaType": "application/json", "contentSchema": data_schema}
    return {
        "type": "object",
        "properties": {
            "event": {"type": "string"},
            "data": data,
            "id": {"type": "string"},
            "retry": {"type": "integer"},
        },
        "required": ["data"],
    }


def declare_bearer(app: FastAPI, public: Any) -> None:
    """The app's OpenAPI document declares bearer keys for every operation, and none for those
    `public(path)` lets in without one."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            schema.setdefault("components", {}).setdefault("securitySchemes", {})["bearer"] = BEARER
            schema["security"] = [{"bearer": []}]
            for path, operations in schema.get("paths", {}).items():
                if public(path):
                    for operation in operations.values():
                        operation["security"] = []
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def mount_docs(app: FastAPI) -> None:
    """`/docs`: Swagger UI over `app.openapi_url`, its files served by this server under a path
    naming their version (cached for a year). The page and the document need no key; the
    Authorize button takes one for the calls."""
    import fastapi_offline
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from starlette.requests import Request

    from datapilot.server.static_files import IMMUTABLE, CompressedStaticFiles

    files = Path(fastapi_offline.__file__).parent / "static"
    assets = f"{DOCS_PATH}/assets/{importlib.metadata.version('fastapi-offline')}"
    app.mount(
        assets,
        CompressedStaticFiles(directory=files, cache_control=IMMUTABLE),
        name="docs-assets",
    )
    html = get_swagger_ui_html(
        openapi_url=app.openapi_url or "/api/openapi.json",
        title=f"{app.title} API",
        swagger_js_url=f"{assets}/swagger-ui-bundle.js",
        swagger_css_url=f"{assets}/swagger-ui.css",
        swagger_favicon_url="/assets/logo.png",
        oauth2_redirect_url=None,
        # The key stays through reloads of the page (the browser's storage, this origin only).
        swagger_ui_parameters={"persistAuthorization": True, "displayRequestDuration": True},
    ).body

    async def docs_page(request: Request) -> HTMLResponse:
        return HTMLResponse(html, headers=DOCS_HEADERS)

    # A plain route (like FastAPI's own /docs): a page, not an operation of the API.
    app.router.add_route(DOCS_PATH, docs_page, methods=["GET"], include_in_schema=False)
