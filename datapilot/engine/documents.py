"""Answering a question from the user's documents, as the same typed events the pipeline yields.

Read (fetching URLs through the SSRF-safe client), find the passages that answer the question
(BM25), then answer: offline, the passages quoted with their pages; with a model, the model's
answer written from the passages (fenced as data), falling back to the quotes when it fails.
The Answer's `quotes` carry each passage's page and line boxes for citations.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing

import httpx

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, Failed, OutputEvent, StatusEvent, TextDelta
from datapilot.core.model_messages import ModelMessage, SystemPrompt, UserPrompt
from datapilot.core.outputs import TextOutput
from datapilot.data.documents import (
    DOCUMENT_SYSTEM_PROMPT,
    Document,
    DocumentError,
    DocumentSource,
    ReadLimits,
    describe_failure,
    find_passages,
    load_document,
    nothing_found,
    opening_passages,
    passages_prompt,
    quoted_answer,
    quotes,
    refers_to_document,
)
from datapilot.data.text import is_chinese
from datapilot.model_client import (
    LLMClient,
    LLMConfig,
    LLMError,
    LLMUnavailable,
    UsageMeter,
    resolve_config,
)
from datapilot.model_client.health import reachable
from datapilot.net import OutboundError, OutboundPolicy
from datapilot.retrieval import Hit
from datapilot.settings import Settings

log = logging.getLogger(__name__)
PASSAGES = 3
ANSWER_MAX_TOKENS = 700


async def document_events(
    question: str, sources: list[DocumentSource], context: QuestionContext, settings: Settings
) -> AsyncIterator[Event]:
    """Events answering `question` from `sources`; always ends with one `Done`."""
    documents: list[Document] = []
    notes: list[str] = []
    answer = answer_maker(question, context, notes=notes)
    chinese = is_chinese(question)
    policy = OutboundPolicy.from_settings(settings.model_copy(update={"offline": context.offline}))
    limits = ReadLimits.of(settings)
    for source in sources:
        yield StatusEvent(message=f"Reading {source.name}")
        try:
            document = await load_document(source, policy=policy, read_limits=limits)
        except (DocumentError, OutboundError) as error:
            notes.append(describe_failure(source, error))
            yield StatusEvent(message=notes[-1])
            continue
        documents.append(document)
        if document.pages > limits.pages and document.kind == "pdf":
            notes.append(
                f"{document.name} has {document.pages} pages; only the first {limits.pages} were "
                "read."
            )
        pages = (
            f"{document.pages} page{'s' * (document.pages != 1)}, "
            if document.kind == "pdf"
            else ""
        )
        yield StatusEvent(message=f"Read {document.name}: {pages}{len(document.passages)} passages")

    if not documents:
        message = " ".join(notes) or "No document arrived with the question; attach it again."
        yield Failed(status="error", message=message)
        yield Done(answer=answer("error", message=message))
        return

    # Off the event loop: indexing a long document (and jieba's first load) takes a moment.
    hits = await asyncio.to_thread(find_passages, question, documents, PASSAGES)
    opening = not hits and refers_to_document(question, documents)
    if opening:
        hits = opening_passages(documents, k=PASSAGES)
    if hits:
        if opening:
            found = (
                "问题针对整份文档：引用开头几段"
                if chinese
                else "A question about the whole document: quoting its opening passages"
            )
        elif chinese:
            found = f"找到{len(hits)}段相关原文"
        else:
            found = f"Found {len(hits)} matching passage{'s' * (len(hits) != 1)}"
        yield StatusEvent(message=found)
    ending = answer_from_passages(
        question,
        hits,
        context,
        settings,
        answer,
        nothing=nothing_found(question, documents),
        opening=opening,
        notes=notes,
        cited={
            "sources": [document.name for document in documents],
            "quotes": quotes(hits, documents),
        },
    )
    async with aclosing(ending) as events:
        async for event in events:
            yield event


AnswerMaker = Callable[..., Answer]


def answer_maker(question: str, context: QuestionContext, **common: object) -> AnswerMaker:
    """A maker of `question`'s Answer: `answer(status, **fields)` with the query, date, the time
    since this call and `common` (lists given here may still grow: they are read at each call)."""
    started = time.perf_counter()

    def answer(status: str, **fields: object) -> Answer:
        return Answer.model_validate(
            {
                "query": question,
                "today": context.today,
                "status": status,
                **common,
                "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 1)},
                **fields,
            }
        )

    return answer


async def answer_from_passages(
    question: str,
    hits: list[Hit],
    context: QuestionContext,
    settings: Settings,
    answer: AnswerMaker,
    *,
    nothing: str,
    opening: bool = False,
    notes: list[str] | None = None,
    cited: dict[str, object] | None = None,
) -> AsyncGenerator[Event, None]:
    """The end of an answer from retrieved passages, shared by document and library answers.

    No `hits` → one `no_data` Done saying `nothing`. Otherwise the model's answer streams
    (`PassageAnswer`), or the passages are quoted when no model answers (its note joins `notes`);
    then one `ok` Done with the usage and `cited` (the quotes, sources, citations).
    """
    notes = [] if notes is None else notes
    cited = cited or {}
    if not hits:
        yield Done(answer=answer("no_data", message=nothing, summary=nothing, notes=notes, **cited))
        return
    meter = UsageMeter()
    model = PassageAnswer(context, settings, meter)
    async for delta in model.stream(question, hits):
        yield delta
    text = model.text
    if model.note:
        notes.append(model.note)
    if not text:
        text = quoted_answer(question, hits, opening=opening)
        yield OutputEvent(output=TextOutput(text=text))
    yield Done(answer=answer("ok", summary=text, notes=notes, usage=meter.total(), **cited))


class PassageAnswer:
    """A model's answer written from retrieved passages (fenced as data), shared by document
    and library answers.

    `stream` yields the answer as `TextDelta` events. Afterwards `text` holds the whole answer,
    or "" when no model answers: none configured, the offline brain, a remote model in offline
    mode, an unreachable endpoint under the `auto` brain, or a failure (then `note` says why and
    the caller quotes the passages instead).
    """

    def __init__(self, context: QuestionContext, settings: Settings, meter: UsageMeter) -> None:
        self.context = context
        self.config = _model_config(context, settings)
        self.required = (context.brain if context.brain != "auto" else settings.brain) == "llm"
        self.meter = meter
        self.text = ""
        self.note: str | None = None

    async def stream(self, question: str, hits: list[Hit]) -> AsyncIterator[TextDelta]:
        if self.config is None:
            return
        client = LLMClient(self.config, self.meter)
        text = ""
        try:
            if not self.required and not await reachable(client):
                # `auto` does not wait on a dead endpoint: the quotes answer at once.
                raise LLMUnavailable(f"the model endpoint {self.config.shown_url} is not reachable")
            async with aclosing(_model_answer(client, question, hits)) as stream:
                async for piece in stream:
                    text += piece
                    yield TextDelta(text=piece)
        except LLMError as error:
            self.note = f"The model could not answer ({error}); the passages are quoted instead."
            if text:  # a broken-off reply is kept; the quotes follow it
                yield TextDelta(text="\n\n")
            text = ""
        finally:
            await client.aclose()
        self.text = text


def _model_config(context: QuestionContext, settings: Settings) -> LLMConfig | None:
    """The model to answer with, or None for the offline (quoting) answer."""
    brain = context.brain if context.brain != "auto" else settings.brain
    if brain == "offline":
        return None
    config = resolve_config(settings, context)
    if config is None:
        return None
    if (context.offline or settings.offline) and not _is_loopback(config.base_url):
        return None  # offline: only a model on this machine
    return config


def _is_loopback(base_url: str) -> bool:
    return httpx.URL(base_url).host in ("localhost", "127.0.0.1", "::1")


async def _model_answer(
    client: LLMClient, question: str, hits: list[Hit]
) -> AsyncGenerator[str, None]:
    messages: list[ModelMessage] = [
        SystemPrompt(text=DOCUMENT_SYSTEM_PROMPT),
        UserPrompt(content=passages_prompt(question, hits)),
    ]
    async with aclosing(
        client.stream_text(messages, purpose="documents", max_tokens=ANSWER_MAX_TOKENS)
    ) as stream:
        async for piece in stream:
            yield piece
