"""Documents cut by their structure into chunks that keep page numbers and character offsets.

Pages, headings and paragraphs bound chunks; a table stays whole (one chunk, its rows kept as
columns/rows so it can feed the data workflow), cut into row groups only when it is long. A
chunk's `start`/`end` are offsets into the document's extracted text: the decoded file for
text and Markdown, the text blocks joined by blank lines for HTML, DOCX and tables, and for a
PDF the text of its page. English and Chinese alike: sentences end at . ! ? 。！？

Every document is read within `ReadLimits` (the `kb_*` settings): a zip archive's declared sizes
are checked before it is opened, a PDF's streams before they are inflated, and cells, chunks and
time are counted while reading; over a limit, `DocumentTooLarge` names it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, Field

from datapilot.data.documents import (
    DocumentError,
    Reading,
    ReadLimits,
    check_zip,
    kind_of,
    read_pdf,
    within,
)
from datapilot.data.documents.workbooks import workbook_sheets
from datapilot.data.text import is_chinese

Format = Literal["pdf", "text", "markdown", "html", "csv", "xlsx", "docx"]
MAX_CHUNK_CHARS = 1200
TABLE_ROWS = 40  # a longer table is cut into groups of this many rows, its header repeated
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


class Chunk(BaseModel):
    text: str
    page: int | None = None
    start: int
    end: int
    heading: str = Field(default="", description="The section the chunk is under.")
    table: dict[str, Any] | None = Field(
        default=None, description="A table chunk's {name, columns, rows}."
    )

    @property
    def indexed(self) -> str:
        """What retrieval reads: the heading gives a paragraph its subject."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


class Parsed(BaseModel):
    name: str
    format: Format
    pages: int = 1
    chunks: list[Chunk]


_SUFFIX_FORMATS: dict[str, Format] = {
    "xlsx": "xlsx",
    "xlsm": "xlsx",
    "docx": "docx",
}


def format_of(name: str, data: bytes, mime: str = "") -> Format:
    """A document's format from its bytes, media type or file name."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if data[:4] == b"PK\x03\x04" and suffix in _SUFFIX_FORMATS:  # Office files are zip archives
        return _SUFFIX_FORMATS[suffix]
    if "spreadsheetml" in mime:
        return "xlsx"
    if "wordprocessingml" in mime:
        return "docx"
    return kind_of(name, data, mime)


def parse(name: str, data: bytes, mime: str = "", limits: ReadLimits | None = None) -> Parsed:
    """`data` read into chunks within `limits` (default: the settings'); raises
    `DocumentError` saying what is wrong (`DocumentTooLarge` naming the limit)."""
    return within(name, limits, lambda reading: _parse(name, data, mime, reading))


def _parse(name: str, data: bytes, mime: str, reading: Reading) -> Parsed:
    if data[:4] == b"PK\x03\x04":  # a zip archive (XLSX, DOCX): its sizes before any reader
        check_zip(data, reading)
    fmt = format_of(name, data, mime)
    if fmt == "pdf":
        return _pdf(name, data, reading)
    if fmt == "xlsx":
        return _tables(name, fmt, _xlsx_tables(name, data, reading), reading)
    if fmt == "docx":
        return _blocks(name, fmt, _docx_blocks(name, data, reading), reading)
    text = _decode(name, data)
    if fmt == "csv":
        table = (name.rsplit(".", 1)[0], *_csv_table(name, text, reading))
        return _tables(name, fmt, [table], reading)
    if fmt == "html":
        return _blocks(name, fmt, _html_blocks(text), reading)
    chunks = _counted(_plain_chunks(text, markdown=fmt == "markdown"), reading)
    if not chunks:
        raise DocumentError(f"{name} is empty; send a document with text in it")
    return Parsed(name=name, format=fmt, chunks=chunks)


def _counted(chunks: Iterable[Chunk], reading: Reading) -> list[Chunk]:
    """`chunks` in a list, refused as soon as there are more than the limit."""
    kept: list[Chunk] = []
    for chunk in chunks:
        kept.append(chunk)
        reading.check_chunks(len(kept))
    return kept


# ---- text and Markdown: offsets into the file itself ------------------------------------------


def _decode(name: str, data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding).replace("\r\n", "\n")
        except UnicodeDecodeError:
            continue
    raise DocumentError(f"{name} is not text in UTF-8 or GB18030; save it as UTF-8 and resend it")


def _plain_chunks(text: str, *, markdown: bool) -> Iterator[Chunk]:
    heading = ""
    for start, end in _spans(text, r"\n[ \t]*\n"):
        block = text[start:end]
        lines = block.split("\n")
        if markdown and (found := _HEADING.match(lines[0])):
            heading = found.group(2)
            offset = len(lines[0]) + 1
            start, block = start + offset, block[offset:]
            if not block.strip():
                continue
        if markdown and len(lines) >= 2 and all(_PIPE_ROW.match(x) for x in lines if x.strip()):
            table = _pipe_table(block, heading)
            if table is not None:
                yield Chunk(text=block.strip(), start=start, end=end, heading=heading, table=table)
                continue
        yield from _sentences(block, start, heading=heading)


def _spans(text: str, separator: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each non-blank piece of `text` between separators, trimmed."""
    position = 0
    for match in [*re.finditer(separator, text), None]:
        stop = match.start() if match else len(text)
        piece = text[position:stop]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            yield position + lead, position + len(piece.rstrip())
        if match:
            position = match.end()


def _sentences(block: str, start: int, *, heading: str = "", page: int | None = None):
    """`block` (at `start`) as one chunk, or cut at sentence ends when it is long."""
    if len(block) <= MAX_CHUNK_CHARS:
        yield Chunk(text=block, page=page, start=start, end=start + len(block), heading=heading)
        return
    piece_start = 0
    last_cut = 0
    for match in _SENTENCE_END.finditer(block):
        if match.end() - piece_start > MAX_CHUNK_CHARS and last_cut > piece_start:
            text = block[piece_start:last_cut].strip()
            yield Chunk(
                text=text,
                page=page,
                start=start + piece_start,
                end=start + piece_start + len(text),
                heading=heading,
            )
            piece_start = last_cut
        last_cut = match.end()
    text = block[piece_start:].strip()
    if text:
        yield Chunk(
            text=text,
            page=page,
            start=start + piece_start,
            end=start + piece_start + len(text),
            heading=heading,
        )


def _pipe_table(block: str, heading: str) -> dict[str, Any] | None:
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in block.strip().split("\n")
        if line.strip() and not _PIPE_RULE.match(line)
    ]
    if len(rows) < 2:
        return None
    return {"name": heading or "table", "columns": rows[0], "rows": rows[1:]}


