"""What one request runs with, handed down explicitly: nothing below the front ends reads
process-wide settings, data or model keys."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import SecretStr

from datapilot.core.context import QuestionContext
from datapilot.core.events import Event
from datapilot.data.access import DataAccess, open_data
from datapilot.engine.executor import default_registry
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import Registry
from datapilot.settings import Settings

# What answers a question in place of the data brain: (question, its context, settings) → the
# pipeline's events (a document's answer in OpenBB, a test's scripted stream).
EventSource = Callable[[str, QuestionContext, Settings], AsyncIterator[Event]]


@dataclass
class RequestContext:
    """One request's question context, settings, data and interface library.

    `settings` already carry the model and key the request brought (OpenBB sends its own), so a
    brain built from this context never sees another request's key. Front ends build it with
    `for_request`; the engine, brains and interfaces only read it.
    """

    question: QuestionContext
    settings: Settings
    data: DataAccess
    registry: Registry = field(default_factory=default_registry)

    @classmethod
    def for_request(
        cls,
        question: QuestionContext,
        settings: Settings,
        *,
        data: DataAccess | None = None,
        registry: Registry | None = None,
    ) -> RequestContext:
        """The context of one request: `settings` with the request's model and key applied,
        the data of their data dir (with the imports of `question.data_owner`), the library of
        installed interfaces and of the design packages accepted there now."""
        return cls(
            question=question,
            # The data is the process's for these settings, as the asking user reads it; the
            # request's key never reaches it.
            data=open_data(settings).for_owner(question.data_owner) if data is None else data,
            settings=with_request_model(settings, question),
            registry=default_registry(settings.data_dir) if registry is None else registry,
        )

    def interface_context(self, language: Literal["en", "zh"] = "en") -> InterfaceContext:
        """The warehouse and catalog, plus the tables the client sent, as interfaces see them;
        `language` is the question's (charts word their axes for it)."""
        return InterfaceContext(
            warehouse=self.data.warehouse,
            catalog=self.data.catalog,
            today=self.question.today,
            tables={table.name: table.to_frame() for table in self.question.tables},
            offline=self.question.offline,
            data=self.data,
            language=language,
        )


def with_request_model(settings: Settings, question: QuestionContext) -> Settings:
    """`settings` with the model and key a request brought (a copy; the original is untouched)."""
    update: dict[str, object] = {}
    if question.llm_model:
        update["llm_model"] = question.llm_model
    if question.llm_api_key:
        # A secret like the configured key: never shown in a repr, a log line or an error.
        update["llm_api_key"] = SecretStr(question.llm_api_key)
    return settings.model_copy(update=update) if update else settings
