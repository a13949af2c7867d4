"""The built-in brains, registered through the `register_brains` hook.

Each factory builds its brain from the request's context (settings with the request's model and
key, the request's catalog and interface library) and imports it on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from datapilot.hookspecs import BrainFactory, hookimpl

if TYPE_CHECKING:
    from datapilot.engine.brain import Brain
    from datapilot.engine.context import RequestContext


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_brains(register: Callable[[str, BrainFactory], None]) -> None:
    register("offline", offline)
    register("llm", llm)


def offline(request: RequestContext) -> Brain:
    from datapilot.brains.offline import OfflineBrain

    return OfflineBrain(settings=request.settings, data=request.data)


def llm(request: RequestContext) -> Brain:
    from datapilot.brains.llm import LLMBrain

    return LLMBrain(request.settings, registry=request.registry, data=request.data)
