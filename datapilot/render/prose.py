"""The text of one streamed answer, as every streaming renderer writes it.

Texts arrive as whole outputs (a paragraph each), as summary deltas, or as an apology when the
run failed; when nothing was written by the end, the answer's own summary or message is.
"""

from __future__ import annotations

from datapilot.core.answer import Answer


class Prose:
    """Joins an answer's texts into paragraphs and remembers whether any text was written."""

    def __init__(self) -> None:
        self.written = False

    def paragraph(self, text: str) -> str:
        """`text` as a paragraph of its own after anything already written."""
        piece = f"\n\n{text}" if self.written else text
        self.written = True
        return piece

    def delta(self, text: str) -> str:
        """A streamed piece of the summary, as it came; whitespace alone writes nothing."""
        self.written = self.written or bool(text.strip())
        return text

    def apology(self, message: str) -> str:
        """The paragraph that says the run could not finish, and why."""
        return self.paragraph(f"Sorry, I could not finish: {message}")

    def unwritten(self, answer: Answer) -> str:
        """The answer's summary (or else its message) when nothing was written; else ""."""
        if self.written:
            return ""
        return answer.summary or answer.message or ""
