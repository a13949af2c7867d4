"""The built-in routes, registered through the `register_routes` hook: health, the OpenBB
Workspace agent, the native API and the platform (`routes/`), the OpenAI-compatible face, the
published plugin and the web page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from fastapi import FastAPI


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_routes(app: FastAPI) -> None:
    from datapilot.server import web
    from datapilot.server.auth import AUTH_RESPONSES
    from datapilot.server.deps import CHAT
    from datapilot.server.openbb import assistants as openbb_assistants
    from datapilot.server.openbb import routes as openbb
    from datapilot.server.routes import (
        ask,
        assistants,
        chats,
        data_imports,
        files,
        guests,
        health,
        interpreter,
        keys,
        libraries,
        memories,
        messages,
        openai,
        publish,
        scene_prompts,
        tool_sources,
        tools,
        usage,
        watch_inbox,
        watches,
    )

    # Asking and querying need a key with the chat scope once keys exist (see `auth`); the
    # public descriptors of the OpenBB router pass the door before any key is read.
    app.include_router(health.router)
    app.include_router(openbb.router, dependencies=CHAT, responses=AUTH_RESPONSES)
    # `/api/v1/ask` and `/v1/query` name no assistant: a key bound to one is refused there,
    # as on every route outside `auth.BOUND_KEY_ROUTES` (the app-wide `confine_bound_key`).
    app.include_router(ask.router, dependencies=CHAT, responses=AUTH_RESPONSES)
    # The platform's routes name their own scopes (chat to use, manage to change).
    platform = (tools, assistants, chats, messages, files, scene_prompts, usage, keys, data_imports)
    # The inbox before the watches' own routes: `/watches/inbox` is not a watch id.
    for module in (*platform, tool_sources, memories, libraries, watch_inbox, watches):
        app.include_router(module.router, responses=AUTH_RESPONSES)
    app.include_router(guests.router)  # no key: a guest id of a public assistant's chat
    app.include_router(openai.router, dependencies=CHAT, responses=openai.AUTH_ERRORS)
    app.include_router(openbb_assistants.router, dependencies=CHAT, responses=AUTH_RESPONSES)
    # Code runs after an explicit `run` command; unasked only with the `run` scope (see there).
    app.include_router(interpreter.router, dependencies=CHAT, responses=AUTH_RESPONSES)
    app.include_router(interpreter.ws_router)  # the same over a WebSocket
    publish.register(app)  # the plugin manifest and spec, /run, /mcp (scopes of their own)
    web.mount(app)  # the page at `/`, its files and `/api/v1/features`
