"""A model's reply in a data chat shows only figures the turn's data holds.

A data assistant (one with the data workflow tool) answers with the data's numbers. A weak model
writes figures of its own ("Apple returned 5.3% in 2021"); they are caught sentence by sentence,
before they are shown, with the same check as the one-shot summaries (`engine.facts.ungrounded`):
a number is grounded when a tool result of the turn holds it (a table cell at the written
precision, or the tool's text) or the conversation wrote it first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from datapilot.core.results import Fact
from datapilot.engine.facts import facts_of, split_sentences, ungrounded
from datapilot.tools import ToolResult

_DIGIT = re.compile(r"\d")
LEFT_OUT_MARK = "[…]"
LEFT_OUT = (
    "Left out of the model's reply: {figures}, not found in the data's results.",
    "模型回复中的 {figures} 不在数据结果中，已略去。",
)


@dataclass
class ReplyCheck:
    """Sentences of a reply as they stream: the grounded ones pass, the others are held back.

    Inactive (every sentence passes) for assistants without the data workflow: their replies
    may rightly hold figures no tool gave (arithmetic, a document's numbers)."""

    active: bool
    context: str = ""  # the conversation's text: numbers the user or a tool wrote first
    facts: list[Fact] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)  # the figures held back, as written
    quoted: int = 0  # sentences shown that quote the data's figures
    _open: str = ""  # the sentence being written
    _sent: int = 0  # how much of it went out already

    def add_result(self, outcome: ToolResult) -> None:
        """A tool's result grounds the figures of its tables and its text."""
        for output in outcome.outputs:
            self.facts.extend(facts_of(outcome.name, output))
        self.context += "\n" + outcome.text

    def feed(self, piece: str) -> list[str]:
        """The text of `piece` that may go out now. Words stream as they come until the
        sentence they are in writes a number; from that word on, the sentence waits for its
        end and the check."""
        if not self.active:
            return [piece]
        sentences, self._open = split_sentences(self._open + piece)
        out = [self._close(sentence) for sentence in sentences]
        out.append(self._open[self._sent : self._free(self._open)])
        self._sent = max(self._sent, self._free(self._open))
        return [text for text in out if text]

    def flush(self) -> list[str]:
        """The reply's last, unfinished sentence, checked like the others."""
        if not self._open:
            return []
        rest, self._open = self._open, ""
        return [text for text in [self._close(rest)] if text]

    def note(self, chinese: bool) -> str | None:
        """What was left out, in the user's language; None when nothing was."""
        if not self.withheld:
            return None
        figures = ", ".join(dict.fromkeys(self.withheld))
        return LEFT_OUT[chinese].format(figures=figures)

    def _close(self, sentence: str) -> str:
        """The unsent rest of a finished sentence, or a mark where its figures were invented."""
        sent, self._sent = self._sent, 0
        invented = ungrounded(sentence, self.facts, self.context)
        if not invented:
            self.quoted += bool(_DIGIT.search(sentence))
            return sentence[sent:]
        self.withheld.extend(invented)
        return LEFT_OUT_MARK + sentence[len(sentence.rstrip()) :]

    def _free(self, sentence: str) -> int:
        """Where the part of an unfinished sentence that may go out ends: before the word of its
        first digit (a sign or currency written before it waits too)."""
        digit = _DIGIT.search(sentence)
        if digit is None:
            return len(sentence)
        space = max(sentence.rfind(" ", 0, digit.start()), sentence.rfind("\n", 0, digit.start()))
        return space + 1
