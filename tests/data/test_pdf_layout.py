"""PDF text read by pdfium: lines and boxes as pdfplumber reads them (so citations do not move),
two-column pages in column order, tables kept out of the running text, and a clear error for a
PDF without a text layer."""

from __future__ import annotations

import io

import matplotlib
import pdfplumber
import pytest
from support.pdf_maker import make_pdf, make_two_column_pdf

from datapilot.data.documents import DocumentError, read_pdf

matplotlib.use("Agg")

LEFT = [
    "Deposits grew by four percent in the year as households saved more of their income.",
    "The loan book was flat: mortgages rose while corporate lending fell back.",
]
RIGHT = [
    "The capital ratio rose to fourteen percent after the bank retained its earnings.",
    "The board proposes a dividend of two dollars per share, paid in May.",
]
PAGES = [
    [
        "The CET1 ratio rose to 14.2% at year end, up from 13.1% a year earlier, as retained "
        "earnings grew faster than risk-weighted assets over the period.",
        "Liquidity",
        "The liquidity coverage ratio stood at 152% on average through the fourth quarter.",
    ],
    ["Deposits fell 3% in the fourth quarter as clients moved to money market funds."],
]
CHINESE = [
    ["公司研发投入达到299亿元，占营业收入的7.8%。报告期内公司实现营业收入383亿元，同比下降2.8%。"]
]


@pytest.mark.parametrize("pages, chinese", [(PAGES, False), (CHINESE, True)])
def test_lines_and_boxes_are_pdfplumbers_within_a_point(
    pages: list[list[str]], chinese: bool
) -> None:
    """Each passage line has pdfplumber's text and a box within 1 pt of pdfplumber's line box
    (what citations highlighted before pdfium read the text)."""
    pdf = make_pdf(pages, chinese=chinese)
    expected = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for page in document.pages:
            for line in page.extract_text_lines(return_chars=False, x_tolerance_ratio=0.15):
                box = (line["x0"], line["top"], line["x1"], line["bottom"])
                expected.append((page.page_number, line["text"].strip(), box))
    read = [
        (passage.page, line.text, (line.x0, line.top, line.x1, line.bottom))
        for passage in read_pdf(pdf, "report.pdf").passages
        for line in passage.lines
    ]
    assert [(page, text) for page, text, _ in read] == [(p, t) for p, t, _ in expected]
    for (_, text, box), (_, _, want) in zip(read, expected, strict=True):
        assert box == pytest.approx(want, abs=1.0), text


def test_a_two_column_page_is_read_column_by_column() -> None:
    pdf = make_two_column_pdf([(LEFT, RIGHT)], title="Annual report 2023")
    texts = [p.text for p in read_pdf(pdf, "annual.pdf").passages]
    # The title (a heading) opens the first paragraph; then each column top to bottom.
    assert texts == [f"Annual report 2023 {LEFT[0]}", LEFT[1], RIGHT[0], RIGHT[1]]


def test_a_pdf_without_a_text_layer_says_so() -> None:
    """A scanned page: an image and no text."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.backends.backend_pdf import PdfPages

    buffer = io.BytesIO()
    with PdfPages(buffer) as pdf:
        figure = plt.figure(figsize=(8.27, 11.69))
        figure.figimage(np.random.default_rng(0).random((200, 150)), 40, 40)
        pdf.savefig(figure)
        plt.close(figure)
    with pytest.raises(DocumentError, match=r"scan\.pdf has no text layer.*OCR"):
        read_pdf(buffer.getvalue(), "scan.pdf")
