"""Small real PDFs made in the tests with matplotlib (text embedded as TrueType, so it is
selectable): pages of paragraphs, each paragraph wrapped into lines with a blank line after it."""

from __future__ import annotations

import io
import textwrap
from importlib import resources

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.font_manager import FontProperties

LINE = 0.022  # of the page height: about 18.5 pt on A4


def make_pdf(pages: list[list[str]], *, chinese: bool = False) -> bytes:
    """A PDF with one page per item; each paragraph wrapped at 80 columns (28 for Chinese)."""
    font = None
    if chinese:  # a CJK font shipped by mplfonts, a dependency of the project
        font = FontProperties(fname=str(resources.files("mplfonts") / "fonts" / "SimHei.ttf"))
    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(buffer) as pdf:
        for paragraphs in pages:
            figure = plt.figure(figsize=(8.27, 11.69))
            y = 0.95
            for paragraph in paragraphs:
                for line in textwrap.wrap(paragraph, 28 if chinese else 80):
                    figure.text(0.08, y, line, fontsize=11, va="top", fontproperties=font)
                    y -= LINE
                y -= LINE
            pdf.savefig(figure)
            plt.close(figure)
    return buffer.getvalue()


COLUMN_WIDTH = 42  # characters per line of one column on a two-column page


def make_two_column_pdf(
    pages: list[tuple[list[str], list[str]]], *, title: str | None = None
) -> bytes:
    """A PDF of two-column pages: each item holds the left column's paragraphs and the right
    column's, set side by side line for line (as a journal or an annual report is); `title`,
    across both columns, heads each page."""
    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(buffer) as pdf:
        for left, right in pages:
            figure = plt.figure(figsize=(8.27, 11.69))
            top = 0.95
            if title:
                figure.text(0.08, top, title, fontsize=13, va="top")
                top -= 2.5 * LINE
            for x, paragraphs in ((0.08, left), (0.53, right)):
                y = top
                for paragraph in paragraphs:
                    for line in textwrap.wrap(paragraph, COLUMN_WIDTH):
                        figure.text(x, y, line, fontsize=10, va="top")
                        y -= LINE
                    y -= LINE
            pdf.savefig(figure)
            plt.close(figure)
    return buffer.getvalue()


def make_table_pdf(intro: str, rows: list[list[str]], *, ruled: bool = True) -> bytes:
    """A one-page PDF: a paragraph, then a table (header row first) set in aligned columns,
    with its grid drawn when `ruled`."""
    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(buffer) as pdf:
        figure = plt.figure(figsize=(8.27, 11.69))
        y = 0.95
        for line in textwrap.wrap(intro, 80):
            figure.text(0.08, y, line, fontsize=11, va="top")
            y -= LINE
        y -= 2 * LINE
        width = 0.84 / len(rows[0])
        height = 1.6 * LINE
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                x, top = 0.09 + c * width, y - 0.3 * LINE - r * height
                figure.text(x, top, cell, fontsize=10, va="top")
        if ruled:
            bottom = y - len(rows) * height
            for r in range(len(rows) + 1):
                figure.add_artist(
                    plt.Line2D([0.08, 0.92], [y - r * height] * 2, color="black", lw=0.8)
                )
            for c in range(len(rows[0]) + 1):
                x = 0.08 + c * width
                figure.add_artist(plt.Line2D([x, x], [y, bottom], color="black", lw=0.8))
        pdf.savefig(figure)
        plt.close(figure)
    return buffer.getvalue()
