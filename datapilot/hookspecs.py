"""The hooks a Datapilot plugin implements; built-ins use the very same hooks.

A plugin is a module or object with functions marked `@hookimpl`, installed as an entry point
in the `datapilot` group (`[project.entry-points.datapilot]` in its `pyproject.toml`):

```python
from datapilot.hookspecs import hookimpl


@hookimpl
def register_interfaces(registry):
    from my_package import interfaces  # @interface functions; loaded only when needed

    registry.collect(interfaces)
```

Hook implementations stay lazy: a module that registers a command, route or brain imports its
heavy dependencies inside the registered function, never at import time, so `datapilot --help`
stays fast however many plugins are installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from fastapi import FastAPI
    from typer import Typer

    from datapilot.data.providers.live import LiveProvider
    from datapilot.engine.brain import Brain
    from datapilot.engine.context import RequestContext
    from datapilot.interfaces.registry import Registry
    from datapilot.settings import Settings

PROJECT = "datapilot"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

ProviderFactory = Callable[["Settings"], "LiveProvider"]
"""Builds a live data provider from the settings (called once per configuration and process)."""
BrainFactory = Callable[["RequestContext"], "Brain"]
"""Builds a brain for one request from that request's context."""
ToolFactory = Callable[["RequestContext"], Any]
"""Builds one request's tools of a source: a `datapilot.tools.Tool` or a list of them (name,
description, JSON-schema parameters, async `call`), for the assistants platform to bind."""


@hookspec
def register_interfaces(registry: Registry) -> None:
    """Add interfaces plans may call: `registry.add(func)` for `@interface` functions, or
    `registry.collect(module)` for every one a module defines."""


@hookspec
def register_providers(register: Callable[[str, ProviderFactory], None]) -> None:
    """Add live data providers: `register("name", factory)`; users pick them by name in
    `DATAPILOT_PROVIDERS`."""


@hookspec
def register_brains(register: Callable[[str, BrainFactory], None]) -> None:
    """Add brains (question -> intent + plan + summary): `register("name", factory)`."""


@hookspec
def register_tools(register: Callable[[str, ToolFactory], None]) -> None:
    """Add tool sources an assistant can be bound to: `register("name", factory)`."""


@hookspec
def register_commands(cli: Typer) -> None:
    """Add commands or command groups to the `datapilot` command line."""


@hookspec
def register_routes(app: FastAPI) -> None:
    """Add routes to the server's FastAPI app (`app.include_router(...)`)."""
