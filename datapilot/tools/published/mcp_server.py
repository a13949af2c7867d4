"""The published operations as an MCP server (the official SDK's low-level `Server`).

Every operation is a tool with its input schema and an `outputSchema`; a call answers with the
output as `structuredContent`, the same data as text for hosts that read only `content` (tables
in Markdown at full precision, see `text`), and each chart as PNG image content. `ask` reports
its stages as progress notifications when the caller sends a progress token. Bad arguments and
refusals come back as tool errors (`isError`) saying what to change, never as protocol failures.
The catalog is a resource, so are the caller's library documents (when the front end passes a
`Shelf`), and a few starting questions are prompts. The same server runs over
stdio (`datapilot mcp`) and Streamable HTTP (mounted at `/mcp` by the HTTP server).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from datapilot import __version__
from datapilot.tools.published.charts import png_bytes
from datapilot.tools.published.faces import DESCRIPTION_FOR_HUMAN, NAME_FOR_MODEL, mcp_tools
from datapilot.tools.published.invoke import Offload, in_thread, invoke
from datapilot.tools.published.operations import (
    AskerTools,
    OperationContext,
    OperationError,
    operation,
)
from datapilot.tools.published.progress import ProgressReporter, progress_reporter
from datapilot.tools.published.resources import (
    CATALOG,
    PROMPTS,
    Shelf,
    catalog_csv,
    prompt_result,
)

log = logging.getLogger(__name__)

# The caller's tools, given the caller (the HTTP request; None over stdio).
CallerTools = Callable[[Any], Awaitable[AskerTools]]
# The caller's user id, whose own data imports the answers read ("" for none).
CallerOwner = Callable[[Any], Awaitable[str]]

INSTRUCTIONS = (
    "Datapilot answers questions about market and economic data. Use `ask` for a question in "
    "words (English or Chinese); `search_entities` to find ids; `get_prices` and `get_series` "
    "for raw data; `call_interface` for one interface of the library."
)


async def _callers(
    context: OperationContext, owner_of: CallerOwner | None, request: Any
) -> OperationContext:
    """`context` reading the caller's own data imports too, when the caller is known."""
    if owner_of is None:
        return context
    return dataclasses.replace(context, data_owner=(await owner_of(request)) or None)


def build_server(
    context: OperationContext,
    offload: Offload = in_thread,
    shelf: Shelf | None = None,
    tools_of: CallerTools | None = None,
    owner_of: CallerOwner | None = None,
) -> Server[Any]:
    """An MCP server whose tools are the published operations, run with `context`; `shelf`
    adds the caller's documents to the resources, `tools_of` the caller's own tools to what
    `ask` tries, `owner_of` the caller's own data imports to what every tool reads (each call
    gets its caller's: never another's)."""
    tools = [
        types.Tool(
            name=tool["name"],
            title=tool["title"],
            description=tool["description"],
            input_schema=tool["inputSchema"],
            output_schema=tool["outputSchema"],
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
        for tool in mcp_tools()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        token = progress_reporter.set(_reporter(ctx))
        try:
            asked = await _callers(context, owner_of, ctx.request)
            if tools_of is not None:
                asked = dataclasses.replace(asked, asker_tools=await tools_of(ctx.request))
            return await call(params.name, params.arguments, asked, offload)
        finally:
            progress_reporter.reset(token)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        documents = [] if shelf is None else await shelf.items(ctx.request)
        resources = [
            types.Resource(
                uri=item.uri,
                name=item.name,
                description=item.description,
                mime_type=item.mime_type,
            )
            for item in documents
        ]
        return types.ListResourcesResult(resources=[CATALOG, *resources])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == CATALOG.uri:
            caller = await _callers(context, owner_of, ctx.request)
            text = await asyncio.to_thread(catalog_csv, caller)
            csv_text = types.TextResourceContents(uri=uri, mime_type="text/csv", text=text)
            return types.ReadResourceResult(contents=[csv_text])
        document = None if shelf is None else await shelf.read(ctx.request, uri)
        if document is None:
            message = f"There is no resource {uri} for you; resources/list names yours."
            raise MCPError(INVALID_PARAMS, message)
        plain = types.TextResourceContents(uri=uri, mime_type="text/plain", text=document)
        return types.ReadResourceResult(contents=[plain])

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[prompt for prompt, _ in PROMPTS.values()])

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return prompt_result(params.name, params.arguments or {})

    return Server(
        NAME_FOR_MODEL,
        version=__version__,
        description=DESCRIPTION_FOR_HUMAN,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _reporter(ctx: ServerRequestContext[Any]) -> ProgressReporter:
    """Progress of this request as notifications, sent from whichever thread runs the work (a
    no-op in the SDK when the caller sent no progress token)."""
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()

    def report(progress: float, total: float | None, message: str) -> None:
        notify = ctx.session.report_progress(progress, total, message)
        if _running_loop() is loop:
            task = loop.create_task(notify)
            pending.add(task)  # held until sent, so it is not collected half-way
            task.add_done_callback(pending.discard)
        else:  # the work runs on a worker thread's own loop
            asyncio.run_coroutine_threadsafe(notify, loop)

    return report


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def call(
    name: str, arguments: Any, context: OperationContext, offload: Offload = in_thread
) -> types.CallToolResult:
    """One tool call as an MCP result (errors included: a model can read them and retry)."""
    try:
        op = operation(name)
    except KeyError:
        names = ", ".join(tool["name"] for tool in mcp_tools())
        return _error(f"There is no tool {name!r}; the tools are {names}.")
    try:
        outcome = await invoke(op, arguments, context, offload)
    except OperationError as error:
        return _error(error.message)
    except Exception as error:  # a failure is the caller's information, not a crash
        log.exception("the MCP tool %s failed", name)
        return _error(f"{name} failed: {type(error).__name__}: {error}")
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=outcome.text or name)]
    for chart in outcome.charts:
        try:
            png = await asyncio.to_thread(png_bytes, chart)
        except Exception as error:
            log.exception("drawing %r failed", chart.title)
            from datapilot.render.charts import undrawn

            content.append(types.TextContent(type="text", text=undrawn(chart, error)))
            continue
        data = base64.b64encode(png).decode("ascii")
        content.append(types.ImageContent(type="image", data=data, mime_type="image/png"))
    structured = outcome.result.model_dump(mode="json")
    return types.CallToolResult(content=content, structured_content=structured)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


async def serve_stdio(context: OperationContext, shelf: Shelf | None = None) -> None:
    """Serve over stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(context, shelf=shelf)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
