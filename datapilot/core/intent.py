"""What a brain understood of a question: entities, an explicit window, metrics, forms."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

EntityKind = Literal["stock", "etf", "index", "macro", "commodity", "factor", "fund", "table"]
ChartType = Literal["line", "bar", "candlestick", "scatter", "area", "pie"]
Frequency = Literal["daily", "weekly", "monthly", "quarterly", "annual"]

# Entities whose data are prices (OHLCV, adjusted close) and those whose data are one series.
PRICE_KINDS: frozenset[EntityKind] = frozenset({"stock", "etf", "index", "fund"})
SERIES_KINDS: frozenset[EntityKind] = frozenset({"macro", "commodity", "factor"})


def frequency_of_gap(days: float) -> Frequency:
    """The frequency a typical gap between observations suggests (e.g. the median gap in days)."""
    if days <= 4:
        return "daily"
    if days <= 10:
        return "weekly"
    if days <= 45:
        return "monthly"
    if days <= 120:
        return "quarterly"
    return "annual"


class EntityRef(BaseModel):
    """An entity named by the question, resolved to a stable catalog id."""

    id: str
    kind: EntityKind
    name: str
    label: str | None = Field(
        default=None,
        description="What the answer calls it in the question's language (苹果 for AAPL), when "
        "that is not `name`.",
    )


# How a word of the question was read. `unread` words are the ledger's left-overs; "tool" is for
# words that choose one of the user's own tools or fill its arguments. `period` (month, 季度),
# `threshold` ("above $150", 超过3%), `exclusion` ("except", 除了), `when` ("which day", 哪天)
# `distance` ("how far below its high", 离高点) and `recovery` ("get back to its peak", 收复高点)
# are words recognised as shaping the answer
# whether or not a reader acts on them; `number` is a number no reader took.
ReadAs = Literal[
    "entity", "measure", "window", "chart", "form", "amount", "count", "rate", "filler",
    "table", "tool", "scope", "period", "threshold", "exclusion", "when", "distance", "number",
    "gap", "tally", "recovery", "condition", "unread",
]  # fmt: skip
# Readings that carry no meaning an answer must honour: grammar, a refusal's cue, and left-overs
# (which an answer names in a note instead).
UNBOUND: frozenset[str] = frozenset({"filler", "scope", "unread"})


# A window's meaning when it lies inside a year asked beside it ("the 2020 return, and March's"):
# two windows one answer cannot hold, so the part is declined, never swallowed by the year.
NESTED_WINDOW = "a second window inside the year beside it"


class LedgerEntry(BaseModel):
    """One word (or phrase) of the question, where it is and what reading took it."""

    text: str
    start: int
    end: int
    reading: ReadAs
    meaning: str | None = Field(default=None, description="What it was read as, e.g. AAPL.")
    honoured_by: str | None = Field(
        default=None,
        description=(
            "What in the plan carries the word's meaning: a call's output and argument "
            "(`prices.ids`), or the reading it shaped. None for a recognised word nothing honours."
        ),
    )


class Ledger(BaseModel):
    """Every content word and number of the question: read by a reading, or left over.

    A left-over word that could change the answer is `declared`: the answer says it was not
    read. Readers that come later (a user's tool chosen by its words) mark words read with
    `mark_read`."""

    entries: list[LedgerEntry] = Field(default_factory=list)
    declared: list[str] = Field(default_factory=list, description="Left-overs the answer names.")

    @property
    def left_over(self) -> list[str]:
        return [e.text for e in self.entries if e.reading == "unread"]

    @property
    def unhonoured(self) -> list[LedgerEntry]:
        """Words recognised as shaping the answer that nothing in the plan honours: an answer
        resting on them would be about another question, so it is not `ok`."""
        return [e for e in self.entries if e.reading not in UNBOUND and e.honoured_by is None]

    @property
    def silent(self) -> list[str]:
        """Left-over words the answer does not name: what must never happen."""
        return [w for w in self.left_over if w not in self.declared]

    def mark_read(self, words: list[str], reading: ReadAs, meaning: str | None = None) -> None:
        """Words a later reader used (case-insensitive): no longer left over."""
        wanted = {w.casefold() for w in words}
        by = f"{reading}:{meaning}" if meaning else reading
        for entry in self.entries:
            if entry.text.casefold() not in wanted:
                continue
            if entry.reading == "unread":
                entry.reading, entry.meaning = reading, meaning
                entry.honoured_by = by
            elif entry.honoured_by is None:  # "how far" of a unit converter: the tool's words
                entry.honoured_by = by
        self.declared = [w for w in self.declared if w.casefold() not in wanted]


class IntentPart(BaseModel):
    """One part of a multi-part question: its own measures over its own window."""

    text: str = Field(description="The words of the question this part was read from.")
    metrics: list[str]
    start: date | None = None
    end: date | None = None


class Claim(BaseModel):
    """A figure the question checks ("gained more than 60%", "above 8% … yes or no", "lost about
    78%"): the answer says whether its own figure bears it out."""

    said: str = Field(description="The claim's words: 'more than 60%'.")
    side: Literal["above", "below", "about"]
    value: float = Field(description="The figure claimed, in percent.")
    fall: bool = Field(default=False, description="Said of a fall: compared with its size.")
    decimals: int = Field(default=0, description="Decimals the figure was said with.")
    inclusive: bool = Field(default=False, description="Met at the figure itself (doubled).")
    leader: str | None = Field(
        default=None,
        description="Of a gap between two names' returns ('beat Chevron by over 10 points'): "
        "the id the claim says came out ahead; the figure is the gap in percentage points.",
    )


class Intent(BaseModel):
    """The question restated with explicit dates, plus every decision taken and why."""

    rewritten: str
    entities: list[EntityRef] = Field(default_factory=list)
    start: date | None = None
    end: date | None = None
    metrics: list[str] = Field(default_factory=list)
    parts: list[IntentPart] = Field(
        default_factory=list,
        description="A multi-part question's parts, each with its own window inside start..end.",
    )
    horizon: int | None = None
    frequency: Frequency | None = None
    chart: ChartType | None = None
    scale: tuple[float, str] | None = Field(
        default=None,
        description='A scale the figure is asked in: (1e6, "million") for "in millions of shares".',
    )
    claim: Claim | None = Field(default=None, description="A figure the question checks.")
    table: bool = False
    trace: list[str] = Field(default_factory=list, description="Why each decision was taken.")
    ledger: Ledger | None = Field(
        default=None, description="Every content word of the question and the reading that took it."
    )
