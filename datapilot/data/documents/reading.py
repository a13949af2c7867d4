"""A user's documents: PDF, text, Markdown, HTML and CSV read into passages.

PDFs are read with pdfium (`pdf_text`), which gives every line's position: a passage (a
paragraph) keeps its page and one box per line, so an answer can highlight exactly what it
quotes; pdfplumber reads only the pages that draw rules, for their tables. Documents given
by URL are fetched only through `datapilot.net`, the SSRF-safe client. Every read is bounded
(`limits`): pages, objects per page, inflated streams and time.
"""

from __future__ import annotations

import base64
import binascii
import csv
import functools
import io
import itertools
import re
from collections.abc import Callable
from html.parser import HTMLParser
from statistics import median
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from datapilot.core.quotes import BoundingBox
from datapilot.data.documents.limits import (
    DocumentError,
    DocumentTooLarge,
    Reading,
    ReadLimits,
    measure_pdf_streams,
    within,
)
from datapilot.data.documents.pdf_text import open_pdf, page_texts
from datapilot.data.text import is_chinese
from datapilot.net import OutboundPolicy
from datapilot.retrieval import Passage

if TYPE_CHECKING:
    from pdfplumber.page import Page

    from datapilot.net import OutboundLimits

DocumentKind = Literal["pdf", "text", "markdown", "html", "csv"]

