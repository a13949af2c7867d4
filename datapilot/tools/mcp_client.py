"""MCP servers as tool sources, with the official `mcp` SDK's client: Streamable HTTP (through
the SSRF-safe pinned transport) or stdio (a command the user runs from the terminal).

Adding a server lists its tools once (their input schemas made `$ref`-free); each call opens a
session, checks the arguments with jsonschema first, calls the tool and turns a tabular
structured result into a table. A tool asks for confirmation in chats unless the server marks
it read-only (`readOnlyHint`) or the user trusts it.
"""

from __future__ import annotations

import json
import sys
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from datapilot.net import OutboundPolicy, shown_address
from datapilot.settings import Settings
from datapilot.tools.base import ToolOutput
from datapilot.tools.errors import ArgumentsError, MCPError
from datapilot.tools.imported import check_arguments, limiter, output_of
from datapilot.tools.openapi import tool_name
from datapilot.tools.schema import inline
from datapilot.tools.secrets import AuthStored, auth_headers

if TYPE_CHECKING:
    from datapilot.tools.sources import SourceIn, ToolSummary

MAX_TOOLS = 200


def _server(spec: dict[str, Any], headers: dict[str, str], policy: OutboundPolicy) -> Any:
    """What `mcp.Client` connects to: a pinned Streamable HTTP transport or a stdio command."""
    if spec.get("transport") == "stdio":
        from mcp.client.stdio import StdioServerParameters

        command = list(spec["command"])
        program = sys.executable if command[0] in ("python", "python3") else command[0]
        return StdioServerParameters(command=program, args=command[1:])
    from mcp.client.streamable_http import streamable_http_client

    from datapilot.net.mcp_http import mcp_http_client

    client = mcp_http_client(policy, headers=headers)
    transport: AbstractAsyncContextManager[Any] = streamable_http_client(
        spec["url"], http_client=client
    )
    return _Owning(transport, client)


class _Owning:
    """A transport that closes the HTTP client it was given when it closes."""

    def __init__(self, transport: AbstractAsyncContextManager[Any], client: Any) -> None:
        self._transport = transport
        self._client = client

    async def __aenter__(self) -> Any:
        await self._client.__aenter__()
        return await self._transport.__aenter__()

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._transport.__aexit__(*exc)
        finally:
            await self._client.__aexit__(*exc)


async def list_server_tools(
    spec: dict[str, Any], headers: dict[str, str], policy: OutboundPolicy
) -> list[dict[str, Any]]:
    from mcp import Client

    found: list[dict[str, Any]] = []
    async with Client(_server(spec, headers, policy)) as client:
        cursor: str | None = None
        while len(found) < MAX_TOOLS:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                problems: list[str] = []
                schema = inline(tool.input_schema or {}, tool.input_schema or {}, problems)
                schema.pop("$defs", None)
                schema.pop("title", None)
                read_only = bool(tool.annotations and tool.annotations.read_only_hint)
                found.append(
                    {
                        "name": tool.name,
                        "description": (tool.description or tool.name)[:1000],
                        "parameters": schema,
                        "read_only": read_only,
                    }
                )
            cursor = page.next_cursor
            if not cursor:
                break
    return found


def read_mcp(
    body: SourceIn, policy: OutboundPolicy | None = None, *, operator: bool = False
) -> tuple[str, str, dict[str, Any], list[str]]:
    """Connect to the server of `body` and list its tools: name, description, spec, problems
    (`operator`: for the server's terminal, see `secrets.store_auth`)."""
    import asyncio

    from datapilot.settings import get_settings
    from datapilot.tools.sources import SourceError

    settings = get_settings()
    policy = policy or OutboundPolicy.from_settings(settings)
    if body.command:
        spec: dict[str, Any] = {"transport": "stdio", "command": body.command}
        default = _NAME_OF(body.command[-1])
    elif body.url:
        spec = {"transport": "http", "url": body.url}
        default = "mcp"
    else:
        raise SourceError("an MCP server is added by its URL (or, in the terminal, its command)")
    headers = {}
    if body.auth is not None and body.auth.type == "service_http":
        from datapilot.tools.secrets import store_auth

        stored = store_auth(body.auth, settings, operator=operator)
        headers = auth_headers(stored, settings, None)
    try:
        tools = asyncio.run(list_server_tools(spec, headers, policy))
    except Exception as error:  # the SDK raises many kinds; all mean "cannot use this server"
        raise SourceError(f"cannot list the MCP server's tools: {_reason(error)}") from None
    if not tools:
        raise SourceError("the MCP server offers no tools")
    spec["tools"] = tools
    return body.name or default, "", spec, []


