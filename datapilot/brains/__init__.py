"""Brains turn a question into an intent and a plan: offline (rules) or llm (a model).

Brains are plugins (`register_brains`; the built-ins in `plugin.py`). `select_brain` picks one
for a request and builds it from that request's context; a brain that cannot be loaded never
breaks the others.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from datapilot.plugins import brains

if TYPE_CHECKING:
    from datapilot.core.answer import Answer
    from datapilot.core.context import QuestionContext
    from datapilot.core.events import Event
    from datapilot.engine.brain import Brain, BrainUnavailable, Understanding
    from datapilot.engine.context import RequestContext
    from datapilot.settings import BrainChoice, Settings

# This package holds a plugin (`plugin.py`) that every command loads: the engine loads on use.
_ENGINE_NAMES = ("Brain", "BrainUnavailable", "Understanding")


def __getattr__(name: str) -> Any:
    if name in _ENGINE_NAMES:
        from datapilot.engine import brain

        return getattr(brain, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Brain",
    "BrainUnavailable",
    "Understanding",
    "answer",
    "answers_offline",
    "run",
    "select_brain",
]


async def run(
    question: str, request: RequestContext, *, brain: Brain | None = None, **options: Any
) -> AsyncIterator[Event]:
    """The pipeline's events for `question` with `brain`, or the brain `select_brain` picks for
    the request (options as for `engine.pipeline.run`). The choosing happens inside the stream,
    so a brain that cannot be built ends it with a `failed` event saying why, then one `done`,
    like any failure."""
    from datapilot.engine import pipeline

    chosen = brain if brain is not None else functools.partial(select_brain, request)
    async for event in pipeline.run(question, request, brain=chosen, **options):
        yield event


async def answer(
    question: str, request: RequestContext, *, brain: Brain | None = None, **options: Any
) -> Answer:
    """`run` to the end: the Answer."""
    from datapilot.engine.pipeline import final_answer

    return await final_answer(run(question, request, brain=brain, **options))


def select_brain(request: RequestContext) -> Brain:
    """The brain for this request.

    The request's choice wins over the settings' unless it is `auto`. `auto` uses the LLM brain
    when a model is configured (in settings or by the request) and the offline brain otherwise,
    including when the LLM brain cannot be loaded. Any other registered brain is chosen by name.
    """
    from datapilot.engine.brain import BrainUnavailable

    question, settings = request.question, request.settings
    choice: BrainChoice | str = question.brain if question.brain != "auto" else settings.brain
    if choice == "offline":
        return _build("offline", request)
    if choice == "llm":
        if not settings.llm_configured:
            raise BrainUnavailable(
                "The llm brain needs a model: set DATAPILOT_LLM_MODEL and DATAPILOT_LLM_BASE_URL "
                "(or DATAPILOT_LLM_API_KEY), or use --brain offline."
            )
        return _build("llm", request)
    if choice != "auto":
        return _build(choice, request)
    if settings.llm_configured and not question.offline and not settings.offline:
        try:
            return _build("llm", request)
        except BrainUnavailable:
            pass
    return _build("offline", request)


def answers_offline(question: QuestionContext, settings: Settings) -> bool:
    """Whether `select_brain` will surely pick the offline brain for this request (no model can
    be involved), decided before the request's context is built. False when unsure."""
    choice: BrainChoice | str = question.brain if question.brain != "auto" else settings.brain
    if choice == "offline":
        return True
    if choice != "auto":
        return False
    own_model = question.llm_api_key or question.llm_model
    return question.offline or settings.offline or not (settings.llm_configured or own_model)


def _build(name: str, request: RequestContext) -> Brain:
    from datapilot.engine.brain import BrainUnavailable

    factory = brains().get(name)
    if factory is None:
        known = ", ".join(brains()) or "none"
        raise BrainUnavailable(f"no brain named {name!r} is installed (installed: {known}).")
    try:
        return factory(request)
    except ImportError as error:
        raise BrainUnavailable(f"the {name} brain is not available ({error}).") from error
