"""The built-in routes, registered through the `register_routes` hook: health, the OpenBB
Workspace agent and the native API."""

from __future__ import annotations

from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from fastapi import FastAPI


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_routes(app: FastAPI) -> None:
    from fastapi import Depends

    from datapilot.server import publish, web
    from datapilot.server.auth import AUTH_RESPONSES, require_scope
    from datapilot.server.openbb import assistants as openbb_assistants
    from datapilot.server.openbb import routes as openbb
    from datapilot.server.routes import (
        ask,
        guests,
        health,
        interpreter,
        libraries,
        memories,
        openai,
        platform,
        tool_sources,
    )

    # Asking and querying need a key with the chat scope once keys exist (see `auth`); the
    # public descriptors of the OpenBB router pass the door before any key is read.
    chat = [Depends(require_scope("chat"))]
    app.include_router(health.router)
    app.include_router(openbb.router, dependencies=chat, responses=AUTH_RESPONSES)
    # `/api/v1/ask` and `/v1/query` name no assistant: a key bound to one is refused there,
    # as on every route outside `auth.BOUND_KEY_ROUTES` (the app-wide `confine_bound_key`).
    app.include_router(ask.router, dependencies=chat, responses=AUTH_RESPONSES)
    # The platform's routes name their own scopes (chat to use, manage to change).
    app.include_router(platform.router, responses=AUTH_RESPONSES)
    app.include_router(tool_sources.router, responses=AUTH_RESPONSES)
    app.include_router(memories.router, responses=AUTH_RESPONSES)
    app.include_router(libraries.router, responses=AUTH_RESPONSES)
    app.include_router(guests.router)  # no key: a guest id of a public assistant's chat
    app.include_router(openai.router, dependencies=chat, responses=AUTH_RESPONSES)
    app.include_router(openbb_assistants.router, dependencies=chat, responses=AUTH_RESPONSES)
    # Code runs after an explicit `run` command; unasked only with the `run` scope (see there).
    app.include_router(interpreter.router, dependencies=chat, responses=AUTH_RESPONSES)
    app.include_router(interpreter.ws_router)  # the same over a WebSocket
    publish.register(app)  # the plugin manifest and spec, /run, /mcp (scopes of their own)
    web.mount(app)  # the page at `/`, its files and `/api/v1/features`
