"""The built-in tool sources, registered through the `register_tools` hook: the data workflow
(one tool), the interfaces whose arguments are plain values (one tool each) and `python`, the
sandboxed interpreter (each run waits for the user's go-ahead in a chat)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from datapilot.hookspecs import ToolFactory, hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable

    from datapilot.engine.context import RequestContext


def _workflow(request: RequestContext) -> Any:
    from datapilot.tools.workflow import DataWorkflowTool

    return [DataWorkflowTool(request)]


def _interfaces(request: RequestContext) -> Any:
    from datapilot.tools.workflow import interface_tools

    return interface_tools(request)


def _interpreter(request: RequestContext) -> Any:
    from datapilot.tools.python import PythonTool

    return [PythonTool(request)]


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_tools(register: Callable[[str, ToolFactory], None]) -> None:
    register("workflow", _workflow)
    register("interfaces", _interfaces)
    register("interpreter", _interpreter)
