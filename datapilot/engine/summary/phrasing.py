"""Words the answer sentences share: facts by subject, lists, possessives, the window said."""

from __future__ import annotations

from datetime import date

from datapilot.core.results import Fact
from datapilot.data.phrases_zh import MEASURE_ZH
from datapilot.engine.summary.kinds import Said

Facts = dict[str, dict[str, Fact]]


def by_subject(facts: list[Fact]) -> Facts:
    """Facts grouped by subject, then measure (the first fact of a pair wins)."""
    grouped: Facts = {}
    for fact in facts:
        grouped.setdefault(fact.subject or "", {}).setdefault(fact.measure or "value", fact)
    return grouped


def rows_of(facts: Facts, measure: str) -> list[tuple[str, Fact]]:
    """(subject, fact) of each row holding `measure`, in the frame's order."""
    return [(s, m[measure]) for s, m in facts.items() if isinstance(m.get(measure), Fact)]


def numeric(pairs: list[tuple[str, Fact]]) -> list[tuple[str, Fact]]:
    """The pairs whose fact is a number."""
    return [(s, f) for s, f in pairs if isinstance(f.value, float)]


def listed(parts: list[str], zh: bool) -> str:
    """ "a, b and c" (a、b、c)."""
    if zh:
        return "、".join(parts)
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + f" and {parts[-1]}"


def possessive(name: str) -> str:
    """ "Apple's", "Coca-Cola's", "Fama–French factors'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def when_said(said: Said) -> str:
    """The window as said after a figure: " in 2021" (2021年)."""
    return f" {said.when}" if said.when and not said.w.zh else said.when


def after_name(name: str, when: str) -> str:
    """A window said after a name in Chinese: a space between a name ending in a Latin letter or
    digit and a date ("S&P 500 2018-09-30至…", never "S&P 5002018-09-30至…")."""
    joint = " " if name[-1:].isascii() and name[-1:].isalnum() and when[:1].isdigit() else ""
    return f"{name}{joint}{when}"


def measure_said(name: str, zh: bool) -> str:
    """A column's measure in words: "standard deviation", 标准差."""
    if zh:
        return MEASURE_ZH.get(name, name)
    return {
        "std": "standard deviation",
        "return_pct": "return",
        "annualized_volatility_pct": "annualised volatility",
        "annualized_return_pct": "annualised return",
    }.get(name, name.removesuffix("_pct").replace("_", " "))


def days_between(first: object, last: object) -> int | None:
    """Calendar days from one ISO date to another (a recovery's length, the days from a day's
    close to the first close past it); None when either is missing or no date."""
    try:
        return (date.fromisoformat(str(last)[:10]) - date.fromisoformat(str(first)[:10])).days
    except ValueError:
        return None
