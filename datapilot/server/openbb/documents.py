"""Documents in a Workspace request: PDFs and text files sent as widget data or context, by
base64 or by URL, answered from their passages and cited with page and highlight boxes."""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
from openbb_ai import cite
from openbb_ai.models import (
    Citation,
    CitationHighlightBoundingBox,
    PdfDataFormat,
    PlaintextDataFormat,
    SingleDataContent,
    SingleFileReference,
    SourceInfo,
    Widget,
)

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event, StatusEvent
from datapilot.core.quotes import Quote
from datapilot.data.documents import DocumentKind, DocumentSource, decode_base64
from datapilot.net import OutboundError, OutboundPolicy, afetch
from datapilot.settings import Settings
from datapilot.store import Store

if TYPE_CHECKING:
    from datapilot.engine.context import EventSource

_PLAINTEXT_KINDS: dict[str, DocumentKind] = {"txt": "text", "md": "markdown", "html": "html"}


def is_document(data_format: object) -> bool:
    """Whether content in this format is read as a document (not parsed as a table)."""
    return isinstance(data_format, PdfDataFormat | PlaintextDataFormat)


def _kind(data_format: PdfDataFormat | PlaintextDataFormat) -> DocumentKind:
    if isinstance(data_format, PdfDataFormat):
        return "pdf"
    return _PLAINTEXT_KINDS.get(data_format.data_type, "text")


def content_document(
    content: SingleDataContent, name: str, widget_uuid: str | None
) -> tuple[DocumentSource | None, str | None]:
    """A document sent inline (base64 for PDFs; base64 or plain text for text files), or a note
    saying why it cannot be read."""
    data_format = content.data_format
    if not isinstance(data_format, PdfDataFormat | PlaintextDataFormat):
        return None, None
    filename = data_format.filename or name
    kind = _kind(data_format)
    if kind == "pdf":
        try:
            data = decode_base64(content.content, filename)
        except ValueError as error:
            return None, str(error)
    else:
        data = _text_bytes(content.content)
    source = DocumentSource(name=filename, kind=kind, content=data, widget_uuid=widget_uuid)
    return source, None


def reference_document(item: SingleFileReference, widget_uuid: str | None) -> DocumentSource | None:
    """A document sent by URL, fetched later through the SSRF-safe client; None: not a document."""
    data_format = item.data_format
    if not isinstance(data_format, PdfDataFormat | PlaintextDataFormat):
        return None
    return DocumentSource(
        name=data_format.filename or str(item.url).rsplit("/", 1)[-1],
        kind=_kind(data_format),
        url=str(item.url),
        widget_uuid=widget_uuid,
    )


def _text_bytes(text: str) -> bytes:
    """Text files may arrive base64-encoded; plain text stays as it is."""
    stripped = text.strip()
    if stripped and " " not in stripped and "\n" not in stripped:
        try:
            decoded = base64.b64decode(stripped, validate=True)
            decoded.decode("utf-8")  # a short word can be valid base64 too: keep it if not text
            return decoded
        except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
            pass
    return text.encode("utf-8")


def document_source(sources: list[DocumentSource]) -> EventSource:
    """The events of a request with documents: answered from them; when no passage matches,
    the question goes to the data pipeline instead (a dashboard may hold a PDF beside charts)."""

    async def events(
        question: str, context: QuestionContext, settings: Settings
    ) -> AsyncIterator[Event]:
        from datapilot.engine.documents import document_events
        from datapilot.server.runner import pipeline_events

        async for event in document_events(question, sources, context, settings):
            if isinstance(event, Done) and event.answer.status == "no_data":
                yield StatusEvent(message=event.answer.message or "No passage matches.")
                async for later in pipeline_events(question, context, settings):
                    yield later
                return
            yield event

    return events


def quote_citations(
    answer: Answer, widgets: dict[str, Widget], input_args: dict[str, dict[str, Any]]
) -> list[Citation]:
    """One citation per quoted passage, with its page and the boxes of its lines, in OpenBB's
    shape (a widget citation when the document came from a widget)."""
    found = []
    for quote in answer.quotes:
        details: dict[str, Any] = {"Document": quote.source}
        if quote.page is not None:
            details["Page"] = quote.page
        details["Quote"] = _clip(quote.text)
        widget = widgets.get(quote.widget_uuid or "")
        if widget is not None:
            citation = cite(widget, input_args.get(str(widget.uuid), {}), extra_details=details)
        else:
            info = SourceInfo(
                type="direct retrieval",
                name=quote.source,
                description=f"A passage of {quote.source}",
                citable=True,
            )
            citation = Citation(source_info=info, details=[details])
        boxes = _boxes(quote)
        if boxes:
            citation.quote_bounding_boxes = [boxes]
        found.append(citation)
    return found


def _boxes(quote: Quote) -> list[CitationHighlightBoundingBox]:
    if quote.page is None:
        return []
    return [
        CitationHighlightBoundingBox(
            text=box.text or _clip(quote.text),
            page=quote.page,
            x0=box.x0,
            top=box.top,
            x1=box.x1,
            bottom=box.bottom,
        )
        for box in quote.boxes
    ]


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def keep_documents(
    store: Store, settings: Settings, owner_id: str, library: str, sources: list[DocumentSource]
) -> list[str]:
    """Add the request's documents to `library` (each once, by content hash; those sent by URL
    fetched through the SSRF-safe client first). Returns a status line per document added or
    refused; one already there says nothing, as the Workspace resends it with every request."""
    from datapilot.knowledge import KnowledgeError
    from datapilot.knowledge.embeddings import EmbeddingsError
    from datapilot.knowledge.intake import add_once, mime_of

    policy = OutboundPolicy.from_settings(settings)
    notes: list[str] = []
    for source in sources:
        data, kind = source.content, source.kind
        try:
            if data is None and source.url:
                response = (await afetch(source.url, policy=policy)).raise_for_status()
                data = response.content
            if not data:
                continue
            _, added = await anyio.to_thread.run_sync(
                add_once, store, settings, owner_id, library, source.name, data, mime_of(kind)
            )
        except (KnowledgeError, EmbeddingsError, OutboundError) as error:
            notes.append(f"{source.name} was not added to the library: {error}")
            continue
        if added:
            notes.append(f"Added {source.name} to the library")
    return notes