# ---- blocks (HTML, DOCX): offsets into the blocks joined by blank lines -----------------------

Block = tuple[str, str, dict[str, Any] | None]  # (kind: heading|text|table, text, table)


def _blocks(name: str, fmt: Format, blocks: Iterable[Block], reading: Reading) -> Parsed:
    chunks = _counted(_block_chunks(blocks), reading)
    if not chunks:
        raise DocumentError(f"{name} is empty; send a document with text in it")
    return Parsed(name=name, format=fmt, chunks=chunks)


def _block_chunks(blocks: Iterable[Block]) -> Iterator[Chunk]:
    position = 0
    heading = ""
    tables = 0
    for kind, text, table in blocks:
        text = text.strip()
        if not text:
            continue
        if kind == "heading":
            heading = text
        elif kind == "table" and table is not None:
            tables += 1
            table["name"] = heading or f"table {tables}"
            yield Chunk(
                text=text, start=position, end=position + len(text), heading=heading, table=table
            )
        else:
            yield from _sentences(text, position, heading=heading)
        position += len(text) + 2


def _rows_text(columns: list[str], rows: list[list[Any]]) -> str:
    lines = [" | ".join(columns)] + [" | ".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "" if value is None else str(value).strip()


_HTML_BLOCKS = {"p", "li", "pre", "blockquote", "dd", "dt", "figcaption", "caption", "td", "th"}


def _html_blocks(html: str) -> Iterator[Block]:
    import lxml.html

    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # lxml refuses empty or non-HTML input
        return
    for bad in root.xpath("//script|//style|//noscript|//template|//head"):
        bad.drop_tree()
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag == "table":
            rows = [
                [" ".join(c.text_content().split()) for c in tr.xpath("./th|./td")]
                for tr in element.xpath(".//tr")
            ]
            rows = [row for row in rows if any(row)]
            if rows:
                table = {"columns": rows[0], "rows": rows[1:]}
                yield ("table", _rows_text(rows[0], rows[1:]), table)
        elif tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            yield ("heading", " ".join(element.text_content().split()), None)
        elif tag in _HTML_BLOCKS and not element.xpath("ancestor::table"):
            if tag == "li" and element.xpath(".//p"):
                continue
            yield ("text", _join(element.text_content()), None)
        elif tag in {"div", "section", "article", "body", "main"}:
            # Loose text directly inside a container is a paragraph too.
            loose = (element.text or "") + "".join(child.tail or "" for child in element)
            if loose.strip():
                yield ("text", _join(loose), None)


def _join(text: str) -> str:
    """Whitespace collapsed; no space between Chinese characters across line breaks."""
    out = ""
    for word in text.split():
        if out and not (is_chinese(out[-1]) and is_chinese(word[0])):
            out += " "
        out += word
    return out


def _docx_blocks(name: str, data: bytes, reading: Reading) -> Iterator[Block]:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as error:  # python-docx raises several types for a broken archive
        raise DocumentError(
            f"{name} is not a readable Word document ({type(error).__name__}); save it as .docx "
            "again"
        ) from error
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            style = (item.style.name if item.style is not None else "") or ""
            kind = "heading" if style.startswith(("Heading", "Title", "标题")) else "text"
            yield (kind, item.text, None)
        elif isinstance(item, Table):
            rows = []
            for row in item.rows:
                cells = row.cells
                reading.count_cells(len(cells))
                rows.append([cell.text.strip() for cell in cells])
            if rows:
                yield (
                    "table",
                    _rows_text(rows[0], rows[1:]),
                    {"columns": rows[0], "rows": rows[1:]},
                )


# ---- tables (CSV, XLSX) -----------------------------------------------------------------------


def _csv_table(name: str, text: str, reading: Reading) -> tuple[list[str], list[list[Any]]]:
    import csv

    rows = []
    try:
        for row in csv.reader(io.StringIO(text)):
            reading.count_cells(len(row))
            if any(c.strip() for c in row):
                rows.append(row)
    except csv.Error as error:
        raise DocumentError(f"{name} is not valid CSV ({error})") from error
    if not rows:
        raise DocumentError(f"{name} is empty; send a CSV with a header row and data")
    return [c.strip() for c in rows[0]], [[c.strip() for c in row] for row in rows[1:]]


def _xlsx_tables(
    name: str, data: bytes, reading: Reading
) -> list[tuple[str, list[str], list[list[Any]]]]:
    tables = []
    for title, values in workbook_sheets(name, data, reading):
        rows = [
            [_json_cell(v) for v in row]
            for row in values
            if any(v is not None and str(v).strip() for v in row)
        ]
        if rows:
            tables.append((title, [_cell(c) for c in rows[0]], rows[1:]))
    if not tables:
        raise DocumentError(f"{name} has no filled cells; send a workbook with data")
    return tables


def _json_cell(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)  # dates and times as text: they travel as JSON


def _tables(
    name: str,
    fmt: Format,
    tables: list[tuple[str, list[str], list[list[Any]]]],
    reading: Reading,
) -> Parsed:
    chunks: list[Chunk] = []
    position = 0
    for title, columns, rows in tables:
        for first in range(0, max(len(rows), 1), TABLE_ROWS):
            part = rows[first : first + TABLE_ROWS]
            text = _rows_text(columns, part)
            table = {"name": title, "columns": columns, "rows": part, "first_row": first}
            chunks.append(
                Chunk(
                    text=text, start=position, end=position + len(text), heading=title, table=table
                )
            )
            reading.check_chunks(len(chunks))
            position += len(text) + 2
    return Parsed(name=name, format=fmt, chunks=chunks)


# ---- PDF: pages, paragraphs (each under its heading) and tables ---------------------------------


def _inside(box: Any, area: tuple[float, float, float, float]) -> bool:
    """Whether a passage's box lies within a table's (x0, top, x1, bottom), give or take 2 pt."""
    x0, top, x1, bottom = area
    return box.x0 >= x0 - 2 and box.top >= top - 2 and box.x1 <= x1 + 2 and box.bottom <= bottom + 2


def _pdf(name: str, data: bytes, reading: Reading) -> Parsed:
    tables: dict[int, list[list[list[str]]]] = {}
    areas: dict[int, list[tuple[float, float, float, float]]] = {}

    def ruled_tables(page: Any) -> None:
        """The page's ruled tables (pdfplumber's lattice finder), header row first."""
        for found in page.find_tables():
            cells = [[_cell(c) for c in row] for row in found.extract()]
            rows = [row for row in cells if any(row)]
            if len(rows) >= 2 and len(rows[0]) >= 2:
                tables.setdefault(page.page_number, []).append(rows)
                areas.setdefault(page.page_number, []).append(found.bbox)

    # clear errors for encrypted, malformed, scanned or oversized PDFs
    document = read_pdf(data, name, reading.limits, refuse_pages=True, on_page=ruled_tables)
    by_page: dict[int, list[tuple[str, str]]] = {}
    for passage in document.passages:
        page = passage.page or 1
        if passage.bbox is not None and any(
            _inside(passage.bbox, area) for area in areas.get(page, [])
        ):
            continue  # the table's cells, read as lines: the table chunk holds them as a table
        by_page.setdefault(page, []).append((passage.heading, passage.text))
    chunks: list[Chunk] = []
    for page, texts in sorted(by_page.items()):
        position = 0
        for heading, text in texts:
            # The heading apart, as for Word files: a quote reads the paragraph, not "Outlook
            # Management expects…"; search still reads both (`Chunk.indexed`).
            body = text.removeprefix(heading).lstrip() if heading else text
            start = position + len(text) - len(body)
            chunks.append(
                Chunk(text=body, page=page, start=start, end=start + len(body), heading=heading)
            )
            position += len(text) + 2
        for number, rows in enumerate(tables.get(page, []), 1):
            text = _rows_text(rows[0], rows[1:])
            table = {
                "name": f"{name} page {page} table {number}",
                "columns": rows[0],
                "rows": rows[1:],
            }
            chunks.append(
                Chunk(text=text, page=page, start=position, end=position + len(text), table=table)
            )
            position += len(text) + 2
        reading.check_chunks(len(chunks))
    return Parsed(name=name, format="pdf", pages=document.pages, chunks=chunks)
