"""`datapilot tools add|list|show|remove|call|trust`: imported OpenAPI and MCP tools from the
terminal, acting for one user of the store (`--user`, default: the first user)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from datapilot.commands.assistants import UserOption, _fail, _open

if TYPE_CHECKING:
    from datapilot.tools.sources import SourceInfo

tools_app = typer.Typer(help="Imported tools: OpenAPI/ai-plugin.json documents and MCP servers.")


def _print_source(info: SourceInfo, verbose: bool = False) -> None:
    typer.echo(f"{info.name}  ({info.kind}; {len(info.tools)} tools)  id {info.id}")
    if info.description:
        typer.echo(f"  {info.description}")
    for tool in info.tools:
        flags = []
        if tool.consequential:
            flags.append("trusted" if tool.trusted else "asks first in chats")
        where = f" {tool.method} {tool.path}" if tool.method else ""
        typer.echo(f"  - {tool.qualified}{where}  {' '.join(f'[{f}]' for f in flags)}".rstrip())
        if verbose:
            typer.echo(f"      {tool.description}")
            typer.echo(f"      parameters: {json.dumps(tool.parameters, ensure_ascii=False)}")
    if info.auth.type != "none":
        secret = f"env {info.auth.secret_env}" if info.auth.secret_env else "stored encrypted"
        typer.echo(f"  auth: {info.auth.type} {info.auth.scheme} ({secret})")
    for problem in info.problems:
        typer.echo(f"  problem: {problem}")


@tools_app.command("add")
def add(
    target: Annotated[
        list[str],
        typer.Argument(
            help="A manifest/OpenAPI URL or file, an MCP server URL, or (with --kind mcp) the "
            "command that starts an MCP server over stdio."
        ),
    ],
    name: Annotated[str | None, typer.Option(help="Name it (default: from the document).")] = None,
    kind: Annotated[str, typer.Option(help="openapi or mcp.")] = "openapi",
    auth: Annotated[str, typer.Option(help="none, service_http or user_http.")] = "none",
    scheme: Annotated[str, typer.Option(help="bearer, basic or header.")] = "bearer",
    header: Annotated[
        str, typer.Option(help="The header of the `header` scheme.")
    ] = "Authorization",
    secret_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the secret.")
    ] = None,
    secret: Annotated[
        str | None,
        typer.Option(help="The secret itself (stored encrypted; needs DATAPILOT_SECRET_KEY)."),
    ] = None,
    user: UserOption = None,
) -> None:
    """Import a source; each of its operations (or MCP tools) becomes a tool."""
    from pydantic import ValidationError

    from datapilot.settings import get_settings
    from datapilot.tools.secrets import AuthIn, SecretsError
    from datapilot.tools.sources import SourceError, SourceIn, Sources, read_source

    first = target[0]
    fields: dict[str, Any] = {"kind": kind, "name": name}
    if first.lower().startswith(("http://", "https://")):
        fields["url"] = first
    elif kind == "mcp":
        fields["command"] = target
    elif Path(first).is_file():
        fields["document"] = Path(first).read_text(encoding="utf-8")
    else:
        _fail(f"{first} is neither an http(s) URL nor a file; give the document's address")
    try:
        if auth != "none":
            fields["auth"] = AuthIn.model_validate(
                {
                    "type": auth,
                    "scheme": scheme,
                    "header": header,
                    "secret": secret,
                    "secret_env": secret_env,
                }
            )
        body = SourceIn.model_validate(fields)
    except ValidationError as error:
        _fail(f"invalid source: {error.errors()[0]['msg']}")
    store, tenant = _open(user)
    settings = get_settings()
    try:
        # The server's terminal is the operator's: any environment variable may be named.
        found_name, description, spec, problems = read_source(body, operator=True)
        with store.session(write=True) as session:
            info = Sources(session, tenant.user_id or "", settings).save(
                body, found_name, description, spec, problems, operator=True
            )
    except (SourceError, SecretsError) as error:
        _fail(str(error))
    _print_source(info)


@tools_app.command("list")
def list_sources(user: UserOption = None) -> None:
    """List your imported sources and their tools."""
    from datapilot.settings import get_settings
    from datapilot.tools.sources import Sources

    store, tenant = _open(user)
    with store.session() as session:
        found = Sources(session, tenant.user_id or "", get_settings()).list()
    if not found:
        typer.echo("no imported tools; add one with `datapilot tools add URL|FILE`")
    for info in found:
        _print_source(info)


@tools_app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="A source's name or id.")], user: UserOption = None
) -> None:
    """Show a source: its tools with their parameters, its auth and its problems."""
    from datapilot.settings import get_settings
    from datapilot.tools.sources import SourceNotFound, Sources

    store, tenant = _open(user)
    try:
        with store.session() as session:
            info = Sources(session, tenant.user_id or "", get_settings()).get(name)
    except SourceNotFound as error:
        _fail(str(error))
    _print_source(info, verbose=True)


@tools_app.command("remove")
def remove(
    name: Annotated[str, typer.Argument(help="A source's name or id.")], user: UserOption = None
) -> None:
    """Remove a source and its tools (assistants bound to them lose them)."""
    from datapilot.settings import get_settings
    from datapilot.tools.sources import SourceNotFound, Sources

    store, tenant = _open(user)
    try:
        with store.session(write=True) as session:
            Sources(session, tenant.user_id or "", get_settings()).delete(name)
    except SourceNotFound as error:
        _fail(str(error))
    typer.echo(f"removed {name}")


@tools_app.command("trust")
def trust(
    tool: Annotated[str, typer.Argument(help="PLUGIN.operation or the tool's name.")],
    undo: Annotated[bool, typer.Option("--undo", help="Ask again before each call.")] = False,
    user: UserOption = None,
) -> None:
    """Let a consequential tool run in chats without asking first."""
    from datapilot.settings import get_settings
    from datapilot.tools.sources import SourceNotFound, Sources

    store, tenant = _open(user)
    try:
        with store.session(write=True) as session:
            summary = Sources(session, tenant.user_id or "", get_settings()).trust(tool, not undo)
    except SourceNotFound as error:
        _fail(str(error))
    state = "trusted: runs without asking" if not undo else "asks before each call in chats"
    typer.echo(f"{summary.qualified}: {state}")


@tools_app.command("call")
def call(
    tool: Annotated[str, typer.Argument(help="PLUGIN.operation or the tool's name.")],
    arguments: Annotated[str, typer.Argument(help="Its arguments as a JSON object.")] = "{}",
    token: Annotated[
        str | None, typer.Option(help="Your own token, for tools with user_http auth.")
    ] = None,
    user: UserOption = None,
) -> None:
    """Call an imported tool and print its result (running it here is your confirmation)."""
    from datapilot.net import OutboundError
    from datapilot.settings import get_settings
    from datapilot.tools.imported import ArgumentsError
    from datapilot.tools.mcp_client import MCPError
    from datapilot.tools.secrets import SecretsError
    from datapilot.tools.sources import SourceNotFound, Sources

    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as error:
        _fail(f"the arguments are not valid JSON ({error.msg}); give a JSON object")
    if not isinstance(parsed, dict):
        _fail('the arguments must be a JSON object, e.g. \'{"name": "value"}\'')
    store, tenant = _open(user)
    try:
        with store.session() as session:
            found = Sources(session, tenant.user_id or "", get_settings()).tool(tool, token)
        output = asyncio.run(found.call(parsed))
    except (SourceNotFound, ArgumentsError, SecretsError, OutboundError, MCPError) as error:
        _fail(getattr(error, "message", None) or str(error))
    typer.echo(output.text)