MAX_PAGES = 300  # the default of DATAPILOT_KB_MAX_PAGES
MAX_PASSAGE_CHARS = 1200
_SUFFIXES: dict[str, DocumentKind] = {
    "pdf": "pdf",
    "txt": "text",
    "text": "text",
    "md": "markdown",
    "markdown": "markdown",
    "html": "html",
    "htm": "html",
    "csv": "csv",
}
_CONTENT_TYPES: dict[str, DocumentKind] = {
    "application/pdf": "pdf",
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/csv": "csv",
}
_SENTENCE_END_CHARS = re.compile(r"[.!?。！？;；:：]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


class DocumentSource(BaseModel):
    """A document as it arrived: its bytes, or a URL to fetch; where it came from."""

    name: str
    kind: DocumentKind | None = Field(default=None, description="None: from the name or bytes.")
    content: bytes | None = None
    url: str | None = None
    widget_uuid: str | None = Field(default=None, description="The widget that sent it, if any.")


class Document(BaseModel):
    """A read document: its passages in reading order."""

    name: str
    kind: DocumentKind
    pages: int = Field(default=1, description="Pages of a PDF; 1 for other kinds.")
    passages: list[Passage]
    widget_uuid: str | None = None


def decode_base64(text: str, name: str) -> bytes:
    """The bytes of a base64 document (a `data:` URI prefix is allowed)."""
    payload = text.split(",", 1)[1] if text.startswith("data:") and "," in text else text
    try:
        return base64.b64decode("".join(payload.split()), validate=True)
    except (binascii.Error, ValueError) as error:
        raise DocumentError(
            f"{name} arrived as base64 that cannot be decoded ({error}); send the file again"
        ) from error


def kind_of(name: str, content: bytes | None = None, content_type: str = "") -> DocumentKind:
    """A document's kind from its bytes (a PDF says so), content type or file name suffix."""
    if content is not None and content.lstrip()[:5] == b"%PDF-":
        return "pdf"
    if content_type.split(";")[0].strip().lower() in _CONTENT_TYPES:
        return _CONTENT_TYPES[content_type.split(";")[0].strip().lower()]
    suffix = name.rsplit("?", 1)[0].rsplit(".", 1)[-1].lower() if "." in name else ""
    return _SUFFIXES.get(suffix, "text")


def read_document(source: DocumentSource, limits: ReadLimits | None = None) -> Document:
    """Read a document whose bytes are at hand into passages, within `limits` (default: the
    settings'); a PDF longer than their pages is read up to them."""
    content = source.content
    if content is None:
        raise DocumentError(f"{source.name} has no content; send the file or its address")
    kind = source.kind or kind_of(source.name, content)

    def read(reading: Reading) -> Document:
        if kind == "pdf":
            return read_pdf(content, source.name, reading.limits)
        return read_text(_decode_text(content, source.name), source.name, kind)

    document = within(source.name, limits, read)
    return document.model_copy(update={"widget_uuid": source.widget_uuid})


async def load_document(
    source: DocumentSource,
    *,
    policy: OutboundPolicy | None = None,
    limits: OutboundLimits | None = None,
    read_limits: ReadLimits | None = None,
) -> Document:
    """Read a document (within `read_limits`), fetching it first (through the SSRF-safe
    client) when given by URL. Raises `DocumentError` or a `datapilot.net.OutboundError`."""
    import asyncio

    from datapilot.net import afetch  # the outbound client (httpx), when a URL is read

    if source.content is None and source.url:
        response = (await afetch(source.url, policy=policy, limits=limits)).raise_for_status()
        kind = source.kind or kind_of(source.url, response.content, response.content_type)
        source = source.model_copy(update={"content": response.content, "kind": kind})
    return await asyncio.to_thread(read_document, source, read_limits)


# ---- PDF --------------------------------------------------------------------------------------


def read_pdf(
    data: bytes,
    name: str,
    limits: ReadLimits | None = None,
    *,
    refuse_pages: bool = False,
    on_page: Callable[[Page], None] | None = None,
) -> Document:
    """Paragraphs of a PDF with their pages and line boxes, page by page within `limits`
    (default: the settings'): up to their pages (more are refused with `refuse_pages`, else
    left unread), each page's objects counted, every stream measured before it is inflated.
    `on_page` sees, as a pdfplumber page, each page that draws rules (where a table may be)."""
    return within(
        name, limits, lambda reading: _read_pdf(data, name, reading, refuse_pages, on_page)
    )


def _read_pdf(
    data: bytes,
    name: str,
    reading: Reading,
    refuse_pages: bool,
    on_page: Callable[[Page], None] | None,
) -> Document:
    from pdfminer.pdfdocument import PDFPasswordIncorrect
    from pdfminer.psparser import PSException
    from pdfplumber.utils.exceptions import PdfminerException

    passages: list[Passage] = []
    try:
        # Every stream is measured before pdfium inflates any: a bomb is refused here.
        measure_pdf_streams(data, reading)
        pdf = open_pdf(data, name)
        try:
            pages = len(pdf)
            limit = reading.limits.pages
            if pages > limit and refuse_pages:
                reading.refuse(f"has {pages} pages", "kb_max_pages", str(limit))
            read = list(page_texts(pdf, range(min(pages, limit)), reading))
        finally:
            pdf.close()
        ruled = [page.number for page in read if page.ruled]
        if on_page is not None and ruled:
            _pdfplumber_pages(data, ruled, reading, on_page)
        running = _running_lines([page.lines for page in read])
        for page in read:
            kept_lines = [line for line in page.lines if _line_key(line) not in running]
            for paragraph in _paragraphs(kept_lines):
                passages.extend(_pdf_passages(paragraph, name, page.number, len(passages)))
    except DocumentTooLarge:
        raise
    except (PdfminerException, PSException, PDFPasswordIncorrect, ValueError, KeyError) as error:
        if isinstance(error, DocumentError):
            raise
        cause = error.args[0] if error.args else error
        if isinstance(cause, DocumentTooLarge):  # pdfplumber wraps what pdfminer raised
            raise cause from None
        if isinstance(cause, PDFPasswordIncorrect) or "password" in str(cause).lower():
            raise DocumentError(f"{name} is password-protected; send an unlocked copy") from error
        raise DocumentError(
            f"{name} is not a readable PDF ({type(cause).__name__}); check that the file is a "
            "complete PDF"
        ) from error
    if not passages:
        raise DocumentError(
            f"{name} has no text layer (a scanned PDF?); its text cannot be read without OCR. "
            "Send a PDF with selectable text"
        )
    return Document(name=name, kind="pdf", pages=pages, passages=passages)


def _pdfplumber_pages(
    data: bytes, numbers: list[int], reading: Reading, on_page: Callable[[Page], None]
) -> None:
    """`on_page` given the pdfplumber pages `numbers` (1-based), their layout bounded as it is
    made: pdfplumber reads only the pages that need it (tables)."""
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        _, found = _first_pages(pdf, reading, refuse=False)
        wanted = set(numbers)
        for page in _bounded_pages(pdf, found, reading):
            if page.page_number in wanted:
                reading.check_time()
                on_page(page)
            page.close()


def _first_pages(pdf: Any, reading: Reading, refuse: bool) -> tuple[int, list[Any]]:
    """The PDF's page count and its first pages to read, walking the page tree no further
    than the limit (a page tree can hold millions of pages)."""
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdftypes import resolve1

    limit = reading.limits.pages
    found = list(itertools.islice(PDFPage.create_pages(pdf.doc), limit + 1))
    if len(found) <= limit:
        return len(found), found
    tree = resolve1(pdf.doc.catalog.get("Pages"))
    declared = resolve1(tree.get("Count")) if isinstance(tree, dict) else None
    pages = declared if isinstance(declared, int) and declared > limit else None
    if refuse:
        counted = f"more than {limit}" if pages is None else str(pages)
        reading.refuse(f"has {counted} pages", "kb_max_pages", str(limit))
    return (limit + 1 if pages is None else pages), found[:limit]


def _bounded_pages(pdf: Any, found: list[Any], reading: Reading) -> Any:
    """pdfplumber pages whose layout counts its objects against the limit as it is made."""
    page_class = _bounded_page_class()
    top = 0.0
    for number, page_obj in enumerate(found, 1):
        page = page_class(pdf, page_obj, page_number=number, initial_doctop=top, reading=reading)
        top += float(page.height)
        yield page


@functools.cache
def _bounded_page_class() -> Callable[..., Page]:
    from pdfminer.pdfinterp import PDFPageInterpreter
    from pdfplumber.page import Page, PDFPageAggregatorWithMarkedContent
    from pdfplumber.utils.exceptions import PdfminerException

    class CountingDevice(PDFPageAggregatorWithMarkedContent):
        """pdfplumber's device, counting the objects it makes (each char, shape, image)."""

        def __init__(self, *args: Any, reading: Reading, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.reading = reading
            self.made = 0

        def tag_cur_item(self) -> None:
            super().tag_cur_item()
            self.made += 1
            if self.made % 256 == 0:
                self.reading.check_page_objects(self.pageno, self.made)

        def get_result(self) -> Any:
            self.reading.check_page_objects(self.pageno, self.made)
            return super().get_result()

    class BoundedPage(Page):
        def __init__(self, *args: Any, reading: Reading, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.reading = reading

        @property
        def layout(self) -> Any:
            if hasattr(self, "_layout"):
                return self._layout
            device = CountingDevice(
                self.pdf.rsrcmgr,
                pageno=self.page_number,
                laparams=self.pdf.laparams,
                reading=self.reading,
            )
            interpreter = PDFPageInterpreter(self.pdf.rsrcmgr, device)
            try:
                interpreter.process_page(self.page_obj)
            except DocumentTooLarge:
                raise
            except Exception as error:  # as pdfplumber's own layout reports pdfminer's errors
                raise PdfminerException(error) from error
            self._layout = device.get_result()
            return self._layout

    return BoundedPage


def _line_key(line: dict[str, Any]) -> str:
    return re.sub(r"\d+", "#", " ".join(str(line.get("text", "")).split()))


def _running_lines(pages: list[list[dict[str, Any]]]) -> set[str]:
    """Running headers and footers: the same line (page numbers aside) among the first or last
    two lines of at least half the pages. They would otherwise join every page's paragraphs."""
    if len(pages) < 3:
        return set()
    counts: dict[str, int] = {}
    for lines in pages:
        for key in {_line_key(line) for line in lines[:2] + lines[-2:]}:
            counts[key] = counts.get(key, 0) + 1
    return {key for key, count in counts.items() if key and count >= len(pages) / 2}


def _paragraphs(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Lines grouped into paragraphs: a gap clearly wider than the usual line gap starts one."""
    lines = [line for line in lines if str(line.get("text", "")).strip()]
    if not lines:
        return []
    height = median(float(line["bottom"]) - float(line["top"]) for line in lines) or 1.0
    gaps = [float(b["top"]) - float(a["bottom"]) for a, b in itertools.pairwise(lines)]
    usual = median(gaps) if gaps else 0.0
    groups: list[list[dict[str, Any]]] = [[lines[0]]]
    for gap, line in zip(gaps, lines[1:], strict=True):
        # A blank line's worth of space, or (in tightly set text) a gap well above the usual one.
        if gap > height or (gap > 1.6 * max(usual, 0.0) and gap > 0.3 * height) or gap < -height:
            groups.append([line])
        else:
            groups[-1].append(line)
    return _with_headings(groups)


def _with_headings(groups: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """A short heading line joins the paragraph after it: alone it is a passage too short to
    quote, and it tells what the paragraph is about."""
    merged: list[list[dict[str, Any]]] = []
    heading: list[dict[str, Any]] = []
    for group in groups:
        text = str(group[0]["text"]).strip()
        if len(group) == 1 and len(text) <= 80 and not _SENTENCE_END_CHARS.search(text[-1:]):
            heading += [{**group[0], "heading": True}]
            continue
        merged.append(heading + group)
        heading = []
    if heading:
        merged.append(heading)
    return merged


def _pdf_passages(lines: list[dict[str, Any]], name: str, page: int, start: int) -> list[Passage]:
    """One passage per paragraph; a very long paragraph is cut at line ends."""
    chunks: list[list[dict[str, Any]]] = [[]]
    size = 0
    for line in lines:
        if chunks[-1] and size + len(line["text"]) > MAX_PASSAGE_CHARS:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += len(line["text"]) + 1
    passages: list[Passage] = []
    for chunk in chunks:
        opening = list(itertools.takewhile(lambda line: line.get("heading"), chunk))
        heading = _join_lines([str(line["text"]).strip() for line in opening])
        boxes = [
            BoundingBox(
                x0=line["x0"],
                top=line["top"],
                x1=line["x1"],
                bottom=line["bottom"],
                text=str(line["text"]).strip(),
            )
            for line in chunk
        ]
        passages.append(
            Passage(
                text=_join_lines([str(line["text"]).strip() for line in chunk]),
                heading=heading if len(opening) < len(chunk) else "",
                source=name,
                page=page,
                bbox=BoundingBox(
                    x0=min(b.x0 for b in boxes),
                    top=min(b.top for b in boxes),
                    x1=max(b.x1 for b in boxes),
                    bottom=max(b.bottom for b in boxes),
                ),
                lines=boxes,
                index=start + len(passages),
            )
        )
    return passages


def _join_lines(lines: list[str]) -> str:
    """Lines of one paragraph as running text: hyphenated breaks mended, no space inside Chinese."""
    text = ""
    for line in lines:
        if not text:
            text = line
        elif text.endswith("-") and line[:1].islower():
            text = text[:-1] + line
        elif is_chinese(text[-1]) or is_chinese(line[:1]):
            text += line
        else:
            text += " " + line
    return text


# ---- text, Markdown, HTML, CSV ---------------------------------------------------------------


def _decode_text(data: bytes, name: str) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise DocumentError(
        f"{name} is not text in UTF-8 or GB18030; save it as UTF-8 and send it again"
    )


def read_text(text: str, name: str, kind: DocumentKind = "text") -> Document:
    """Paragraphs of a text, Markdown, HTML or CSV document."""
    if kind == "html":
        blocks = _html_blocks(text)
    elif kind == "csv":
        blocks = _csv_rows(text, name)
    else:
        blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n"))
    passages: list[Passage] = []
    for block in blocks:
        joined = _join_lines([line.strip() for line in block.splitlines() if line.strip()])
        for piece in _split_long(joined):
            passages.append(Passage(text=piece, source=name, index=len(passages)))
    if not passages:
        raise DocumentError(f"{name} is empty; send a document with text in it")
    return Document(name=name, kind=kind, passages=passages)


def _split_long(text: str) -> list[str]:
    """`text` in pieces of at most about MAX_PASSAGE_CHARS, cut at sentence ends."""
    if len(text) <= MAX_PASSAGE_CHARS:
        return [text] if text else []
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        if current and len(current) + len(sentence) > MAX_PASSAGE_CHARS:
            pieces.append(current.strip())
            current = ""
        current += sentence if not current or is_chinese(current[-1]) else " " + sentence
    if current.strip():
        pieces.append(current.strip())
    return pieces


class _TextOfHtml(HTMLParser):
    _BLOCKS = frozenset(
        [
            "p",
            "div",
            "br",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "section",
            "article",
            "header",
            "footer",
            "table",
            "ul",
            "ol",
            "pre",
        ]
    )
    _SKIP = frozenset({"script", "style", "noscript", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(" ".join(data.split()) if data.strip() else " ")


def _html_blocks(html: str) -> list[str]:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def _csv_rows(text: str, name: str) -> list[str]:
    """Each row as "column: value; …" so a question naming a column and a value finds it."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise DocumentError(f"{name} is not valid CSV ({error})") from error
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    return [
        "; ".join(f"{col.strip()}: {cell.strip()}" for col, cell in zip(header, row, strict=False))
        for row in body
    ]


def describe_failure(source: DocumentSource, error: Exception) -> str:
    """A failed document's problem as a user reads it (URLs without their query strings)."""
    from datapilot.net import safe_url

    where = safe_url(source.url) if source.url else source.name
    message = getattr(error, "message", None) or str(error)
    return f"The document {where} could not be read: {message}"