def _NAME_OF(text: str) -> str:
    import re

    stem = re.sub(r"\.\w+$", "", text.rsplit("/", 1)[-1])
    return re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_") or "mcp"


def _reason(error: BaseException) -> str:
    """The innermost message of an error (task groups wrap the real one)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return str(message)[:300]


def shown_server(server: dict[str, Any]) -> str:
    """Where an MCP server is, as answers show it: its URL without credentials or query, or
    the name of the program that runs it (its arguments may carry a key)."""
    if server.get("url"):
        return shown_address(str(server["url"]))
    command = server.get("command") or []
    return _NAME_OF(str(command[0])) if command else ""


def mcp_summaries(source: str, spec: dict[str, Any], trusted: set[str]) -> list[ToolSummary]:
    from datapilot.tools.sources import ToolSummary

    return [
        ToolSummary(
            name=tool_name(source, tool["name"]),
            qualified=f"{source}.{tool['name']}",
            description=tool["description"],
            consequential=not tool.get("read_only"),
            trusted=tool_name(source, tool["name"]) in trusted,
            parameters=tool["parameters"],
        )
        for tool in spec.get("tools", [])
    ]


@dataclass
class MCPTool:
    """One tool of an MCP server."""

    server: dict[str, Any]
    tool: dict[str, Any]
    source_name: str
    settings: Settings
    auth: AuthStored = field(default_factory=AuthStored)
    trusted: bool = False
    user_token: str | None = None
    source: str = "mcp"
    name: str = field(init=False)
    description: str = field(init=False)
    parameters: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.name = tool_name(self.source_name, self.tool["name"])
        self.description = self.tool["description"]
        self.parameters = self.tool["parameters"]

    @property
    def qualified(self) -> str:
        return f"{self.source_name}.{self.tool['name']}"

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        if self.tool.get("read_only") or self.trusted:
            return None
        try:
            check_arguments(self.qualified, self.parameters, arguments)
        except ArgumentsError:
            return None  # it fails before calling, and the model hears which field
        shown = json.dumps(arguments, ensure_ascii=False)[:300]
        return f"{self.qualified} (an MCP tool) will run with {shown}. Run it?"

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        from mcp import Client

        check_arguments(self.qualified, self.parameters, arguments)
        limiter(self.settings).check(self.qualified)
        headers = auth_headers(self.auth, self.settings, self.user_token)
        policy = OutboundPolicy.from_settings(self.settings)
        try:
            async with Client(_server(self.server, headers, policy)) as client:
                result = await client.call_tool(self.tool["name"], arguments)
        except Exception as error:  # connection and protocol failures, said plainly
            raise MCPError(f"{self.qualified}: {_reason(error)}") from None
        text = "\n".join(getattr(block, "text", "") for block in result.content).strip()
        if result.is_error:
            raise MCPError(f"{self.qualified} failed: {text or 'the server gave no reason'}")
        if result.structured_content is not None:
            body = json.dumps(result.structured_content, ensure_ascii=False)
            return output_of(self.qualified, body)
        return ToolOutput(text=text)


def mcp_tools(
    source: str,
    spec: dict[str, Any],
    trusted: set[str],
    auth: AuthStored,
    settings: Settings,
    user_token: str | None,
) -> list[Any]:
    server = {k: v for k, v in spec.items() if k != "tools"}
    return [
        MCPTool(
            server=server,
            tool=tool,
            source_name=source,
            settings=settings,
            auth=auth,
            trusted=tool_name(source, tool["name"]) in trusted,
            user_token=user_token,
        )
        for tool in spec.get("tools", [])
    ]
