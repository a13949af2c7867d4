"""Brains turn a question into an intent and a plan: offline (rules) or llm (a model).

`select_brain` picks one for a request; brains are imported lazily so a missing optional
brain never breaks the others.
"""

from __future__ import annotations

import importlib

from datapilot.core.context import QuestionContext
from datapilot.engine.brain import Brain, Understanding
from datapilot.settings import BrainChoice, Settings

__all__ = ["Brain", "BrainUnavailable", "Understanding", "select_brain"]


class BrainUnavailable(RuntimeError):
    """The requested brain cannot be used; the message says what to configure."""


def select_brain(context: QuestionContext, settings: Settings) -> Brain:
    """The brain for this request.

    The request's choice wins over the settings' unless it is `auto`. `auto` uses the LLM brain
    when a model is configured (in settings or by the request) and the offline brain otherwise,
    including when the LLM brain cannot be loaded.
    """
    choice: BrainChoice = context.brain if context.brain != "auto" else settings.brain
    settings = _with_request_model(settings, context)
    if choice == "offline":
        return _offline()
    if choice == "llm":
        if not settings.llm_configured:
            raise BrainUnavailable(
                "The llm brain needs a model: set DATAPILOT_LLM_MODEL and DATAPILOT_LLM_BASE_URL "
                "(or DATAPILOT_LLM_API_KEY), or use --brain offline."
            )
        return _llm(settings)
    if settings.llm_configured and not context.offline and not settings.offline:
        try:
            return _llm(settings)
        except BrainUnavailable:
            pass
    return _offline()


def _with_request_model(settings: Settings, context: QuestionContext) -> Settings:
    """Settings with the model and key a request brought (OpenBB can send its own)."""
    update = {}
    if context.llm_model:
        update["llm_model"] = context.llm_model
    if context.llm_api_key:
        update["llm_api_key"] = context.llm_api_key
    return settings.model_copy(update=update) if update else settings


def _offline() -> Brain:
    cls = _load("datapilot.brains.offline", "OfflineBrain")
    return cls()


def _llm(settings: Settings) -> Brain:
    cls = _load("datapilot.brains.llm", "LLMBrain")
    return cls(settings)


def _load(module: str, name: str) -> type:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise BrainUnavailable(f"{module}.{name} is not available ({error}).") from error
