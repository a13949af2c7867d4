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
