"""A user's imported tool sources in the store: add (read the document first), list, show,
remove, trust, and the tools they make.

Reading a URL goes through the SSRF-safe client and happens before the store transaction opens
(`read_source`), so a slow server never holds the store's write lock. Each source's tools also
get rows in `tools` owned by the user, so assistants bind to them like to built-in tools.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from urllib.parse import urljoin

from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from datapilot.net import OutboundPolicy
from datapilot.settings import Settings
from datapilot.store.models import Tool as ToolRow
from datapilot.store.models import ToolSource
from datapilot.tools.base import Tool
from datapilot.tools.errors import SourceError, SourceNotFound
from datapilot.tools.openapi import (
    ImportedDocument,
    OperationSpec,
    SpecImportError,
    import_document,
    is_manifest,
    load_text,
    manifest_spec_url,
)
from datapilot.tools.secrets import AuthIn, AuthStored, store_auth

_DOCUMENT_BYTES, _DOCUMENT_S = 5 * 1024 * 1024, 30.0  # a spec document's limits


class SourceIn(BaseModel):
    """A source to import: a URL (manifest, spec or MCP endpoint) or an inline document."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, max_length=2000)
    document: str | None = Field(default=None, max_length=5_000_000)
    kind: Literal["openapi", "mcp"] = "openapi"
    name: str | None = Field(default=None, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")
    auth: AuthIn | None = None
    command: list[str] | None = Field(
        default=None, description="An MCP server to start over stdio (terminal only)."
    )

    @model_validator(mode="after")
    def _one_origin(self) -> SourceIn:
        given = sum(x is not None for x in (self.url, self.document, self.command))
        if given != 1:
            raise ValueError("give exactly one of url, document (or, for MCP over stdio, command)")
        return self


class ToolSummary(BaseModel):
    name: str
    qualified: str
    description: str
    method: str | None = None
    path: str | None = None
    consequential: bool = False
    trusted: bool = False
    parameters: dict[str, Any] = Field(default_factory=dict)


class AuthInfo(BaseModel):
    """Auth as shown: never the secret, only whether there is one."""

    type: str = "none"
    scheme: str = "bearer"
    header: str = "Authorization"
    secret_env: str | None = None
    has_secret: bool = False


class SourceInfo(BaseModel):
    id: str
    name: str
    kind: str
    url: str | None
    description: str
    tools: list[ToolSummary]
    problems: list[str]
    auth: AuthInfo
    created_at: datetime


def _get(url: str, policy: OutboundPolicy | None) -> str:
    from datapilot.net import OutboundLimits, fetch  # the outbound client (httpx), when used

    limits = OutboundLimits(max_bytes=_DOCUMENT_BYTES, total_s=_DOCUMENT_S)
    response = fetch(url, limits=limits, policy=policy).raise_for_status()
    return response.text


def read_openapi(body: SourceIn, policy: OutboundPolicy | None = None) -> ImportedDocument:
    """Read a manifest or spec (fetching what it points to) into operations and problems."""
    problems: list[str] = []
    text = body.document if body.document is not None else _get(body.url or "", policy)
    label = body.url.rsplit("/", 1)[-1] if body.url else "document"
    data = load_text(text, label or "document", problems)
    manifest = None
    spec_url = body.url
    if is_manifest(data):
        manifest = data
        declared = (manifest.get("auth") or {}).get("type", "none")
        if declared not in ("none", None) and (body.auth is None or body.auth.type == "none"):
            problems.append(
                f"manifest: the plugin asks for {declared} auth, and none was given; add it again "
                "with auth (a secret, or the name of an environment variable holding it)"
            )
        spec_url = urljoin(body.url or "", manifest_spec_url(manifest, problems))
        spec_label = spec_url.rsplit("/", 1)[-1] or "spec"
        data = load_text(_get(spec_url, policy), spec_label, problems)
    return import_document(
        data,
        fallback_name=body.name or "plugin",
        spec_url=spec_url,
        manifest=manifest,
        problems=problems,
    )


class Sources:
    """One user's tool sources in one session."""

    def __init__(self, session: Session, owner_id: str, settings: Settings) -> None:
        self.session = session
        self.owner_id = owner_id
        self.settings = settings

    def _rows(self) -> list[ToolSource]:
        query = select(ToolSource).where(ToolSource.owner_id == self.owner_id)
        return list(self.session.scalars(query.order_by(ToolSource.created_at)))

    def get_row(self, ref: str) -> ToolSource:
        for row in self._rows():
            if ref in (row.id, row.name) or row.name.lower() == ref.lower():
                return row
        raise SourceNotFound(f"no tool source {ref!r}; `datapilot tools list` shows yours")

    def save(
        self,
        body: SourceIn,
        name: str,
        description: str,
        spec: dict[str, Any],
        problems: list[str],
        *,
        operator: bool = False,
    ) -> SourceInfo:
        """Store a source read by `read_source`; adding one of the same name again updates it
        (its trusted tools and the assistants bound to its tools stay). `operator`: added in the
        server's terminal (it may name any environment variable as its secret)."""
        auth = store_auth(body.auth or AuthIn(), self.settings, operator=operator)
        stored_auth = auth.model_dump() | {"secret_token": auth.secret_token}
        try:
            row = self.get_row(name)
        except SourceNotFound:
            row = ToolSource(owner_id=self.owner_id, name=name, kind=body.kind, trusted=[])
            self.session.add(row)
        row.kind, row.url, row.description = body.kind, body.url, description
        row.spec, row.auth, row.problems = spec, stored_auth, problems
        self.session.flush()
        builtins = set(self.session.scalars(select(ToolRow.name).where(ToolRow.owner_id.is_(None))))
        owned = {
            tool.name: tool
            for tool in self.session.scalars(
                select(ToolRow).where(ToolRow.owner_id == self.owner_id)
            )
        }
        made = summaries(row)
        for tool in made:
            if tool.name in builtins:
                raise SourceError(f"{tool.name} is the name of a built-in tool; rename the source")
            existing = owned.get(tool.name)
            if existing is not None and existing.config.get("source_id") != row.id:
                raise SourceError(
                    f"{tool.name} is a tool of your source {existing.config.get('source_name')!r} "
                    "already; give this source another name"
                )
            if existing is None:
                self.session.add(
                    ToolRow(
                        owner_id=self.owner_id,
                        name=tool.name,
                        source=row.kind,
                        description=tool.description,
                        config={"source_id": row.id, "source_name": row.name},
                    )
                )
            else:
                existing.description, existing.source = tool.description, row.kind
        names = {tool.name for tool in made}
        for gone in [t for t in owned.values() if t.config.get("source_id") == row.id]:
            if gone.name not in names:
                self.session.delete(gone)
        row.trusted = [n for n in row.trusted if n in names]
        self.session.flush()
        return info(row)

    def _drop_tool_rows(self, row: ToolSource) -> None:
        self.session.execute(
            delete(ToolRow).where(
                ToolRow.owner_id == self.owner_id,
                ToolRow.name.in_([tool.name for tool in summaries(row)]),
            )
        )

    def list(self) -> list[SourceInfo]:
        return [info(row) for row in self._rows()]

    def get(self, ref: str) -> SourceInfo:
        return info(self.get_row(ref))

    def delete(self, ref: str) -> None:
        row = self.get_row(ref)
        self._drop_tool_rows(row)
        self.session.delete(row)
        self.session.flush()

    def find(self, ref: str) -> tuple[ToolSource, ToolSummary]:
        """A tool by its name or `PLUGIN.operation` (case-insensitive)."""
        for row in self._rows():
            for tool in summaries(row):
                if ref.lower() in (tool.name.lower(), tool.qualified.lower()):
                    return row, tool
        raise SourceNotFound(f"no imported tool {ref!r}; `datapilot tools list` shows them")

    def trust(self, ref: str, trusted: bool = True) -> ToolSummary:
        row, tool = self.find(ref)
        names = [n for n in row.trusted if n != tool.name] + ([tool.name] if trusted else [])
        row.trusted = names
        self.session.flush()
        return tool.model_copy(update={"trusted": trusted})

    def tools(self, user_token: str | None = None) -> dict[str, Tool]:
        """Every imported tool of this user, ready to call."""
        found: dict[str, Tool] = {}
        for row in self._rows():
            for tool in make_tools(row, self.settings, user_token):
                found[tool.name] = tool
        return found

    def tool(self, ref: str, user_token: str | None = None) -> Tool:
        row, summary = self.find(ref)
        return next(t for t in make_tools(row, self.settings, user_token) if t.name == summary.name)


def summaries(row: ToolSource) -> list[ToolSummary]:
    trusted = set(row.trusted)
    if row.kind == "mcp":
        from datapilot.tools.mcp_client import mcp_summaries

        return mcp_summaries(row.name, row.spec, trusted)
    return [
        ToolSummary(
            name=op.name,
            qualified=op.qualified,
            description=op.description,
            method=op.method,
            path=op.path,
            consequential=op.consequential,
            trusted=op.name in trusted,
            parameters=op.parameters,
        )
        for op in (OperationSpec.model_validate(o) for o in row.spec.get("operations", []))
    ]


def make_tools(row: ToolSource, settings: Settings, user_token: str | None) -> list[Tool]:
    auth = AuthStored.model_validate(row.auth)
    if row.kind == "mcp":
        from datapilot.tools.mcp_client import mcp_tools

        return mcp_tools(row.name, row.spec, set(row.trusted), auth, settings, user_token)
    from datapilot.tools.imported import OpenAPITool  # pandas, jsonschema: when tools are bound

    return [
        OpenAPITool(
            spec=op,
            settings=settings,
            auth=auth,
            trusted=op.name in row.trusted,
            user_token=user_token,
        )
        for op in (OperationSpec.model_validate(o) for o in row.spec.get("operations", []))
    ]


def info(row: ToolSource) -> SourceInfo:
    from datapilot.net import safe_url

    auth = AuthStored.model_validate(row.auth)
    return SourceInfo(
        id=row.id,
        name=row.name,
        kind=row.kind,
        url=safe_url(row.url) if row.url else None,  # a key in its query is never shown
        description=row.description,
        tools=summaries(row),
        problems=list(row.problems),
        auth=AuthInfo(
            type=auth.type,
            scheme=auth.scheme,
            header=auth.header,
            secret_env=auth.secret_env,
            has_secret=auth.has_secret,
        ),
        created_at=row.created_at,
    )


def read_source(
    body: SourceIn, policy: OutboundPolicy | None = None, *, operator: bool = False
) -> tuple[str, str, dict[str, Any], list[str]]:
    """Read a source's document or server (network, no store): name, description, spec, problems.
    `operator`: read for the server's terminal (its secret may name any environment variable).

    Raises `SourceError` with what to fix.
    """
    from datapilot.net import OutboundError
    from datapilot.tools.secrets import SecretsError

    try:
        if body.kind == "mcp":
            from datapilot.tools.mcp_client import read_mcp

            return read_mcp(body, policy, operator=operator)
        imported = read_openapi(body, policy)
    # A secret named by an unset variable is the caller's to fix, like an unreachable URL.
    except (SpecImportError, OutboundError, SecretsError) as error:
        raise SourceError(str(error)) from error
    name = body.name or imported.name
    spec = {"operations": [op.model_dump() for op in _renamed(imported, name)]}
    return name, imported.description, spec, imported.problems


def _renamed(imported: ImportedDocument, name: str) -> list[OperationSpec]:
    if name == imported.name:
        return imported.operations
    from datapilot.tools.openapi import tool_name

    return [
        op.model_copy(
            update={"name": tool_name(name, op.operation), "qualified": f"{name}.{op.operation}"}
        )
        for op in imported.operations
    ]
