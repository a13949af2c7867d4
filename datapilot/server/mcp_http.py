"""The MCP server over Streamable HTTP at `/mcp`, inside the FastAPI app.

The key middleware has already run (loopback-only without keys; a valid key once keys exist);
here the key must also carry the chat scope. The Host and Origin checks against DNS rebinding
and cross-site pages are the app's (`browser_guard`), as on every route.
Requests are stateless (no session to pin to one worker process), so
`datapilot serve --workers N` and replicas behind a load balancer both work.

The SDK's session manager needs a task group for its lifetime. It is started on the first
request of each event loop, so the endpoint works whether or not the server runs the app's
lifespan; it ends with its loop.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from datapilot.server.auth import bound_key_message, missing_scope_message, refuse
from datapilot.settings import Settings
from datapilot.store import Principal, Store
from datapilot.tools.offline import user_tools
from datapilot.tools.published.invoke import Offload
from datapilot.tools.published.operations import AskerTools, OperationContext

if TYPE_CHECKING:  # the MCP SDK (0.5-1 s to import) loads with the endpoint's first request
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

PATH = "/mcp"

Scope = MutableMapping[str, Any]


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The SDK's own Host and Origin checks stay off: the app's `BrowserGuard` makes the same
    ones, the same way, before any route (this one included) runs."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


class McpEndpoint:
    """A pure ASGI endpoint: the scope check, then the SDK's Streamable HTTP transport."""

    def __init__(self, server: Server[Any], security: TransportSecuritySettings) -> None:
        self.server = server
        self.security = security
        self._managers: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[StreamableHTTPSessionManager, asyncio.Event]
        ] = weakref.WeakKeyDictionary()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        principal: Principal | None = scope.get("state", {}).get("principal")
        if principal is not None and principal.assistant_id is not None:
            # Not an API route (no app-wide dependency runs): the same rule, said the same way.
            message = bound_key_message(principal.assistant_id, PATH)
            await refuse(scope, send, 403, "bound_key", message)
            return
        if principal is not None and not principal.allows("chat"):
            message = missing_scope_message(principal, "chat", PATH)
            await refuse(scope, send, 403, "missing_scope", message)
            return
        manager = await self._manager()
        await manager.handle_request(scope, receive, send)

    async def _manager(self) -> StreamableHTTPSessionManager:
        loop = asyncio.get_running_loop()
        entry = self._managers.get(loop)
        if entry is None:
            from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

            manager = StreamableHTTPSessionManager(
                app=self.server,
                # Each POST is answered with an event stream (as the spec lets a server do),
                # so that `ask`'s progress notifications reach the caller before its result.
                json_response=False,
                stateless=True,
                security_settings=self.security,
            )
            started = asyncio.Event()
            entry = self._managers[loop] = (manager, started)
            task = loop.create_task(_run(manager, started), name="datapilot-mcp")
            self._tasks.add(task)  # a strong reference, so the task is not collected
            task.add_done_callback(self._tasks.discard)
        await entry[1].wait()
        return entry[0]


class Deferred:
    """An ASGI endpoint built at its first request (off the event loop), so that starting the
    server imports nothing only this endpoint needs."""

    def __init__(self, build: Callable[[], McpEndpoint]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._endpoint: McpEndpoint | None = None

    def endpoint(self) -> McpEndpoint:
        """The endpoint, built now if it was not (blocking; thread-safe)."""
        with self._lock:
            if self._endpoint is None:
                self._endpoint = self._build()
            return self._endpoint

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        endpoint = self._endpoint
        if endpoint is None:
            endpoint = await asyncio.to_thread(self.endpoint)
        await endpoint(scope, receive, send)


async def _run(manager: StreamableHTTPSessionManager, started: asyncio.Event) -> None:
    async with manager.run():
        started.set()
        await asyncio.Event().wait()  # until the loop ends and cancels it


def mount(app: FastAPI, context: OperationContext, offload: Offload) -> None:
    """Serve the published operations over MCP at `/mcp`, with the caller's knowledge library
    documents as resources and the caller's own tools tried by `ask` (the key's owner, or the
    local user of a keyless server)."""
    from datapilot.server.deps import tenant_of

    store: Store = app.state.store

    async def user_of(request: Any) -> str:
        # Every MCP caller is a user (a key's owner, or the local one); "" owns nothing.
        return (await tenant_of(request)).user_id or ""

    async def tools_of(request: Any) -> AskerTools:
        return functools.partial(user_tools, store, context.settings, await user_of(request))

    def build() -> McpEndpoint:
        from datapilot.tools.published.mcp_server import build_server
        from datapilot.tools.published.shelf import LibraryShelf

        shelf = LibraryShelf(store, context.settings, user_of)
        server = build_server(context, offload, shelf, tools_of, user_of)
        return McpEndpoint(server, transport_security(context.settings))

    # A Starlette route whose endpoint is an ASGI app (not a function) passes requests as is.
    app.router.add_route(
        PATH,
        Deferred(build),  # type: ignore[arg-type]
        methods=["GET", "POST", "DELETE"],
        include_in_schema=False,
    )
