"""The LLM brain: one planning call, a grounded streamed summary, the offline planner as fallback.

One instance serves one request (as `select_brain` creates them): after `summarize`,
`summary_usage` and `summary_notes` hold the summary call's usage and any note for the Answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlparse

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

    async def understand(self, question: str, context: QuestionContext) -> Understanding:
        """Plan with the model; fall back to the offline planner (with a note) when it fails."""
        self._template_only = False
        config = resolve_config(self.settings, context)
        required = (context.brain if context.brain != "auto" else self.settings.brain) == "llm"
        if config is None:
            return await self._offline(
                question, context, "no model is configured (set DATAPILOT_LLM_MODEL)", UsageMeter()
            )
        if (context.offline or self.settings.offline) and not _is_loopback(config.base_url):
            return await self._offline(
                question, context, "offline mode allows only a model on this machine", UsageMeter()
            )
        self._config = config
        meter = UsageMeter()
        client = LLMClient(config, meter)
        key = config.endpoint_key
        try:
            if not required and not await reachable(client):
                reason = f"the model endpoint {config.shown_url} is not reachable"
                return await self._offline(question, context, reason, meter)
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
            return await self._offline(question, context, str(error), meter)
        except LLMTimeout as error:
            mark_down(key)
            return await self._offline(question, context, str(error), meter)
        except (PlanningFailed, LLMError) as error:
            return await self._offline(question, context, str(error), meter)
        finally:
            await client.aclose()
        understanding.usage = understanding.usage.add(meter.total())
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
        try:
            async for piece in grounded_summary(
                client, question, understanding, run, self.summary_notes.append
            ):
                yield piece
        finally:
            self.summary_usage = meter.total()
            await client.aclose()

    async def _offline(
        self, question: str, context: QuestionContext, reason: str, meter: UsageMeter
    ) -> Understanding:
        self._template_only = True
        zh = is_chinese(question)
        note = (
            f"模型未能给出可用的计划（{reason}），改由离线规划器回答。"
            if zh
            else f"The model's plan could not be used ({reason}); the offline planner answered."
        )
        try:
            brain = self._fallback or self._offline_brain()
        except ImportError as error:
            return Understanding(
                status="error",
                message=f"{reason}; the offline planner is not available either ({error})",
                usage=meter.total(),
            )
        understanding = await brain.understand(question, context)
        understanding.notes.insert(0, note)
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
