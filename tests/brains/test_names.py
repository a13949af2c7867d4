"""Names the way people type them: misspellings, nicknames, Chinese names, lower-case tickers,
the start of a name; everyday words are never names."""

from __future__ import annotations

from datetime import date

import pytest

from datapilot.brains.offline import OfflineBrain
from datapilot.core.context import QuestionContext
from datapilot.engine.brain import Understanding

TODAY = date(2022, 12, 28)


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def understand(brain: OfflineBrain, question: str) -> Understanding:
    return brain.understand_sync(question, QuestionContext(today=TODAY))


def ids(u: Understanding) -> list[str]:
    assert u.intent is not None
    return [e.id for e in u.intent.entities]


@pytest.mark.parametrize(
    ("question", "wanted", "how"),
    [
        ("Mircosoft stock price in 2021", "MSFT", "misspelling"),
        ("Appel's return in 2021", "AAPL", "misspelling"),
        ("Amazn price in 2021", "AMZN", "misspelling"),
        ("Appel 2021年的股价", "AAPL", "相近拼写"),
        ("Micros stock price in 2021", "MSFT", "start of its name"),
        ("aapl closing prices in 2021", "AAPL", "lower-case ticker"),
        ("jpm in 2021", "JPM", "lower-case ticker"),
    ],
)
def test_names_typed_loosely_resolve_and_the_trace_says_how(
    brain: OfflineBrain, question: str, wanted: str, how: str
) -> None:
    u = understand(brain, question)
    assert ids(u) == [wanted]
    assert u.intent is not None
    assert any(wanted in line and how in line for line in u.intent.trace)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Big Blue stock price in 2010", "IBM"),
        ("蓝色巨人2010年的股价", "IBM"),
        ("JP Morgan in 2021", "JPM"),
        ("BofA in 2021", "BAC"),
        ("苹果2021年的股价", "AAPL"),
        ("微软2021年的股价", "MSFT"),
        ("英伟达2021年的股价", "NVDA"),
        ("摩根大通2021年的股价", "JPM"),
        ("贝莱德2021年的股价", "BLK"),
    ],
)
def test_nicknames_and_chinese_names(brain: OfflineBrain, question: str, wanted: str) -> None:
    assert ids(understand(brain, question)) == [wanted]


def test_micros_is_not_micron(brain: OfflineBrain) -> None:
    assert "MU" not in ids(understand(brain, "Micros stock price in 2021"))
    assert "MU" not in ids(understand(brain, "micro caps and Apple in 2021"))


@pytest.mark.parametrize(
    "question",
    [
        "Apple vs Microsoft in 2021, Should I Buy?",
        "Should I buy Apple? Show 2021",
        "Is it so? Show Apple in 2021",
    ],
)
def test_everyday_words_are_never_names(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert u.status == "ok"
    assert set(ids(u)) <= {"AAPL", "MSFT"}
    assert not any("Should" in note or "Buy" in note for note in u.notes)
