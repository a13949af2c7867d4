"""The LLM brain: one planning call, a grounded streamed summary, the offline reader as fallback.

A weak model never costs a right answer: the reader reads every question the model plans, and
its answer stands, with a short note in the question's language, when the model fails, its
plan is still invalid after the repairs, or its reading differs from the reader's on a question
the reader answers (agreement.py).

One instance serves one request (as `select_brain` creates them): after `summarize`,
`summary_usage` and `summary_notes` hold the summary call's usage and any note for the Answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlparse

from datapilot.brains.llm.agreement import FallbackKind, disagreement, fallback_note
from datapilot.brains.llm.grounding import CatalogLike
from datapilot.brains.llm.planner import Planner, PlanningFailed
from datapilot.brains.llm.summary import grounded_summary
from datapilot.core.answer import Usage
from datapilot.core.context import QuestionContext
from datapilot.core.results import RunResult
from datapilot.data.access import DataAccess
from datapilot.data.text import is_chinese
from datapilot.engine.brain import Brain, Understanding
from datapilot.engine.summary import summary_chunks
from datapilot.interfaces.registry import Registry
from datapilot.model_client import (
    LLMClient,
    LLMConfig,
    LLMError,
    LLMTimeout,
    LLMUnavailable,
    UsageMeter,
)
from datapilot.model_client.config import resolve_config
from datapilot.model_client.health import is_down, mark_down, mark_up, reachable
from datapilot.settings import Settings, get_settings

_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


class LLMBrain:
    """Plans with a model through any OpenAI-compatible endpoint; see the module docstring."""

    name = "llm"

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        registry: Registry | None = None,
        catalog: CatalogLike | None = None,
        data: DataAccess | None = None,
        fallback: Brain | None = None,
        max_repairs: int = 2,
    ) -> None:
        """`settings` carry the model and key of this request; `catalog` defaults to `data`'s
        (the request's), opened on first use; with neither, the environment's settings' data."""
        self.settings = settings or get_settings()
        self._registry = registry
        self._catalog = catalog
        self._data = data
        self._fallback = fallback
        self.max_repairs = max_repairs
        self.summary_usage = Usage()
        self.summary_notes: list[str] = []
        self._config: LLMConfig | None = None
        self._template_only = False
        self._reading: Understanding | None = None

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        """Plan with the model; the offline reader answers (with a note) when the model fails,
        or when its reading differs from the reader's on a question the reader answers."""
        self._template_only = False
        self._reading = None
        config = resolve_config(self.settings, context)
        required = (context.brain if context.brain != "auto" else self.settings.brain) == "llm"
        if config is None:
            reason = "no model is configured"
            return await self._offline(question, context, reason, UsageMeter(), "unconfigured")
        if (context.offline or self.settings.offline) and not _is_loopback(config.base_url):
            reason = f"offline mode refuses the model at {config.base_url}"
            return await self._offline(question, context, reason, UsageMeter(), "offline")
        self._config = config
        meter = UsageMeter()
        client = LLMClient(config, meter)
        key = config.endpoint_key
        try:
            if not required and not await reachable(client):
                reason = f"the model endpoint {config.shown_url} is not reachable"
                return await self._offline(question, context, reason, meter, "endpoint")
            planner = Planner(
                client,
                self._get_registry(),
                self._get_catalog(),
                self.max_repairs,
                prompt_tokens=self.settings.llm_prompt_tokens,
            )
            understanding = await planner.plan(question, context)
            mark_up(key)
        except LLMUnavailable as error:
            mark_down(key)
            if required:
                return Understanding(status="error", message=str(error), usage=meter.total())
            return await self._offline(question, context, str(error), meter, "endpoint")
        except LLMTimeout as error:
            mark_down(key)
            return await self._offline(question, context, str(error), meter, "endpoint")
        except (PlanningFailed, LLMError) as error:
            return await self._offline(question, context, str(error), meter, "plan")
        finally:
            await client.aclose()
        # After the model, not beside it: the reader's work would hold up the model's call.
        differs = await self._differs(understanding, question, context)
        if differs:
            return await self._offline(question, context, differs, meter, "differs")
        understanding.usage = understanding.usage.add(meter.total())
        if understanding.needs is None:
            understanding.usage.llm_calls_used += 1  # the call whose reply is the plan
        return understanding

    async def summarize(
        self, question: str, understanding: Understanding, run: RunResult, context: QuestionContext
    ) -> AsyncIterator[str]:
        """Stream the model's summary where its numbers are facts, else the template summary."""
        self.summary_notes = []
        config = self._config or resolve_config(self.settings, context)
        if self._template_only or config is None or is_down(config.endpoint_key):
            for chunk in summary_chunks(question, understanding, run):
                yield chunk
            return
        meter = UsageMeter()
        client = LLMClient(config, meter)
        shown: list[bool] = []
        try:
            async for piece in grounded_summary(
                client,
                question,
                understanding,
                run,
                self.summary_notes.append,
                used=lambda: shown.append(True),
            ):
                yield piece
        finally:
            self.summary_usage = meter.total()
            self.summary_usage.llm_calls_used = len(shown)
            await client.aclose()

    async def _read(self, question: str, context: QuestionContext) -> Understanding:
        brain = self._fallback or self._offline_brain()
        return await brain.understand(question, context)

    async def _differs(
        self, understanding: Understanding, question: str, context: QuestionContext
    ) -> str | None:
        """Why the reader's answer stands instead of the model's reading, if it does."""
        if understanding.needs is not None:
            return None
        try:
            self._reading = await self._read(question, context)
        except Exception as error:  # no reader to compare with: the model's reading stands
            understanding.notes.append(f"The offline reader could not check the plan: {error}")
            return None
        return disagreement(understanding, self._reading)

    async def _offline(
        self,
        question: str,
        context: QuestionContext,
        reason: str,
        meter: UsageMeter,
        kind: FallbackKind,
    ) -> Understanding:
        """The offline reader's answer, with a short note in the question's language; what
        went wrong with the model (an endpoint's own error) goes into the intent's trace."""
        self._template_only = True
        try:
            understanding = self._reading or await self._read(question, context)
        except ImportError as error:
            return Understanding(
                status="error",
                message=f"{reason}; the offline reader is not available either ({error})",
                usage=meter.total(),
            )
        understanding.notes.insert(0, fallback_note(kind, is_chinese(question)))
        if understanding.intent is not None:
            understanding.intent.trace.append(f"The model's answer was not used: {reason}")
        understanding.usage = understanding.usage.add(meter.total())
        return understanding

    def _offline_brain(self) -> Brain:
        """The offline planner on this request's settings and data."""
        from datapilot.brains.offline import OfflineBrain

        return OfflineBrain(settings=self.settings, data=self._data)

    def _get_registry(self) -> Registry:
        if self._registry is None:
            from datapilot.engine.executor import default_registry

            self._registry = default_registry()
        return self._registry

    def _get_catalog(self) -> CatalogLike:
        if self._catalog is None:
            from datapilot.data import open_data

            self._catalog = (self._data or open_data(self.settings)).catalog
        return self._catalog


def _is_loopback(base_url: str) -> bool:
    return (urlparse(base_url).hostname or "") in _LOOPBACK
