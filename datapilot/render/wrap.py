"""Wrapping text for the terminal so that no number, date, ticker or English word is cut in two.

A terminal renderer folds a run without spaces (Chinese text) at any character, so a line could
end inside "13,388.08" or "1982-10-01". Here Chinese text breaks between characters, a run of
Latin letters, digits and their punctuation stays whole, and closing punctuation (，。）) never
starts a line.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

_CLOSING = "，。、；：！？）》」』”’%"
_OPENING = "（《「『“‘"
# A token: a run of printable ASCII (a number, date, ticker, word), or one other character,
# with opening punctuation before and closing punctuation after it; or whitespace.
_TOKEN = re.compile(rf"[{_OPENING}]*(?:[!-~]+|[^\s{_OPENING}])[{_CLOSING}]*|\s+")


def wrap(text: str, width: int) -> str:
    """`text` with line breaks so that no line is wider than `width` cells, breaking only
    between tokens (a token wider than a line is cut, as nothing else can be done)."""
    return "\n".join(line for paragraph in text.split("\n") for line in _lines(paragraph, width))


def _lines(paragraph: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for token in _TOKEN.findall(paragraph):
        if token.isspace():
            if line and cell_len(line) + cell_len(token) <= width:
                line += token
            elif line:
                lines.append(line.rstrip())
                line = ""
            continue
        if line and cell_len(line) + cell_len(token) > width:
            lines.append(line.rstrip())
            line = ""
        while cell_len(token) > width:  # longer than a line: cut where the line ends
            cut = _fit(token, width)
            lines.append(token[:cut])
            token = token[cut:]
        line += token
    lines.append(line.rstrip())
    return lines


def _fit(token: str, width: int) -> int:
    """How many characters of `token` fit in `width` cells (at least one)."""
    used = 0
    for index, char in enumerate(token):
        used += cell_len(char)
        if used > width:
            return max(1, index)
    return len(token)


class Wrapped:
    """Text wrapped by `wrap` at whatever width it is given: a table's header cell, which rich
    would otherwise fold at any character of a Chinese run ("（季调年率，200⏎5年不变价）")."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        # At least its widest token, so that a column narrows to a break between tokens.
        widest = max((cell_len(t) for t in _TOKEN.findall(self.text) if not t.isspace()), default=1)
        return Measurement(min(widest, options.max_width), cell_len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(wrap(self.text, options.max_width), no_wrap=True, overflow="fold")
