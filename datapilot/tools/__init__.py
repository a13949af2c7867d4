"""Tools an assistant can call: one `Tool` protocol (`base`), the data workflow and the
interfaces (`workflow`), every source from the `register_tools` hook (`available_tools`), and
their rows in the store's tools table (`record_tools`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from datapilot.plugins import plugin_manager
from datapilot.plugins import tools as tool_factories

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from datapilot.engine.context import RequestContext
    from datapilot.tools.base import (
        Tool,
        ToolOutput,
        ToolResult,
        call_arguments,
        cap_text,
        confirmation,
        function_schema,
        run_tool,
    )

__all__ = [
    "Tool",
    "ToolOutput",
    "ToolResult",
    "available_tools",
    "call_arguments",
    "cap_text",
    "confirmation",
    "function_schema",
    "record_tools",
    "run_tool",
]

BUILTIN_PLUGIN = "datapilot.tools"
_FROM_BASE = frozenset(__all__) - {"available_tools", "record_tools"}


def __getattr__(name: str) -> object:
    # The protocol's names load on first use: the plugin scan of every command imports this
    # package, and `base` brings pydantic, asyncio and the answer models (~90 ms).
    if name in _FROM_BASE:
        from datapilot.tools import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _ensure_builtins() -> None:
    # The built-in source is an entry point like any plugin's; an install whose metadata
    # predates it would otherwise have no tools at all.
    manager = plugin_manager()
    if manager.get_plugin(BUILTIN_PLUGIN) is None and not manager.is_blocked(BUILTIN_PLUGIN):
        from datapilot.tools import plugin

        if not manager.is_registered(plugin):
            manager.register(plugin, name=BUILTIN_PLUGIN)


def available_tools(
    request: RequestContext, names: Collection[str] | None = None
) -> dict[str, Tool]:
    """Every tool of every registered source for this request, by tool name. With `names`, the
    tools of those names that exist (possibly with others): only the sources that made them
    last time for the same interface registry are called when they make them all again, so a
    chat message bound to the data workflow does not build a tool of every interface."""
    _ensure_builtins()
    factories = tool_factories()
    seen = _made.setdefault(request.registry, {})
    if names is not None:
        likely = {s: f for s, f in factories.items() if seen.get(s, frozenset()) & set(names)}
        if likely:
            found = _build(request, likely, seen)
            if all(name in found for name in names):
                return found
    return _build(request, factories, seen)


# Per interface registry, the tool names each source made (a hint: what it makes is always
# built anew for the request). Weak keys: a registry made for one request goes with it.
_made: WeakKeyDictionary[Any, dict[str, frozenset[str]]] = WeakKeyDictionary()


def _build(
    request: RequestContext, factories: dict[str, Any], seen: dict[str, frozenset[str]]
) -> dict[str, Tool]:
    found: dict[str, Tool] = {}
    for source, factory in factories.items():
        made = factory(request)
        made = list(made) if isinstance(made, list | tuple) else [made]
        for tool in made:
            # Checked on the class: an isinstance check against the protocol would compute
            # every tool's parameter schema on each request.
            if not callable(getattr(type(tool), "call", None)) or not hasattr(tool, "name"):
                raise TypeError(f"the tool source {source!r} made {tool!r}, which is not a Tool")
            if tool.name in found:
                raise ValueError(f"two tool sources define a tool named {tool.name!r}")
            found[tool.name] = tool
        seen[source] = frozenset(tool.name for tool in made)
    return found


def record_tools(session: Session, tools: dict[str, Tool]) -> dict[str, str]:
    """Make sure every tool has its built-in row (no owner) in the store; returns name → id."""
    # Imported here: this package is loaded by the plugin scan of every command, even
    # `datapilot --help`, and SQLAlchemy with the store's models costs ~0.3 s to import.
    from sqlalchemy import select

    from datapilot.store.models import Tool as ToolRow

    builtins = session.scalars(select(ToolRow).where(ToolRow.owner_id.is_(None)))
    rows = {row.name: row for row in builtins}
    for name, tool in tools.items():
        row = rows.get(name)
        if row is None:
            row = ToolRow(
                owner_id=None, name=name, source=tool.source, description=tool.description
            )
            session.add(row)
            rows[name] = row
        elif row.description != tool.description or row.source != tool.source:
            row.description, row.source = tool.description, tool.source
    session.flush()
    return {name: row.id for name, row in rows.items()}
