"""A PDF's text lines with their boxes, read with pdfium (pypdfium2): ~50x faster than
pdfminer's layout analysis, which pdfplumber does for every page.

Each line is a dict like pdfplumber's `extract_text_lines` (`text`, `x0`, `top`, `x1`,
`bottom`, in points from the page's top left), so the paragraphs and citations built from it are
the same. A line's box comes from pdfium's loose character boxes (origin to advance
horizontally, the font size vertically), within a fraction of a point of pdfminer's.

Reading order: pdfium gives the lines of the content stream in order; on a page set in two
columns they are put in column order (a full-width line, such as a title, stays where it is and
separates what is above it from what is below), since sorting by height alone, as pdfplumber does,
reads across both columns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from datapilot.data.documents.limits import DocumentError, Reading
from datapilot.data.documents.progress import page_read

_MIN_COLUMN_LINES = 3  # lines on each side of a gutter before a page counts as two columns
_RULES = 4  # drawn paths on a page before it may hold a ruled table


@dataclass
class PageText:
    """One page's lines in reading order, and whether it draws enough rules to hold a table."""

    number: int
    width: float
    height: float
    lines: list[dict[str, Any]] = field(default_factory=list)
    ruled: bool = False


def open_pdf(data: bytes, name: str) -> Any:
    """The pdfium document of `data`; a clear `DocumentError` when pdfium cannot open it."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if "password" in str(error).lower():
            raise DocumentError(f"{name} is password-protected; send an unlocked copy") from None
        raise DocumentError(
            f"{name} is not a readable PDF ({error}); check that the file is a complete PDF"
        ) from None


def page_texts(pdf: Any, numbers: range, reading: Reading) -> Iterator[PageText]:
    """The text lines of the pages `numbers` (0-based), each page's characters and objects
    counted against the limit and the time budget checked between pages."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    for index in numbers:
        reading.check_time()
        try:
            page = pdf[index]
        except pdfium.PdfiumError as error:  # e.g. a page tree that lists itself
            raise DocumentError(
                f"{reading.name}: page {index + 1} cannot be read ({error}); the PDF's page "
                "tree is damaged: save it again (print to PDF) and resend it"
            ) from None
        try:
            textpage = page.get_textpage()
            try:
                objects = raw.FPDFPage_CountObjects(page.raw)
                reading.check_page_objects(index + 1, textpage.count_chars() + objects)
                width, height = page.get_size()
                lines = _lines(textpage, height)
                yield PageText(
                    number=index + 1,
                    width=width,
                    height=height,
                    lines=reading_order(lines, width),
                    ruled=_draws_rules(page, objects),
                )
            finally:
                textpage.close()
        finally:
            page.close()
        page_read(index + 1 - numbers.start, len(numbers))


def _lines(textpage: Any, height: float) -> list[dict[str, Any]]:
    import pypdfium2.raw as raw

    text = textpage.get_text_range()
    lines: list[dict[str, Any]] = []
    at = 0
    for raw_line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        start, end = at, at + len(raw_line)
        at = end + (2 if text[end : end + 2] == "\r\n" else 1)
        stripped = raw_line.strip()
        if not stripped:
            continue
        first = start + (len(raw_line) - len(raw_line.lstrip()))
        last = start + len(raw_line.rstrip()) - 1
        # The text's indices are not always the characters' (pdfium adds or drops a few).
        first_char = raw.FPDFText_GetCharIndexFromTextIndex(textpage.raw, first)
        last_char = raw.FPDFText_GetCharIndexFromTextIndex(textpage.raw, last)
        if first_char < 0 or last_char < 0:
            continue
        x0, bottom0, _, _ = textpage.get_charbox(first_char, loose=True)
        _, bottom1, x1, _ = textpage.get_charbox(last_char, loose=True)
        # pdfium's loose box spans the font's ascent; pdfminer's, one font size above the
        # descent, which citations have always used.
        size = max(
            raw.FPDFText_GetFontSize(textpage.raw, first_char),
            raw.FPDFText_GetFontSize(textpage.raw, last_char),
        )
        bottom = min(bottom0, bottom1)
        lines.append(
            {
                "text": " ".join(stripped.replace("\x02", "-").split()),
                "x0": x0,
                "top": height - bottom - size,
                "x1": max(x1, x0),
                "bottom": height - bottom,
            }
        )
    return lines


def _draws_rules(page: Any, objects: int) -> bool:
    """Whether the page draws enough paths to hold a ruled table (only those pages are read
    again, for tables, by pdfplumber)."""
    import pypdfium2.raw as raw

    paths = 0
    for index in range(objects):
        kind = raw.FPDFPageObj_GetType(raw.FPDFPage_GetObject(page.raw, index))
        if kind == raw.FPDF_PAGEOBJ_PATH:
            paths += 1
            if paths >= _RULES:
                return True
    return False


def reading_order(lines: list[dict[str, Any]], width: float) -> list[dict[str, Any]]:
    """`lines` top to bottom; on a two-column page, the left column's before the right's
    between full-width lines."""
    gutter = _gutter(lines, width)
    ordered = sorted(lines, key=lambda line: line["top"])
    if gutter is None:
        return ordered
    result: list[dict[str, Any]] = []
    left: list[dict[str, Any]] = []
    right: list[dict[str, Any]] = []
    for line in ordered:
        if line["x1"] <= gutter:
            left.append(line)
        elif line["x0"] >= gutter:
            right.append(line)
        else:  # across the gutter: what came before it is read first
            result += left + right + [line]
            left, right = [], []
    return result + left + right


def _gutter(lines: list[dict[str, Any]], width: float) -> float | None:
    """An x in the page's middle half that no column line crosses, with column lines on both
    sides of it side by side; None on a one-column page."""
    narrow = [line for line in lines if line["x1"] - line["x0"] < 0.55 * width]
    if len(narrow) < 2 * _MIN_COLUMN_LINES:
        return None
    spans = sorted((line["x0"], line["x1"]) for line in narrow)
    best: tuple[float, float] | None = None
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 > reach:  # an empty strip between reach and x0
            low, high = max(reach, 0.25 * width), min(x0, 0.75 * width)
            if high > low and (best is None or high - low > best[1] - best[0]):
                best = (low, high)
        reach = max(reach, x1)
    if best is None:
        return None
    gutter = (best[0] + best[1]) / 2
    left = [line for line in narrow if line["x1"] <= gutter]
    right = [line for line in narrow if line["x0"] >= gutter]
    if len(left) < _MIN_COLUMN_LINES or len(right) < _MIN_COLUMN_LINES:
        return None
    if not (_aligned(left) and _aligned(right)):  # e.g. figures set flush right: not a column
        return None
    # Side by side: the columns share height on the page (not a block indented below another).
    overlap = min(max(x["bottom"] for x in right), max(x["bottom"] for x in left)) - max(
        min(x["top"] for x in right), min(x["top"] for x in left)
    )
    return gutter if overlap > 0 else None


def _aligned(lines: list[dict[str, Any]]) -> bool:
    """Whether most of `lines` start where the leftmost does, as a column's lines do."""
    edge = min(line["x0"] for line in lines)
    return sum(line["x0"] - edge < 2.0 for line in lines) >= 0.5 * len(lines)
