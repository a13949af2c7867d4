"""The words the summary's sentences share: its language, entity names, titles and values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from datapilot.core.results import Fact
from datapilot.data.phrases_zh import title_zh, unit_zh
from datapilot.engine.facts import format_value

if TYPE_CHECKING:
    from datapilot.core.understanding import Understanding

_PAIR = " vs "  # how an interface names a column of two series ("AAPL vs MSFT")


@dataclass(frozen=True)
class Words:
    """The summary's language and the names it gives entities."""

    zh: bool
    names: Mapping[str, str] = field(default_factory=dict)  # entity id → name to use
    english: Mapping[str, str] = field(default_factory=dict)  # entity id → English name
    kinds: Mapping[str, str] = field(default_factory=dict)  # entity id → kind (stock, index…)

    def is_name_of(self, title: str, subject: str) -> bool:
        """Whether a frame's title is just the entity's own name ("US real GDP")."""
        return bool(title) and self.english.get(subject) == title

    def series(self, subject: str) -> str:
        """A series called by its name and id: "US real GDP (GDPC1)", 实际GDP（GDPC1）."""
        if self.zh and _PAIR in subject:
            return self.name(subject)
        name = self.names.get(subject) or self.english.get(subject)
        if not name or name == subject:
            return subject
        return f"{name}（{subject}）" if self.zh else f"{name} ({subject})"

    def name(self, subject: str, *, many: bool = False) -> str:
        """What to call an entity: its name, or in English its id when several are listed."""
        if many and not self.zh:
            return subject
        if self.zh and _PAIR in subject:  # a pair's column (a rolling correlation): 苹果与微软
            return "与".join(self.name(part) for part in subject.split(_PAIR))
        found = self.names.get(subject) or self.english.get(subject)
        for mark, said in (("-", " − "), ("/", " / ")):
            if found is None and subject.count(mark) == 1:
                # A spread's or ratio's column ("MCOILBRENTEU-MCOILWTICO"): its series by name.
                first, second = subject.split(mark)
                if first in self.names and second in self.names:
                    return f"{self.name(first)}{said}{self.name(second)}"
        return found or subject

    def title(self, title: str) -> str:
        """An interface's title in the summary's language."""
        if not self.zh:
            return title
        by_name = {english: self.names.get(i, english) for i, english in self.english.items()}
        return title_zh(title, by_name)

    def value(self, fact: Fact, *, absolute: bool = False, bare: bool = False) -> str:
        """A fact's value with its unit (none when `bare`), the unit in the summary's language."""
        value = fact.value
        if absolute and isinstance(value, float):
            value = abs(value)
        unit = None if bare else fact.unit
        if bare and fact.unit and isinstance(value, float):
            # A measured value without its unit is still a measurement, not a count: 100.00.
            return format_value(value, fact.unit).removesuffix(f" {fact.unit}").removesuffix("%")
        text = format_value(value, unit)
        if self.zh and unit and text.endswith(f" {unit}"):
            said = unit_zh(unit)
            joint = " " if said[:1].isascii() else ""
            text = text.removesuffix(f" {unit}") + joint + said
        return text


def words_for(zh: bool, understanding: Understanding, names: Mapping[str, str] | None) -> Words:
    """The words for a summary: `names` if given, else the intent's entity names (in Chinese,
    the labels the pipeline gave them from the catalog, whichever brain read the question)."""
    entities = understanding.intent.entities if understanding.intent else []
    english = {e.id: e.name for e in entities if e.name}
    shown = {e.id: e.label or e.name for e in entities if e.label or e.name} if zh else english
    kinds = {e.id: e.kind for e in entities}
    return Words(zh=zh, names=dict(names or shown), english=english, kinds=kinds)


def lower_first(text: str) -> str:
    """Lower-case the first letter, keeping acronyms and tickers (MACD, AAPL) and names as
    written: a word capitalised inside (Coca-Cola, McDonald's) or a name of several capitalised
    words (Analyst Estimates, Apple Inc.)."""
    if len(text) > 1 and text[:2].isupper():
        return text
    first = text.split(" ", 1)[0]
    if any(ch.isupper() for ch in first[1:]):
        return text
    words = re.findall(r"[A-Za-z][A-Za-z'.&-]*", text)
    if len(words) > 1 and words[0][0].isupper() and words[1][0].isupper():
        return text
    return text[:1].lower() + text[1:]


def upper_first(text: str) -> str:
    """Upper-case the first letter, leaving the rest as written."""
    return text[:1].upper() + text[1:]
